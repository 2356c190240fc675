import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import Anthropic, { APIError } from '@anthropic-ai/sdk'
import { makeTestApp } from '../helpers/app'
import { anthropicEventsOf, messageOf, sseOf, useMockAnthropic, type AnthropicReply } from '../chat/mock-anthropic'

// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/*
 * Anthropic → Anthropic: the official `@anthropic-ai/sdk` against a real listening Trellis whose
 * model is served by a `"kind": "anthropic"` provider pointing at the mock Messages API. The
 * request reaches the upstream as the client sent it (only `model` rewritten), and the answer
 * comes back as the upstream sent it: thinking signatures, cache counters and fields Trellis does
 * not model included, which a round trip through OpenAI's format would lose.
 */

const anthropic = useMockAnthropic()
let trellis: Awaited<ReturnType<typeof makeTestApp>>
let server: ReturnType<typeof Bun.serve>
let client: Anthropic
let token: string

beforeAll(async () => {
  const claude = { kind: 'anthropic', baseUrl: anthropic.baseUrl, apiKey: 'sk-ant-upstream', maxRetries: 0 }
  trellis = await makeTestApp({
    env: {
      CHAT_KEEPALIVE_MS: '50',
      CHAT_PROVIDERS: JSON.stringify({
        claude,
        patient: { ...claude, maxRetries: 1, retryBaseMs: 1 },
        beta: { ...claude, headers: { 'anthropic-beta': 'configured-2025-01-01' } },
      }),
      CHAT_MODELS: JSON.stringify({
        claude: [{ provider: 'claude', model: 'claude-sonnet-4-5' }],
        'claude-patient': [{ provider: 'patient', model: 'claude-sonnet-4-5' }],
        'claude-beta': [{ provider: 'beta', model: 'claude-sonnet-4-5' }],
      }),
    },
    deps: { onLongLivedRequest: (request) => server.timeout(request, 0) },
  })
  token = await trellis.tokenFor('passthrough-user', ['chat'])
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: trellis.app.fetch })
  client = new Anthropic({ apiKey: token, baseURL: `http://127.0.0.1:${server.port}`, maxRetries: 0 })
})

afterAll(async () => {
  await server.stop(true)
  await trellis.close()
})

const ASK = { model: 'claude', max_tokens: 256, messages: [{ role: 'user' as const, content: 'Weather in Paris?' }] }
const TOOL_TURN: AnthropicReply = {
  blocks: [
    { type: 'thinking', thinking: ['The user wants ', 'the weather.'], signature: 'EqQBCkYIBxgCKkDsig' },
    { type: 'text', text: 'Let me look.' },
    { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: ['{"city":', ' "Paris"}'] },
  ],
  usage: { input_tokens: 40, output_tokens: 25, cache_read_input_tokens: 1200, cache_creation_input_tokens: 30 },
}

describe('the request reaches an Anthropic upstream as the client sent it', () => {
  test('only model is rewritten; fields Trellis does not model pass through', async () => {
    const sent = {
      ...ASK,
      max_tokens: 2048,
      top_k: 5,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      container: { id: 'ctr_1' },
      context_management: { edits: [] },
    }
    await client.messages.create(sent as unknown as Anthropic.MessageCreateParamsNonStreaming)
    const { body, headers, path } = anthropic.requests[0]!
    expect(path).toBe('/v1/messages')
    expect(body).toEqual({ ...sent, model: 'claude-sonnet-4-5' })
    // The upstream sees the gateway's own key, never the client's Trellis token.
    expect(headers.get('x-api-key')).toBe('sk-ant-upstream')
    expect(headers.get('authorization')).toBeNull()
    expect(JSON.stringify([...headers])).not.toContain(token)
  })
})

