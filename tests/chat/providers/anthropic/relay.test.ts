/**
 * The `anthropic` provider under the same limits as the `openai` relay (relay-abort, relay-timeouts,
 * relay-errors, upstream-limits): a client disconnect aborts the upstream, timeouts are 504s that
 * abort it, Anthropic's errors map by type, and what an upstream can make us hold is capped.
 */
import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { PROVIDER_DEFAULTS } from '../../../../src/config/chat'
import { anthropicProvider, type AnthropicProviderOptions } from '../../../../src/chat/providers/anthropic/anthropic'
import { ProviderError, type ChatCompletionChunk } from '../../../../src/chat/providers/provider'
import { drain } from '../../drain'
import { startMockAnthropic, type AnthropicReply, type MockAnthropic } from '../../mock-anthropic'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let anthropic: MockAnthropic
beforeEach(async () => {
  anthropic = await startMockAnthropic()
})
afterEach(async () => {
  await anthropic.stop()
})

const NOW = new Date('2026-01-01T00:00:00Z')
const REQUEST = { model: 'claude-x', messages: [{ role: 'user', content: 'hi' }] }
const relay = (overrides: Partial<AnthropicProviderOptions> = {}) =>
  anthropicProvider({
    ...PROVIDER_DEFAULTS,
    name: 'claude',
    baseUrl: anthropic.baseUrl,
    clock: () => NOW,
    ...overrides,
  })

/** The first choice's delta of a chunk (chunks are open records). */
const deltaOf = (chunk: ChatCompletionChunk) =>
  (chunk.choices[0] as { delta?: { content?: string } } | undefined)?.delta ?? {}

async function upstreamSawAbort(): Promise<boolean> {
  const seen = anthropic.requests[0]!
  await Promise.race([seen.aborted, Bun.sleep(1000)])
  return seen.wasAborted
}

const manyPieces: AnthropicReply = {
  blocks: [{ type: 'text', text: Array.from({ length: 100 }, (_, i) => `t${i} `) }],
  eventDelayMs: 20,
}

describe('a client disconnect aborts the upstream request', () => {
  test('abort mid-stream: the iterator stops with the abort reason and the upstream sees the disconnect', async () => {
    anthropic.script(manyPieces)
    const client = new AbortController()
    const received: unknown[] = []
    const error = await (async () => {
      for await (const chunk of relay().stream(REQUEST, client.signal)) {
        received.push(chunk)
        if (received.length === 3) client.abort(new DOMException('client went away', 'AbortError'))
      }
    })().catch((caught) => caught)
    expect((error as DOMException).message).toBe('client went away')
    expect(received).toHaveLength(3)
    expect(await upstreamSawAbort()).toBe(true)
  })

  test('a consumer that stops iterating releases the upstream', async () => {
    anthropic.script(manyPieces)
    for await (const chunk of relay().stream(REQUEST, new AbortController().signal)) if (deltaOf(chunk).content) break
    expect(await upstreamSawAbort()).toBe(true)
  })

  test('abort while waiting for response headers, streamed, non-streamed and native', async () => {
    const provider = relay()
    const calls = [
      (signal: AbortSignal) => drain(provider.stream(REQUEST, signal)).then(({ error }) => error),
      (signal: AbortSignal) => provider.complete(REQUEST, signal).catch((caught) => caught),
      (signal: AbortSignal) =>
        provider.messages.complete({ ...REQUEST, max_tokens: 10 }, signal).catch((caught) => caught),
    ]
    for (const call of calls) {
      anthropic.requests.length = 0
      anthropic.script({ headerDelayMs: 5000 })
      const client = new AbortController()
      setTimeout(() => client.abort(), 50)
      const started = performance.now()
      const error = await call(client.signal)
      expect((error as Error).name).toBe('AbortError')
      // Well short of the upstream's 5 s, with room for a slow machine.
      expect(performance.now() - started).toBeLessThan(4000)
      expect(await upstreamSawAbort()).toBe(true)
    }
  })

  test('abort while waiting for the first event (pings do not count)', async () => {
    anthropic.script({ firstEventDelayMs: 2000, pingEveryMs: 20 })
    const client = new AbortController()
    setTimeout(() => client.abort(), 80)
    const { error, received } = await drain(relay().stream(REQUEST, client.signal))
    expect((error as Error).name).toBe('AbortError')
    expect(received).toHaveLength(0)
    expect(await upstreamSawAbort()).toBe(true)
  })

  test('a completed stream is not reported to the upstream as aborted', async () => {
    await drain(relay().stream(REQUEST, new AbortController().signal))
    await Bun.sleep(50)
    expect(anthropic.requests[0]!.completed).toBe(true)
    expect(anthropic.requests[0]!.wasAborted).toBe(false)
  })
})

