/**
 * The native Responses relay's timeouts and a client that leaves: each timeout is a 504 the
 * registry may retry, and every way out releases the upstream connection.
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { OpenAIProviderOptions } from '../../../../src/chat/providers/openai/openai'
import type { ResponsesRequest } from '../../../../src/chat/providers/provider'
import { responsesEventsOf, sseOf, useMockResponses, type ResponsesReply } from '../../mock-responses'
import { drainText, eventCount, expectError, nativeRelay, upstreamSawAbort } from './native-responses'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const upstream = useMockResponses()

const REQUEST: ResponsesRequest = { model: 'gpt-upstream', input: 'hi' }
const signal = () => new AbortController().signal
const relay = (options: Partial<OpenAIProviderOptions> = {}) => nativeRelay(upstream.baseUrl, options)
const all = responsesEventsOf({}, REQUEST).map(sseOf)
const sawAbort = () => upstreamSawAbort(upstream.requests[0]!)

describe('timeouts are 504s that abort the upstream', () => {
  const ROWS: [string, ResponsesReply, Partial<OpenAIProviderOptions>, string, number][] = [
    ['no response headers in time', { headerDelayMs: 600 }, { connectTimeoutMs: 60 }, 'upstream_connect_timeout', 0],
    [
      'no first event in time',
      { firstEventDelayMs: 600 },
      { firstTokenTimeoutMs: 60 },
      'upstream_first_token_timeout',
      0,
    ],
    [
      'comments do not count as a first event',
      { firstEventDelayMs: 600, commentEveryMs: 20 },
      { firstTokenTimeoutMs: 100 },
      'upstream_first_token_timeout',
      0,
    ],
    ['silence mid-stream', { stallAfterEvents: 3 }, { idleTimeoutMs: 80 }, 'upstream_idle_timeout', 3],
  ]
  for (const [name, reply, limits, code, delivered] of ROWS) {
    test(name, async () => {
      upstream.script(reply)
      const started = performance.now()
      const { text, error } = await drainText(relay(limits).streamEvents(REQUEST, signal()))
      expectError(error, { status: 504, code, retryable: true, message: '', type: 'timeout' })
      expect(eventCount(text)).toBe(delivered)
      expect(performance.now() - started).toBeLessThan(500)
      expect(await sawAbort()).toBe(true)
    })
  }

  test('a non-streamed request that outlives requestTimeoutMs', async () => {
    upstream.script({ headerDelayMs: 600 })
    const error = await relay({ requestTimeoutMs: 60 })
      .complete(REQUEST, signal())
      .catch((caught) => caught)
    expectError(error, { status: 504, code: 'upstream_request_timeout', retryable: true, message: '' })
    expect(await sawAbort()).toBe(true)
  })

  test('time the consumer spends on a batch does not count as upstream silence', async () => {
    upstream.script({ eventDelayMs: 5 })
    const { text, error } = await drainText(relay({ idleTimeoutMs: 40 }).streamEvents(REQUEST, signal()), 60)
    expect(error).toBeUndefined()
    expect(text).toBe(all.join(''))
  })
})

describe('a client that leaves releases the upstream', () => {
  test('abort mid-stream: the iterator stops with the abort reason; the upstream sees the disconnect', async () => {
    upstream.script({ eventDelayMs: 20 })
    const client = new AbortController()
    let items = 0
    const error = await (async () => {
      for await (const _ of relay().streamEvents(REQUEST, client.signal))
        if (++items === 3) client.abort(new DOMException('client went away', 'AbortError'))
    })().catch((caught) => caught)
    expect((error as DOMException).message).toBe('client went away')
    expect(items).toBe(3)
    expect(await sawAbort()).toBe(true)
  })

  test('a consumer that stops iterating releases the upstream', async () => {
    upstream.script({ eventDelayMs: 20 })
    for await (const _ of relay().streamEvents(REQUEST, signal())) break
    expect(await sawAbort()).toBe(true)
  })

  test('an already aborted signal sends nothing upstream', async () => {
    const client = new AbortController()
    client.abort()
    const { error } = await drainText(relay().streamEvents(REQUEST, client.signal))
    expect((error as Error).name).toBe('AbortError')
    await Bun.sleep(50)
    expect(upstream.requests).toHaveLength(0)
  })

  test('a whole stream is not reported to the upstream as aborted', async () => {
    await drainText(relay().streamEvents(REQUEST, signal()))
    await Bun.sleep(50)
    expect(upstream.requests[0]!.completed).toBe(true)
    expect(upstream.requests[0]!.wasAborted).toBe(false)
  })
})
