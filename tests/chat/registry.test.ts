import { PROVIDER_KINDS } from '../../src/chat/providers'
import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { parseChatConfig, PROVIDER_DEFAULTS, type ChatConfig, type ProviderConfig } from '../../src/config/chat'
import { createEchoProvider } from '../../src/chat/providers/echo/echo'
import {
  ProviderError,
  type ChatCompletionChunk,
  type ChatProvider,
  type ChatRequest,
} from '../../src/chat/providers/provider'
import { buildRegistry, ModelRegistry, type RegistryDeps, type StreamState } from '../../src/chat/registry'
import { backoffMs } from '../../src/chat/retry'
import { SseDataDecoder } from '../../src/chat/sse/decoder'
import { startMockUpstream, type MockUpstream } from './mock-upstream'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let primary: MockUpstream
let secondary: MockUpstream
let sleeps: number[]
beforeEach(async () => {
  primary = await startMockUpstream()
  secondary = await startMockUpstream()
  sleeps = []
})
afterEach(async () => {
  await primary.stop()
  await secondary.stop()
})

/** Back-off waits are recorded, not slept, so the tests can check them exactly and stay fast. */
const recordSleep: RegistryDeps['sleep'] = async (ms) => {
  sleeps.push(ms)
}

function provider(upstream: MockUpstream, overrides: Partial<ProviderConfig> = {}): ProviderConfig {
  return { ...PROVIDER_DEFAULTS, baseUrl: upstream.baseUrl, retryBaseMs: 10, ...overrides }
}

/** The public model `smart` tries primary (as `up-a`), then secondary (as `up-b`). */
function registry(
  overrides: { primary?: Partial<ProviderConfig>; secondary?: Partial<ProviderConfig> } = {},
  deps: Partial<RegistryDeps> = {},
) {
  const config: ChatConfig = {
    providers: { primary: provider(primary, overrides.primary), secondary: provider(secondary, overrides.secondary) },
    models: {
      smart: [
        { provider: 'primary', model: 'up-a' },
        { provider: 'secondary', model: 'up-b' },
      ],
      echo: [{ provider: 'echo', model: 'echo' }],
    },
    keepAliveMs: 15_000,
    echoTokenDelayMs: 0,
    maxResponseBytes: 8 * 1024 * 1024,
    maxEventBytes: 1024 * 1024,
  }
  // Jitter fixed at its top, so back-offs are their ceilings (see 'full jitter' below).
  return buildRegistry(config, { echo: createEchoProvider, sleep: recordSleep, random: () => 0.999_999, ...deps })
}

const request = (model = 'smart'): ChatRequest => ({
  model,
  messages: [{ role: 'user', content: 'hello there' }],
  stream: true,
})
const fresh = (): StreamState => ({ committed: false })

async function run(chunks: AsyncIterable<ChatCompletionChunk>) {
  const received: ChatCompletionChunk[] = []
  try {
    for await (const chunk of chunks) received.push(chunk)
    return { received, error: undefined }
  } catch (error) {
    return { received, error: error as ProviderError }
  }
}