// Each timeout: the upstream's behaviour, the limits, the code, and how many chunks get through first.
// The upstream's delays (5 s) are longer than the 4 s a timeout must fire within, so a limit that did not fire fails
// the test; the limits themselves are 60-100 ms, and 4 s leaves room for a machine running the suite in parallel.
const TIMEOUTS: {
  name: string
  reply: AnthropicReply
  limits: Partial<AnthropicProviderOptions>
  code: string
  message: string
  delivered: number
}[] = [
  {
    name: 'no response headers in time',
    reply: { headerDelayMs: 5000 },
    limits: { connectTimeoutMs: 60 },
    code: 'upstream_connect_timeout',
    message: 'sent no response headers within 60 ms',
    delivered: 0,
  },
  {
    name: 'no first event in time',
    reply: { firstEventDelayMs: 5000 },
    limits: { firstTokenTimeoutMs: 60 },
    code: 'upstream_first_token_timeout',
    message: 'sent no first chunk within 60 ms',
    delivered: 0,
  },
  {
    name: 'pings do not count as a first event',
    reply: { firstEventDelayMs: 5000, pingEveryMs: 20 },
    limits: { firstTokenTimeoutMs: 100 },
    code: 'upstream_first_token_timeout',
    message: 'within 100 ms',
    delivered: 0,
  },
  // message_start (role chunk), content_block_start, one delta: two chunks, then silence.
  {
    name: 'silence mid-stream',
    reply: { ...manyPieces, eventDelayMs: 0, stallAfterEvents: 3 },
    limits: { idleTimeoutMs: 80 },
    code: 'upstream_idle_timeout',
    message: 'went silent mid-stream within 80 ms',
    delivered: 2,
  },
  {
    name: 'events slower than the idle limit',
    reply: { eventDelayMs: 5000 },
    limits: { idleTimeoutMs: 80 },
    code: 'upstream_idle_timeout',
    message: 'went silent mid-stream',
    delivered: 1,
  },
]

describe('timeouts are 504s that abort the upstream', () => {
  for (const { name, reply, limits, code, message, delivered } of TIMEOUTS) {
    test(name, async () => {
      anthropic.script(reply)
      const started = performance.now()
      const { received, error } = await drain(relay(limits).stream(REQUEST, new AbortController().signal))
      expect(error).toBeInstanceOf(ProviderError)
      expect((error as ProviderError).status).toBe(504)
      expect((error as ProviderError).options).toMatchObject({ type: 'timeout', code, retryable: true })
      expect((error as ProviderError).message).toContain(message)
      expect(received).toHaveLength(delivered)
      expect(performance.now() - started).toBeLessThan(4000)
      expect(await upstreamSawAbort()).toBe(true)
    })
  }

  test('a non-streaming request that outlives requestTimeoutMs', async () => {
    anthropic.script({ headerDelayMs: 600 })
    const error = await relay({ requestTimeoutMs: 60 })
      .complete(REQUEST, new AbortController().signal)
      .catch((caught) => caught)
    expect(error.status).toBe(504)
    expect(error.options.code).toBe('upstream_request_timeout')
    expect(await upstreamSawAbort()).toBe(true)
  })
})

describe('live streams are not cut', () => {
  test('pings between slow events keep a stream inside the idle limit', async () => {
    anthropic.script({ eventDelayMs: 300, pingEveryMs: 20 })
    const { received, error } = await drain(relay({ idleTimeoutMs: 150 }).stream(REQUEST, new AbortController().signal))
    expect(error).toBeUndefined()
    expect(received.map((chunk) => deltaOf(chunk).content ?? '').join('')).toBe('Hello, wörld 🌱')
  })

  test('time the consumer spends on a chunk does not count as upstream silence', async () => {
    const { received, error } = await drain(
      relay({ idleTimeoutMs: 40 }).stream(REQUEST, new AbortController().signal),
      100,
    )
    expect(error).toBeUndefined()
    expect(received).toHaveLength(5)
  })
})

