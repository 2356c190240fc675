/**
 * Trellis relaying to Trellis: a second, real listening Trellis serving `echo` is the upstream
 * of a first one, through the `openai` provider. Clients are real: `fetch` and the `openai` SDK.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import OpenAI from 'openai'
import { makeTestApp, SETUP_TIMEOUT } from '../helpers/app'
import { startMockUpstream, type MockUpstream } from '../chat/mock-upstream'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

type Listening = { url: string; token: string; upstreamRequests: Request[]; stop: () => Promise<void> }

/** The real app on a real socket; `upstreamRequests` are the requests it received, to watch their signals. */
async function listen(env: Record<string, string>, idleTimeoutSeconds = 10): Promise<Listening> {
  let server: ReturnType<typeof Bun.serve> | undefined
  const trellis = await makeTestApp({ env, deps: { onLongLivedRequest: (request) => server?.timeout(request, 0) } })
  const token = await trellis.tokenFor('relay-e2e', ['chat'])
  const upstreamRequests: Request[] = []
  server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: idleTimeoutSeconds,
    fetch: (request) => {
      upstreamRequests.push(request)
      return trellis.app.fetch(request)
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    token,
    upstreamRequests,
    stop: async () => {
      await server!.stop(true)
      await trellis.close()
    },
  }
}

let upstream: Listening
let pacedUpstream: Listening
let mock: MockUpstream
let front: Listening

beforeAll(async () => {
  upstream = await listen({})
  pacedUpstream = await listen({ ECHO_TOKEN_DELAY_MS: '30' })
  mock = await startMockUpstream()
  const trellis = (url: string, token: string) => ({ baseUrl: `${url}/v1`, apiKey: token, maxRetries: 0 })
  front = await listen({
    CHAT_PROVIDERS: JSON.stringify({
      trellis: trellis(upstream.url, upstream.token),
      paced: trellis(pacedUpstream.url, pacedUpstream.token),
      wrongkey: trellis(upstream.url, 'not-a-token'),
      mock: { baseUrl: mock.baseUrl, maxRetries: 0 },
      patient: { baseUrl: mock.baseUrl, maxRetries: 2, retryBaseMs: 10 },
    }),
    CHAT_MODELS: JSON.stringify({
      relayed: [{ provider: 'trellis', model: 'echo' }],
      'relayed-reasoner': [{ provider: 'trellis', model: 'echo-reasoner' }],
      'relayed-slowly': [{ provider: 'paced', model: 'echo' }],
      misconfigured: [{ provider: 'wrongkey', model: 'echo' }],
      ghost: [{ provider: 'trellis', model: 'no-such-model' }],
      mocked: [{ provider: 'mock', model: 'mock-model' }],
      'mocked-patiently': [{ provider: 'patient', model: 'mock-model' }],
      'mocked-else-echo': [
        { provider: 'mock', model: 'mock-model' },
        { provider: 'trellis', model: 'echo' },
      ],
    }),
  })
}, SETUP_TIMEOUT)

afterAll(async () => {
  await front?.stop()
  await upstream?.stop()
  await pacedUpstream?.stop()
  await mock?.stop()
})

async function post(server: Listening, body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  })
}

/** Per-request values (`id`, `created`) blanked, so two answers to the same request compare byte for byte. */
const normalized = (body: string) => body.replace(/"id":"[^"]*"/g, '"id":"*"').replace(/"created":\d+/g, '"created":0')

const PROMPT = 'Relay me byte for byte: ünïcödé, 🌱 emoji, "quotes", back\\slash, tabs\tand\nnewlines.'