describe('model names', () => {
  test('with nothing configured, echo and echo-reasoner are served by the echo provider', async () => {
    const models = buildRegistry(parseChatConfig({}, PROVIDER_KINDS), { echo: createEchoProvider })
    expect(models.list()).toEqual(['echo', 'echo-reasoner'])
    expect(models.has('echo-reasoner')).toBe(true)
    expect(models.has('gpt-4o')).toBe(false)

    const { received } = await run(models.stream(request('echo-reasoner'), new AbortController().signal, fresh()))
    expect(
      received.some(
        (chunk) => (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content,
      ),
    ).toBe(true)
  })

  test('lists public names in configuration order', () => {
    expect(registry().list()).toEqual(['smart', 'echo'])
  })

  test('what may serve a model, for pricing it before it is sent: its public name, then each route (a fallback too)', () => {
    // By the provider's registry name, as the ledger's rows carry it.
    expect(registry().pricedAs('smart')).toEqual([
      { model: 'smart' },
      { model: 'smart', provider: 'openai:primary', upstreamModel: 'up-a' },
      { model: 'smart', provider: 'openai:secondary', upstreamModel: 'up-b' },
    ])
    expect(registry().pricedAs('nonesuch')).toEqual([{ model: 'nonesuch' }])
  })

  test('an unknown model is a 404 model_not_found naming the model', async () => {
    const { error } = await run(registry().stream(request('nope'), new AbortController().signal, fresh()))
    expect(error).toBeInstanceOf(ProviderError)
    expect(error!.status).toBe(404)
    expect(error!.options).toMatchObject({ code: 'model_not_found', param: 'model' })
    expect(error!.message).toBe('The model `nope` does not exist or you do not have access to it.')
    const completeError = await registry()
      .complete(request('nope'), new AbortController().signal)
      .catch((caught) => caught)
    expect(completeError.status).toBe(404)
  })

  test('each attempt sends the upstream model name, everything else untouched (but the usage a stream always asks for)', async () => {
    primary.script({ status: 500 })
    const sent = { ...request(), temperature: 0.5, vendor_field: 'kept' }
    await run(registry({ primary: { maxRetries: 0 } }).stream(sent, new AbortController().signal, fresh()))
    const usage = { stream_options: { include_usage: true } }
    expect(primary.requests[0].body).toEqual({ ...sent, ...usage, model: 'up-a' })
    expect(secondary.requests[0].body).toEqual({ ...sent, ...usage, model: 'up-b' })
  })
})

describe('retries before the first byte', () => {
  test('retries 5xx with exponential back-off, then streams the successful attempt', async () => {
    primary.script({ status: 500 }, { status: 502 }, { chunks: 3 })
    const { received, error } = await run(
      registry({ primary: { maxRetries: 2 } }).stream(request(), new AbortController().signal, fresh()),
    )
    expect(error).toBeUndefined()
    expect(received).toHaveLength(5)
    expect(primary.requests).toHaveLength(3)
    expect(secondary.requests).toHaveLength(0)
    expect(sleeps).toEqual([9, 19])
  })

  test('back-off without Retry-After has full jitter: anywhere from 0 to the exponential ceiling', () => {
    const policy = { maxRetries: 5, retryBaseMs: 100, retryMaxMs: 1000 }
    const draws = Array.from({ length: 200 }, () => backoffMs(policy, 2))
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0)
    expect(Math.max(...draws)).toBeLessThan(400)
    expect(new Set(draws).size).toBeGreaterThan(50)
    expect(backoffMs(policy, 2, undefined, () => 0)).toBe(0)
    expect(backoffMs(policy, 9, undefined, () => 0.999_999)).toBe(999)
    // Advice from the upstream is not jittered below what it asked, only capped.
    expect(backoffMs(policy, 0, 0.5, () => 0)).toBe(500)
    expect(backoffMs(policy, 0, 60, () => 0)).toBe(1000)
  })

  test('retries a connection that breaks before the first chunk', async () => {
    primary.script({ failAfterChunks: -1 }, {})
    const { error } = await run(registry().stream(request(), new AbortController().signal, fresh()))
    expect(error).toBeUndefined()
    expect(primary.requests).toHaveLength(2)
  })

  test('waits what Retry-After asks (seconds) on a 429', async () => {
    primary.script({ status: 429, headers: { 'retry-after': '2' } }, {})
    await run(registry().stream(request(), new AbortController().signal, fresh()))
    expect(sleeps).toEqual([2000])
    expect(primary.requests).toHaveLength(2)
  })

  test('waits what Retry-After asks (HTTP date) on a 503', async () => {
    const now = new Date('2026-03-01T12:00:00Z')
    primary.script({ status: 503, headers: { 'retry-after': 'Sun, 01 Mar 2026 12:00:04 GMT' } }, {})
    await run(registry({}, { clock: () => now }).stream(request(), new AbortController().signal, fresh()))
    expect(sleeps).toEqual([4000])
  })

  test('caps Retry-After at retryMaxMs', async () => {
    primary.script({ status: 429, headers: { 'retry-after': '3600' } }, {})
    await run(registry({ primary: { retryMaxMs: 1500 } }).stream(request(), new AbortController().signal, fresh()))
    expect(sleeps).toEqual([1500])
  })

  test('really sleeps the Retry-After delay with the default sleep', async () => {
    primary.script({ status: 429, headers: { 'retry-after': '1' } }, {})
    const started = performance.now()
    const { error } = await run(
      registry({}, { sleep: undefined }).stream(request(), new AbortController().signal, fresh()),
    )
    expect(error).toBeUndefined()
    expect(performance.now() - started).toBeGreaterThanOrEqual(990)
  })

  test('an abort during back-off ends the wait at once and sends nothing more', async () => {
    primary.script({ status: 429, headers: { 'retry-after': '10' } }, {})
    const client = new AbortController()
    setTimeout(() => client.abort(), 50)
    const started = performance.now()
    const { error } = await run(registry({}, { sleep: undefined }).stream(request(), client.signal, fresh()))
    expect((error as unknown as Error).name).toBe('AbortError')
    expect(performance.now() - started).toBeLessThan(500)
    expect(primary.requests).toHaveLength(1)
    expect(secondary.requests).toHaveLength(0)
  })
})

