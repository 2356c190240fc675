import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { PROVIDER_DEFAULTS } from '../../../../src/config/chat'
import { openaiProvider, type OpenAIProviderOptions } from '../../../../src/chat/providers/openai/openai'
import { ProviderError } from '../../../../src/chat/providers/provider'
import { drain } from '../../drain'
import { startMockUpstream, type MockReply, type MockUpstream } from '../../mock-upstream'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let upstream: MockUpstream
beforeEach(async () => {
  upstream = await startMockUpstream()
})
afterEach(async () => {
  await upstream.stop()
})

function relay(overrides: Partial<OpenAIProviderOptions>) {
  return openaiProvider({ ...PROVIDER_DEFAULTS, name: 'mock', baseUrl: upstream.baseUrl, ...overrides })
}

const REQUEST = { model: 'm', messages: [{ role: 'user', content: 'hi' }] }

async function upstreamSawAbort(): Promise<boolean> {
  const seen = upstream.requests[0]
  await Promise.race([seen.aborted, Bun.sleep(1000)])
  return seen.wasAborted
}

// Each timeout: the upstream's behaviour, the provider's limits, the error code, and how many
// chunks (role chunk included) get through before it fires. The upstream's delays (3 s) are longer than the 2.5 s a
// timeout must fire within, so a limit that did not fire fails the test; the limits themselves are 60-100 ms, and
// 2.5 s leaves room for a machine running the suite in parallel.
const TIMEOUTS: {
  name: string
  reply: MockReply
  limits: Partial<OpenAIProviderOptions>
  code: string
  message: string
  delivered: number
}[] = [
  {
    name: 'no response headers in time',
    reply: { headerDelayMs: 3000 },
    limits: { connectTimeoutMs: 60 },
    code: 'upstream_connect_timeout',
    message: 'sent no response headers within 60 ms',
    delivered: 0,
  },
  {
    name: 'no first chunk in time',
    reply: { firstChunkDelayMs: 3000 },
    limits: { firstTokenTimeoutMs: 60 },
    code: 'upstream_first_token_timeout',
    message: 'sent no first chunk within 60 ms',
    delivered: 0,
  },
  {
    name: 'keep-alive comments do not count as a first chunk',
    reply: { firstChunkDelayMs: 3000, commentEveryMs: 20 },
    limits: { firstTokenTimeoutMs: 100 },
    code: 'upstream_first_token_timeout',
    message: 'sent no first chunk within 100 ms',
    delivered: 0,
  },
  {
    name: 'silence mid-stream',
    reply: { chunks: 10, stallAfterChunks: 3 },
    limits: { idleTimeoutMs: 80 },
    code: 'upstream_idle_timeout',
    message: 'went silent mid-stream within 80 ms',
    delivered: 4,
  },
  {
    name: 'chunks slower than the idle limit',
    reply: { chunks: 3, chunkDelayMs: 3000 },
    limits: { idleTimeoutMs: 80 },
    code: 'upstream_idle_timeout',
    message: 'went silent mid-stream',
    delivered: 1,
  },
]

describe('timeouts are 504s that abort the upstream', () => {
  for (const { name, reply, limits, code, message, delivered } of TIMEOUTS) {
    test(name, async () => {
      upstream.script(reply)
      const started = performance.now()
      const { received, error } = await drain(relay(limits).stream(REQUEST, new AbortController().signal))

      expect(error).toBeInstanceOf(ProviderError)
      expect((error as ProviderError).status).toBe(504)
      expect((error as ProviderError).options).toMatchObject({ type: 'timeout', code, retryable: true })
      expect((error as ProviderError).message).toContain(message)
      expect(received).toHaveLength(delivered)
      expect(performance.now() - started).toBeLessThan(2500)
      expect(await upstreamSawAbort()).toBe(true)
    })
  }

  test('a non-streaming request that outlives requestTimeoutMs', async () => {
    upstream.script({ headerDelayMs: 600 })
    const error = await relay({ requestTimeoutMs: 60 })
      .complete(REQUEST, new AbortController().signal)
      .catch((caught) => caught)
    expect(error).toBeInstanceOf(ProviderError)
    expect(error.status).toBe(504)
    expect(error.options.code).toBe('upstream_request_timeout')
    expect(await upstreamSawAbort()).toBe(true)
  })
})

describe('live streams are not cut', () => {
  test('keep-alive comments between slow chunks keep a stream inside the idle limit', async () => {
    upstream.script({ chunks: 3, chunkDelayMs: 400, commentEveryMs: 20 })
    const { received, error } = await drain(relay({ idleTimeoutMs: 150 }).stream(REQUEST, new AbortController().signal))
    expect(error).toBeUndefined()
    expect(received).toHaveLength(5)
  })

  test('the first-token limit bounds the first chunk only, not the whole stream', async () => {
    upstream.script({ chunks: 4, chunkDelayMs: 60 })
    const { received, error } = await drain(
      relay({ firstTokenTimeoutMs: 200, idleTimeoutMs: 200 }).stream(REQUEST, new AbortController().signal),
    )
    expect(error).toBeUndefined()
    expect(received).toHaveLength(6)
  })

  test('time the consumer spends on a chunk does not count as upstream silence', async () => {
    upstream.script({ chunks: 3 })
    const { received, error } = await drain(
      relay({ idleTimeoutMs: 40 }).stream(REQUEST, new AbortController().signal),
      120,
    )
    expect(error).toBeUndefined()
    expect(received).toHaveLength(5)
  })
})
