import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { PROVIDER_DEFAULTS } from '../../../../src/config/chat'
import { openaiProvider } from '../../../../src/chat/providers/openai/openai'
import { ProviderError } from '../../../../src/chat/providers/provider'
import { startMockUpstream, type MockUpstream } from '../../mock-upstream'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let upstream: MockUpstream
beforeEach(async () => {
  upstream = await startMockUpstream()
})
afterEach(async () => {
  await upstream.stop()
})

const REQUEST = { model: 'm', messages: [{ role: 'user', content: 'hi' }] }
const relay = () => openaiProvider({ ...PROVIDER_DEFAULTS, name: 'mock', baseUrl: upstream.baseUrl })

/** Waits up to a second for the upstream to see its client go; true if it did. */
async function upstreamSawAbort(): Promise<boolean> {
  const seen = upstream.requests[0]
  await Promise.race([seen.aborted, Bun.sleep(1000)])
  return seen.wasAborted
}

describe('a client disconnect aborts the upstream request', () => {
  test('abort mid-stream: the iterator stops with the abort reason and the upstream sees the disconnect', async () => {
    upstream.script({ chunks: 100, chunkDelayMs: 20 })
    const client = new AbortController()
    const received: unknown[] = []
    const outcome = (async () => {
      for await (const chunk of relay().stream(REQUEST, client.signal)) {
        received.push(chunk)
        if (received.length === 3) client.abort(new DOMException('client went away', 'AbortError'))
      }
    })().catch((error) => error)

    const error = await outcome
    expect(error).toBeInstanceOf(DOMException)
    expect((error as DOMException).message).toBe('client went away')
    expect(received).toHaveLength(3)
    expect(await upstreamSawAbort()).toBe(true)
    expect(upstream.requests[0].completed).toBe(false)
  })

  test('a consumer that stops iterating (the route after a disconnect) releases the upstream', async () => {
    upstream.script({ chunks: 100, chunkDelayMs: 20 })
    for await (const chunk of relay().stream(REQUEST, new AbortController().signal)) {
      if (chunk.choices.length > 0) break
    }
    expect(await upstreamSawAbort()).toBe(true)
  })

  test('abort while waiting for response headers', async () => {
    upstream.script({ headerDelayMs: 2000 })
    const client = new AbortController()
    setTimeout(() => client.abort(), 50)
    const started = performance.now()
    const error = await (async () => {
      for await (const _ of relay().stream(REQUEST, client.signal));
    })().catch((caught) => caught)
    expect(error).not.toBeInstanceOf(ProviderError)
    expect((error as Error).name).toBe('AbortError')
    expect(performance.now() - started).toBeLessThan(500)
    expect(await upstreamSawAbort()).toBe(true)
  })

  test('abort while waiting for the first chunk', async () => {
    upstream.script({ firstChunkDelayMs: 2000 })
    const client = new AbortController()
    setTimeout(() => client.abort(), 50)
    const error = await (async () => {
      for await (const _ of relay().stream(REQUEST, client.signal));
    })().catch((caught) => caught)
    expect((error as Error).name).toBe('AbortError')
    expect(await upstreamSawAbort()).toBe(true)
  })

  test('abort of a non-streaming request', async () => {
    upstream.script({ headerDelayMs: 2000 })
    const client = new AbortController()
    setTimeout(() => client.abort(), 50)
    const error = await relay()
      .complete(REQUEST, client.signal)
      .catch((caught) => caught)
    expect((error as Error).name).toBe('AbortError')
    expect(await upstreamSawAbort()).toBe(true)
  })

  test('an already aborted signal sends nothing upstream', async () => {
    const client = new AbortController()
    client.abort()
    const error = await (async () => {
      for await (const _ of relay().stream(REQUEST, client.signal));
    })().catch((caught) => caught)
    expect((error as Error).name).toBe('AbortError')
    await Bun.sleep(50)
    expect(upstream.requests).toHaveLength(0)
  })

  test('a completed stream is not reported to the upstream as aborted', async () => {
    for await (const _ of relay().stream(REQUEST, new AbortController().signal));
    await Bun.sleep(50)
    expect(upstream.requests[0].completed).toBe(true)
    expect(upstream.requests[0].wasAborted).toBe(false)
  })
})