describe('a Trellis relaying to a Trellis', () => {
  for (const [name, extra] of [
    ['plain stream', {}],
    [
      'stream with include_usage and logprobs',
      { stream_options: { include_usage: true }, logprobs: true, top_logprobs: 2 },
    ],
    ['stream cut by max_tokens', { max_tokens: 5 }],
    ['reasoner stream', { model: 'echo-reasoner' }],
    [
      'tool-call stream',
      {
        tools: [
          {
            type: 'function',
            function: {
              name: 'water',
              parameters: { type: 'object', properties: { litres: { type: 'number' } }, required: ['litres'] },
            },
          },
        ],
        tool_choice: 'required',
      },
    ],
  ] as const) {
    test(`${name}: the relayed event stream is byte-identical to the upstream's own`, async () => {
      const body = { model: 'echo', messages: [{ role: 'user', content: PROMPT }], stream: true, ...extra }
      const direct = await post(upstream, body)
      const relayedModel = body.model === 'echo-reasoner' ? 'relayed-reasoner' : 'relayed'
      const relayed = await post(front, { ...body, model: relayedModel })

      expect(direct.status).toBe(200)
      expect(relayed.status).toBe(200)
      expect(relayed.headers.get('content-type')).toBe('text/event-stream')
      const [directText, relayedText] = [await direct.text(), await relayed.text()]
      expect(relayedText.endsWith('data: [DONE]\n\n')).toBe(true)
      expect(normalized(relayedText)).toBe(normalized(directText))
    })
  }

  test('non-streaming: the relayed completion equals the upstream one', async () => {
    const body = { messages: [{ role: 'user', content: PROMPT }], logprobs: true }
    const direct = await (await post(upstream, { ...body, model: 'echo' })).text()
    const relayed = await post(front, { ...body, model: 'relayed' })
    expect(relayed.status).toBe(200)
    expect(normalized(await relayed.text())).toBe(normalized(direct))
  })

  test('the openai SDK streams through both hops and gets the prompt back, in order', async () => {
    const client = new OpenAI({ baseURL: `${front.url}/v1`, apiKey: front.token })
    const stream = await client.chat.completions.create({
      model: 'relayed',
      messages: [{ role: 'user', content: PROMPT }],
      stream: true,
      stream_options: { include_usage: true },
    })
    let content = ''
    let usage: OpenAI.CompletionUsage | null | undefined
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? ''
      usage = chunk.usage ?? usage
    }
    expect(content).toBe(PROMPT)
    expect(usage?.completion_tokens).toBeGreaterThan(0)
  })

  test('an upstream that rejects the gateway key is a 502 for the client, not a 401', async () => {
    const client = new OpenAI({ baseURL: `${front.url}/v1`, apiKey: front.token, maxRetries: 0 })
    const error = await client.chat.completions
      .create({ model: 'misconfigured', messages: [{ role: 'user', content: 'x' }] })
      .catch((caught) => caught)
    expect(error).toBeInstanceOf(OpenAI.InternalServerError)
    expect(error.status).toBe(502)
    expect(error.message).toContain("rejected this gateway's credentials")
  })

  test('a model the upstream does not serve is a 404 model_not_found', async () => {
    const client = new OpenAI({ baseURL: `${front.url}/v1`, apiKey: front.token, maxRetries: 0 })
    const error = await client.chat.completions
      .create({ model: 'ghost', messages: [{ role: 'user', content: 'x' }], stream: true })
      .catch((caught) => caught)
    expect(error).toBeInstanceOf(OpenAI.NotFoundError)
    expect(error.code).toBe('model_not_found')
  })

  test('an upstream 400 reaches the client as a 400 naming the param', async () => {
    mock.script({
      status: 400,
      errorBody: { error: { message: 'seed must be even', type: 'invalid_request_error', param: 'seed', code: null } },
    })
    const client = new OpenAI({ baseURL: `${front.url}/v1`, apiKey: front.token, maxRetries: 0 })
    const error = await client.chat.completions
      .create({ model: 'mocked', messages: [{ role: 'user', content: 'x' }], seed: 3 })
      .catch((caught) => caught)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect(error.param).toBe('seed')
    expect(error.message).toContain('seed must be even')
  })

  test('an upstream failure mid-stream becomes an error event, then close, without [DONE]', async () => {
    mock.script({ chunks: 10, failAfterChunks: 3 })
    const response = await post(front, { model: 'mocked', messages: [{ role: 'user', content: 'x' }], stream: true })
    expect(response.status).toBe(200)
    const text = await response.text()
    const events = text.split('\n\n').filter(Boolean)
    expect(events).toHaveLength(5)
    expect(events.at(-1)).toStartWith('data: {"error":{')
    expect(JSON.parse(events.at(-1)!.slice(6)).error.message).toContain('broke mid-response')
    expect(text).not.toContain('[DONE]')
  })
})