// Anthropic's failures as the registry and the client see them: status, type, code, retryable.
const ERRORS: {
  reply: AnthropicReply
  status: number
  type: string
  code: string | null
  retryable: boolean
  retryAfter?: number
  message: string
  detail?: string
}[] = [
  {
    reply: {
      status: 400,
      errorBody: { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: too large' } },
    },
    status: 400,
    type: 'invalid_request_error',
    code: null,
    retryable: false,
    message: 'max_tokens: too large',
  },
  {
    reply: {
      status: 401,
      errorBody: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
    },
    status: 502,
    type: 'api_error',
    code: 'upstream_auth_failed',
    retryable: false,
    message: "provider 'claude' rejected this gateway's credentials",
    detail: 'invalid x-api-key',
  },
  {
    reply: { status: 403, errorType: 'permission_error' },
    status: 502,
    type: 'api_error',
    code: 'upstream_auth_failed',
    retryable: false,
    message: '(HTTP 403)',
    detail: 'mock permission_error',
  },
  {
    reply: { status: 404, errorType: 'not_found_error' },
    status: 404,
    type: 'invalid_request_error',
    code: 'model_not_found',
    retryable: false,
    message: "does not serve the model 'claude-x'",
  },
  {
    reply: { status: 413, errorType: 'request_too_large' },
    status: 413,
    type: 'invalid_request_error',
    code: null,
    retryable: false,
    message: 'mock request_too_large',
  },
  {
    reply: { status: 429, headers: { 'retry-after': '7' } },
    status: 429,
    type: 'rate_limit_error',
    code: 'rate_limit_exceeded',
    retryable: true,
    retryAfter: 7,
    message: 'rate limiting',
  },
  {
    reply: { status: 429, headers: { 'retry-after': '60' } },
    status: 429,
    type: 'rate_limit_error',
    code: 'rate_limit_exceeded',
    retryable: true,
    retryAfter: 10,
    message: 'rate limiting',
  },
  {
    reply: { status: 500, errorType: 'api_error' },
    status: 503,
    type: 'api_error',
    code: 'upstream_unavailable',
    retryable: true,
    message: "provider 'claude' is unavailable",
    detail: 'mock api_error',
  },
  {
    reply: { status: 529, errorType: 'overloaded_error' },
    status: 503,
    type: 'api_error',
    code: 'upstream_unavailable',
    retryable: true,
    message: 'is unavailable',
    detail: 'mock overloaded_error',
  },
  {
    reply: { status: 529, errorBody: '<html>overloaded</html>' },
    status: 503,
    type: 'api_error',
    code: 'upstream_unavailable',
    retryable: true,
    message: 'is unavailable',
  },
  {
    reply: { status: 504, errorType: 'timeout_error' },
    status: 504,
    type: 'timeout',
    code: 'upstream_request_timeout',
    retryable: true,
    message: 'did not finish the request',
  },
  {
    reply: { status: 402, errorType: 'billing_error' },
    status: 502,
    type: 'api_error',
    code: 'upstream_error',
    retryable: false,
    message: 'unexpected HTTP 402',
  },
]

describe("Anthropic's errors map by type", () => {
  for (const { reply, ...expected } of ERRORS) {
    test(`HTTP ${reply.status} ${reply.errorType ?? JSON.stringify(reply.errorBody ?? '')} → ${expected.status} ${expected.code}`, async () => {
      anthropic.script(reply)
      const provider = relay()
      const signal = new AbortController().signal
      const failures = [
        (await drain(provider.stream(REQUEST, signal))).error,
        await provider.complete(REQUEST, signal).catch((caught) => caught),
        await provider.messages.complete({ ...REQUEST, max_tokens: 5 }, signal).catch((caught) => caught),
        await provider.messages.countTokens({ ...REQUEST, max_tokens: 5 }, signal).catch((caught) => caught),
      ]
      for (const error of failures) {
        expect(error).toBeInstanceOf(ProviderError)
        expect(error.status).toBe(expected.status)
        expect(error.message).toContain(expected.message)
        expect(error.options.type).toBe(expected.type)
        expect(error.options.code ?? null).toBe(expected.code)
        expect(error.options.retryable ?? false).toBe(expected.retryable)
        expect(error.options.retryAfter).toBe(expected.retryAfter)
        if (expected.detail) {
          expect(error.options.detail).toContain(expected.detail)
          expect(error.message).not.toContain(expected.detail)
        }
      }
    })
  }

  // An `error` event in a 200 stream: mapped by its type, thrown after the chunks before it.
  const EVENTS: [string, number, string | undefined][] = [
    ['overloaded_error', 503, 'upstream_unavailable'],
    ['api_error', 503, 'upstream_unavailable'],
    ['rate_limit_error', 429, 'rate_limit_exceeded'],
    ['invalid_request_error', 400, undefined],
    ['something_new_error', 502, 'upstream_error'],
  ]
  for (const [type, status, code] of EVENTS) {
    test(`an in-stream ${type} event → ${status}, after the chunks before it`, async () => {
      anthropic.script({ errorEvent: { at: 3, type } })
      const { received, error } = await drain(relay().stream(REQUEST, new AbortController().signal))
      expect(received.map((chunk) => deltaOf(chunk).content ?? '')).toEqual(['', 'Hello'])
      expect(error).toBeInstanceOf(ProviderError)
      expect((error as ProviderError).status).toBe(status)
      expect((error as ProviderError).options.code ?? undefined).toBe(code)
    })
  }

  test('error messages name the provider, never its URL or key', async () => {
    anthropic.script({ status: 401 })
    const error = await relay({ apiKey: 'sk-ant-secret' })
      .complete(REQUEST, new AbortController().signal)
      .catch((caught) => caught)
    expect(error.message).not.toContain('127.0.0.1')
    expect(error.message).not.toContain('sk-ant-secret')
  })
})

describe('what an upstream can make the provider hold', () => {
  test('an event past CHAT_MAX_EVENT_BYTES ends the stream with an error, after the events before it', async () => {
    const start =
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1,"output_tokens":1}}}\n\n'
    const huge = `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${'y'.repeat(64 * 1024)}`
    // Apart in time, so that message_start is a read of its own: SseDataDecoder drops the events a
    // read completed before the one that overflows, so under load the role chunk was lost (a flake).
    anthropic.script({
      rawPieces: [start, ...Array.from({ length: 4 }, (_, i) => huge.slice(i * 16 * 1024, (i + 1) * 16 * 1024))],
      eventDelayMs: 10,
    })
    const { received, error } = await drain(
      relay({ maxEventBytes: 32 * 1024 }).stream(REQUEST, new AbortController().signal),
    )
    expect(received).toHaveLength(1)
    expect((error as ProviderError).message).toContain("larger than this gateway's limit of 32768 bytes")
  })

  test('a non-streamed answer past CHAT_MAX_RESPONSE_BYTES is a 502', async () => {
    anthropic.script({ blocks: [{ type: 'text', text: 'z'.repeat(200_000) }] })
    const error = await relay({ maxResponseBytes: 100_000 })
      .complete(REQUEST, new AbortController().signal)
      .catch((caught) => caught)
    expect(error.status).toBe(502)
    expect(error.message).toContain("larger than this gateway's limit of 100000 bytes")
  })

  test('a stream that ends before message_stop is an error', async () => {
    anthropic.script({ failAfterEvents: 4 })
    const { received, error } = await drain(relay().stream(REQUEST, new AbortController().signal))
    expect(received.length).toBeGreaterThan(0)
    expect((error as ProviderError).status).toBe(502)
  })

  test('CRLF line ends and reads that split events and characters translate the same', async () => {
    const texts: string[] = []
    for (const reply of [
      {},
      { lineEnds: 'crlf' },
      { splitEvery: 7 },
      { lineEnds: 'crlf', splitEvery: 3 },
    ] as AnthropicReply[]) {
      anthropic.script(reply)
      const { received, error } = await drain(relay().stream(REQUEST, new AbortController().signal))
      expect(error).toBeUndefined()
      texts.push(received.map((chunk) => deltaOf(chunk).content ?? '').join(''))
    }
    expect(texts).toEqual(Array(4).fill('Hello, wörld 🌱'))
  })
})