describe('no retry once a byte has reached the client', () => {
  test('a failure after the first chunk ends the stream with the error; nothing is retried or re-sent', async () => {
    primary.script({ chunks: 10, failAfterChunks: 2 }, {})
    const { received, error } = await run(registry().stream(request(), new AbortController().signal, fresh()))
    expect(received).toHaveLength(3)
    expect(error).toBeInstanceOf(ProviderError)
    expect(error!.status).toBe(502)
    expect(primary.requests).toHaveLength(1)
    expect(secondary.requests).toHaveLength(0)
    expect(sleeps).toEqual([])
  })

  test('a failure after the route committed the response (a keep-alive was written) is not retried', async () => {
    primary.script({ status: 503, headerDelayMs: 150 }, {})
    const state = fresh()
    setTimeout(() => (state.committed = true), 20)
    const { received, error } = await run(registry().stream(request(), new AbortController().signal, state))
    expect(received).toHaveLength(0)
    expect(error!.status).toBe(503)
    expect(primary.requests).toHaveLength(1)
    expect(secondary.requests).toHaveLength(0)
  })
})

describe('fallback to the next provider', () => {
  test('after the retries of the first are used up', async () => {
    primary.script({ status: 503 })
    const { received, error } = await run(
      registry({ primary: { maxRetries: 1 } }).stream(request(), new AbortController().signal, fresh()),
    )
    expect(error).toBeUndefined()
    expect(primary.requests).toHaveLength(2)
    expect(secondary.requests).toHaveLength(1)
    expect(received[0].model).toBe('up-b')
  })

  test('when the first is unreachable', async () => {
    const port = primary.port
    await primary.stop()
    const models = registry({ primary: { baseUrl: `http://127.0.0.1:${port}/v1`, maxRetries: 1 } })
    const { error } = await run(models.stream(request(), new AbortController().signal, fresh()))
    expect(error).toBeUndefined()
    expect(secondary.requests).toHaveLength(1)
    primary = await startMockUpstream()
  })

  test('when the first times out before its first chunk', async () => {
    primary.script({ firstChunkDelayMs: 2000 })
    const models = registry({ primary: { firstTokenTimeoutMs: 50, maxRetries: 0 } })
    const { error } = await run(models.stream(request(), new AbortController().signal, fresh()))
    expect(error).toBeUndefined()
    expect(secondary.requests).toHaveLength(1)
  })

  test('without retrying when the first rejects the gateway key (a 502 that no retry can fix)', async () => {
    primary.script({ status: 401 })
    const { error } = await run(registry().stream(request(), new AbortController().signal, fresh()))
    expect(error).toBeUndefined()
    expect(primary.requests).toHaveLength(1)
    expect(secondary.requests).toHaveLength(1)
  })

  test('not when the upstream says the request itself is bad: the 400 reaches the client', async () => {
    primary.script({ status: 400, errorBody: { error: { message: 'bad stop', param: 'stop' } } })
    const { error } = await run(registry().stream(request(), new AbortController().signal, fresh()))
    expect(error!.status).toBe(400)
    expect(error!.options.param).toBe('stop')
    expect(primary.requests).toHaveLength(1)
    expect(secondary.requests).toHaveLength(0)
  })

  test('when every entry fails, the last failure is reported', async () => {
    primary.script({ status: 500 })
    secondary.script({ status: 429, headers: { 'retry-after': '9' } })
    const models = registry({ primary: { maxRetries: 0 }, secondary: { maxRetries: 0 } })
    const { error } = await run(models.stream(request(), new AbortController().signal, fresh()))
    expect(error!.status).toBe(429)
    expect(error!.options.retryAfter).toBe(9)
  })
})