describe('a client disconnect travels upstream', () => {
  test('through a real Trellis to a real Trellis: the upstream request is aborted', async () => {
    const client = new AbortController()
    const before = pacedUpstream.upstreamRequests.length
    const response = await post(
      front,
      {
        model: 'relayed-slowly',
        messages: [{ role: 'user', content: 'one two three four five six seven eight nine ten '.repeat(20) }],
        stream: true,
      },
      client.signal,
    )
    const reader = response.body!.getReader()
    await reader.read()
    await reader.read()
    const upstreamRequest = pacedUpstream.upstreamRequests[before]
    expect(upstreamRequest.signal.aborted).toBe(false)

    client.abort()
    const aborted = new Promise<void>((resolve) =>
      upstreamRequest.signal.addEventListener('abort', () => resolve(), { once: true }),
    )
    await Promise.race([aborted, Bun.sleep(2000)])
    expect(upstreamRequest.signal.aborted).toBe(true)
  })

  test('through a real Trellis to the mock upstream: the upstream sees its connection close', async () => {
    mock.script({ chunks: 500, chunkDelayMs: 10 })
    const before = mock.requests.length
    const client = new AbortController()
    const response = await post(
      front,
      { model: 'mocked', messages: [{ role: 'user', content: 'x' }], stream: true },
      client.signal,
    )
    const reader = response.body!.getReader()
    await reader.read()
    client.abort()
    const seen = mock.requests[before]
    await Promise.race([seen.aborted, Bun.sleep(2000)])
    expect(seen.wasAborted).toBe(true)
    expect(seen.completed).toBe(false)
  })
})

describe('before the first byte, failures are retried or fall back; the client never sees them', () => {
  test('two 503s, then the stream: the client gets a clean 200 stream', async () => {
    mock.script({ status: 503 }, { status: 503 }, { chunks: 3 })
    const before = mock.requests.length
    const response = await post(front, {
      model: 'mocked-patiently',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    })
    expect(response.status).toBe(200)
    const text = await response.text()
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true)
    expect(text).not.toContain('"error"')
    expect(mock.requests.length - before).toBe(3)
  })

  test('a failing first entry falls back to the next one, here another Trellis', async () => {
    mock.script({ status: 500 })
    const client = new OpenAI({ baseURL: `${front.url}/v1`, apiKey: front.token, maxRetries: 0 })
    const completion = await client.chat.completions.create({
      model: 'mocked-else-echo',
      messages: [{ role: 'user', content: 'fall back to me' }],
    })
    expect(completion.choices[0].message.content).toBe('fall back to me')
    expect(completion.model).toBe('echo')
  })
})

describe('slow upstreams', () => {
  /** A front Trellis relaying `slow` to the mock, with the given keep-alive and a 1 s server idle timeout. */
  const slowFront = (keepAliveMs: number) =>
    listen(
      {
        CHAT_KEEPALIVE_MS: String(keepAliveMs),
        CHAT_PROVIDERS: JSON.stringify({ mock: { baseUrl: mock.baseUrl, maxRetries: 0 } }),
        CHAT_MODELS: JSON.stringify({ slow: [{ provider: 'mock', model: 'mock-model' }] }),
      },
      1,
    )

  test('keep-alive comments flow while the upstream has not answered yet', async () => {
    const patientFront = await slowFront(300)
    try {
      mock.script({ chunks: 2, firstChunkDelayMs: 1300 })
      const response = await post(patientFront, {
        model: 'slow',
        messages: [{ role: 'user', content: 'x' }],
        stream: true,
      })
      const text = await response.text()
      expect(response.status).toBe(200)
      const beforeFirstChunk = text.slice(0, text.indexOf('data: '))
      expect(beforeFirstChunk.split(': keep-alive\n\n').length - 1).toBeGreaterThanOrEqual(3)
      expect(text.slice(-300)).toEndWith('data: [DONE]\n\n')
    } finally {
      mock.script({})
      await patientFront.stop()
    }
  }, 20_000)

  test('silences longer than the server idle timeout do not cut a live stream', async () => {
    const patientFront = await slowFront(60_000)
    try {
      mock.script({ chunks: 2, chunkDelayMs: 6000 })
      const response = await post(patientFront, {
        model: 'slow',
        messages: [{ role: 'user', content: 'x' }],
        stream: true,
      })
      const text = await response.text()
      expect(text).not.toContain('keep-alive')
      expect(text.slice(-300)).toEndWith('data: [DONE]\n\n')
    } finally {
      mock.script({})
      await patientFront.stop()
    }
  }, 40_000)
})