describe('the client’s anthropic-beta header reaches the upstream', () => {
  const BETA = { headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14' } }

  test.each([
    ['messages.create', () => client.messages.create(ASK, BETA)],
    ['a stream', () => client.messages.stream(ASK, BETA).finalMessage()],
    ['messages.countTokens', () => client.messages.countTokens({ model: 'claude', messages: ASK.messages }, BETA)],
  ])('%s', async (_, call) => {
    await call()
    expect(anthropic.requests[0]!.headers.get('anthropic-beta')).toBe('interleaved-thinking-2025-05-14')
  })

  test('after the betas the provider’s configuration sends, as one list', async () => {
    await client.messages.create({ ...ASK, model: 'claude-beta' }, BETA)
    expect(anthropic.requests[0]!.headers.get('anthropic-beta')).toBe(
      'configured-2025-01-01,interleaved-thinking-2025-05-14',
    )
  })

  test('without one, none is sent', async () => {
    await client.messages.create(ASK)
    expect(anthropic.requests[0]!.headers.get('anthropic-beta')).toBeNull()
  })
})

describe('answers come back as the upstream sent them', () => {
  test('messages.create: the upstream message, thinking signature and cache counters included', async () => {
    anthropic.script(TOOL_TURN)
    const message = await client.messages.create({
      ...ASK,
      tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
    })
    expect(message).toEqual(messageOf(TOOL_TURN, { model: 'claude-sonnet-4-5' }) as unknown as Anthropic.Message)
  })

  test('messages.stream().finalMessage() on a thinking + tool-use turn', async () => {
    anthropic.script(TOOL_TURN)
    const stream = client.messages.stream({
      ...ASK,
      tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
    })
    const message = await stream.finalMessage()
    expect(message.content as unknown[]).toEqual([
      { type: 'thinking', thinking: 'The user wants the weather.', signature: 'EqQBCkYIBxgCKkDsig' },
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
    ])
    expect(message.stop_reason).toBe('tool_use')
    expect(message.usage).toMatchObject({ input_tokens: 40, output_tokens: 25, cache_read_input_tokens: 1200 })
  })

  test('the event stream is the upstream’s, byte for byte, without its pings', async () => {
    anthropic.script({ ...TOOL_TURN, pings: 'every' })
    const response = await fetch(`http://127.0.0.1:${server.port}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': token, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ ...ASK, stream: true }),
    })
    expect(response.headers.get('content-type')).toStartWith('text/event-stream')
    const expected = anthropicEventsOf(TOOL_TURN, { model: 'claude-sonnet-4-5' })
      .filter((event) => event.event !== 'ping')
      .map(sseOf)
      .join('')
    expect(await response.text()).toBe(expected)
  })

  test('messages.countTokens asks the upstream', async () => {
    anthropic.script({ countedTokens: 321 })
    expect(await client.messages.countTokens({ model: 'claude', messages: ASK.messages })).toEqual({
      input_tokens: 321,
    })
    expect(anthropic.requests[0]!.path).toBe('/v1/messages/count_tokens')
    expect(anthropic.requests[0]!.body.model).toBe('claude-sonnet-4-5')
  })
})

/** A raw streamed `POST /v1/messages`, for what the SDK does not show: pings, and hanging up. */
const rawStream = (signal?: AbortSignal) =>
  fetch(`http://127.0.0.1:${server.port}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': token },
    body: JSON.stringify({ ...ASK, stream: true }),
    signal,
  })

describe('a long-lived native stream', () => {
  test('while the upstream is silent, Trellis sends its own pings, in Anthropic’s form', async () => {
    anthropic.script({ pings: 'none', firstEventDelayMs: 300 })
    const text = await (await rawStream()).text()
    const [before] = text.split('event: message_start\n')
    expect(before!.length).toBeGreaterThan(0)
    expect(
      before!
        .split('\n\n')
        .filter(Boolean)
        .every((event) => event === 'event: ping\ndata: {"type": "ping"}'),
    ).toBe(true)
    expect(text).toEndWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')
  })

  test('a client that hangs up mid-stream aborts the upstream request', async () => {
    anthropic.script({ stallAfterEvents: 3 })
    const abort = new AbortController()
    const response = await rawStream(abort.signal)
    const reader = response.body!.getReader()
    await reader.read()
    abort.abort()
    const seen = anthropic.requests[0]!
    await Promise.race([seen.aborted, Bun.sleep(3_000)])
    expect(seen.wasAborted).toBe(true)
  })
})

describe('failures', () => {
  test('an overloaded upstream is retried before the first byte', async () => {
    anthropic.script({ status: 529 }, {})
    const message = await client.messages.create({ ...ASK, model: 'claude-patient' })
    expect(message.content as unknown[]).toEqual([{ type: 'text', text: 'Hello, wörld 🌱' }])
    expect(anthropic.requests).toHaveLength(2)
  })

  test('an error event mid-stream reaches the SDK as an error', async () => {
    anthropic.script({ errorEvent: { at: 4, type: 'overloaded_error', message: 'Overloaded' } })
    const stream = client.messages.stream(ASK)
    const failure = await stream.finalMessage().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(APIError)
    expect(String((failure as APIError).message)).toContain('overloaded_error')
  })

  test.each([
    [400, 'invalid_request_error'],
    [429, 'rate_limit_error'],
    [529, 'overloaded_error'],
  ])('an upstream %i reaches the SDK in Anthropic’s shape (%s)', async (status, type) => {
    anthropic.script({ status, headers: status === 429 ? { 'retry-after': '7' } : {} })
    const failure = (await client.messages.create(ASK).catch((error: unknown) => error)) as APIError
    expect(failure).toBeInstanceOf(APIError)
    expect((failure.error as { error: { type: string } }).error.type).toBe(type)
    if (status === 429) expect(failure.headers?.get('retry-after')).toBe('7')
  })
})