describe('non-streaming requests', () => {
  test('retry and fall back like streams', async () => {
    primary.script({ status: 500 })
    const models = registry({ primary: { maxRetries: 1 } })
    const completion = await models.complete({ ...request(), stream: false }, new AbortController().signal)
    expect(completion.model).toBe('up-b')
    expect(primary.requests).toHaveLength(2)
    expect(sleeps).toEqual([9])
  })

  test('a 400 is not retried', async () => {
    primary.script({ status: 400 })
    const error = await registry()
      .complete({ ...request(), stream: false }, new AbortController().signal)
      .catch((caught) => caught)
    expect(error.status).toBe(400)
    expect(primary.requests).toHaveLength(1)
    expect(secondary.requests).toHaveLength(0)
  })
})

describe('releasing the upstream', () => {
  test('a consumer that stops reading aborts the upstream request through the registry', async () => {
    primary.script({ chunks: 100, chunkDelayMs: 20 })
    for await (const chunk of registry().stream(request(), new AbortController().signal, fresh())) {
      if (chunk.choices.length > 0) break
    }
    await Promise.race([primary.requests[0].aborted, Bun.sleep(1000)])
    expect(primary.requests[0].wasAborted).toBe(true)
  })
})

describe('streaming as event bytes', () => {
  test('the relay hands over bursts as one item per read; decoded, they are the chunks of stream()', async () => {
    primary.script({ chunks: 64 })
    const items: Uint8Array[] = []
    for await (const events of registry().streamEvents(request(), new AbortController().signal, fresh()))
      items.push(events)
    const { received } = await run(registry().stream(request(), new AbortController().signal, fresh()))
    const decoder = new SseDataDecoder()
    const data = items.flatMap((events) => decoder.push(events))
    expect(data.at(-1)).toBe('[DONE]')
    expect(data.slice(0, -1).map((each) => JSON.parse(each))).toEqual(received)
    expect(items.length).toBeLessThan(received.length)
  })

  test('echo hands over one event per step', async () => {
    const items: string[] = []
    for await (const events of registry().streamEvents(request('echo'), new AbortController().signal, fresh()))
      items.push(new TextDecoder().decode(events))
    expect(items.length).toBeGreaterThan(1)
    expect(items.every((events) => /^data: [^\n]+\n\n$/.test(events))).toBe(true)
  })

  test('a provider without streamEvents is served its chunks encoded, one event per item', async () => {
    const plain: ChatProvider = {
      name: 'plain',
      complete: () => Promise.reject(new Error('not used')),
      async *stream() {
        yield { id: 'c', object: 'chat.completion.chunk', choices: [] }
        yield { id: 'c', object: 'chat.completion.chunk', choices: [], usage: null }
      },
    }
    const models = new ModelRegistry(
      new Map([['plain', [{ provider: plain, model: 'p', retry: { maxRetries: 0, retryBaseMs: 0, retryMaxMs: 0 } }]]]),
    )
    const items: string[] = []
    for await (const events of models.streamEvents(request('plain'), new AbortController().signal, fresh()))
      items.push(new TextDecoder().decode(events))
    expect(items).toEqual([
      'data: {"id":"c","object":"chat.completion.chunk","choices":[]}\n\n',
      'data: {"id":"c","object":"chat.completion.chunk","choices":[],"usage":null}\n\n',
    ])
  })
})
