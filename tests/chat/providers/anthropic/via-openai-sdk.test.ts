/**
 * The official `openai` SDK against a real listening Trellis whose `CHAT_PROVIDERS` has an
 * `"kind": "anthropic"` provider pointing at the mock Messages API (issue #15 §1).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import OpenAI, { APIError } from 'openai'
import { makeTestApp } from '../../../helpers/app'
import { MESSAGE_ID, useMockAnthropic, type AnthropicReply } from '../../mock-anthropic'

setDefaultTimeout(30_000)

const anthropic = useMockAnthropic()
let trellis: Awaited<ReturnType<typeof makeTestApp>>
let server: ReturnType<typeof Bun.serve>
let client: OpenAI
let token: string

beforeAll(async () => {
  const claude = { kind: 'anthropic', baseUrl: anthropic.baseUrl, apiKey: 'sk-ant-test', maxRetries: 0 }
  trellis = await makeTestApp({
    env: {
      CHAT_PROVIDERS: JSON.stringify({ claude, patient: { ...claude, maxRetries: 2, retryBaseMs: 1 } }),
      CHAT_MODELS: JSON.stringify({
        claude: [{ provider: 'claude', model: 'claude-sonnet-4-5' }],
        'claude-patient': [{ provider: 'patient', model: 'claude-sonnet-4-5' }],
        'claude-or-echo': [
          { provider: 'claude', model: 'claude-sonnet-4-5' },
          { provider: 'echo', model: 'echo' },
        ],
      }),
    },
    deps: { onLongLivedRequest: (request) => server.timeout(request, 0) },
  })
  token = await trellis.tokenFor('anthropic-sdk', ['chat'])
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: trellis.app.fetch })
  client = new OpenAI({ apiKey: token, baseURL: `http://127.0.0.1:${server.port}/v1`, maxRetries: 0 })
})

afterAll(async () => {
  await server.stop(true)
  await trellis.close()
})

const ask = { model: 'claude', messages: [{ role: 'user' as const, content: 'Hello' }] }
const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
}
const TOOL_REPLY: AnthropicReply = {
  blocks: [
    { type: 'text', text: 'Let me look.' },
    { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: ['{"ci', 'ty": "Lis', 'bon"}'] },
    { type: 'tool_use', id: 'toolu_02', name: 'get_weather', input: ['{"city":', ' "Porto"}'] },
  ],
}

describe('streamed through the openai SDK', () => {
  test("text arrives as content, every chunk with the upstream message id and model; headers and path are Anthropic's", async () => {
    const stream = await client.chat.completions.create({ ...ask, stream: true })
    let text = ''
    const finishes: (string | null)[] = []
    const ids = new Set<string>()
    const models = new Set<string>()
    let usage: unknown
    for await (const chunk of stream) {
      ids.add(chunk.id)
      models.add(chunk.model)
      for (const choice of chunk.choices) {
        text += choice.delta.content ?? ''
        finishes.push(choice.finish_reason)
      }
      usage ??= chunk.usage
    }
    expect(text).toBe('Hello, wörld 🌱')
    expect(finishes.at(-1)).toBe('stop')
    expect([...ids]).toEqual([MESSAGE_ID])
    expect([...models]).toEqual(['claude-sonnet-4-5'])
    expect(usage).toBeUndefined()
    const seen = anthropic.requests[0]!
    expect(seen.path).toBe('/v1/messages')
    expect(seen.headers.get('x-api-key')).toBe('sk-ant-test')
    expect(seen.headers.get('anthropic-version')).toBe('2023-06-01')
    expect(seen.headers.get('accept')).toBe('text/event-stream')
    expect(seen.headers.get('accept-encoding')).toBe('identity')
    expect(seen.headers.get('authorization')).toBeNull()
    expect(seen.body).toMatchObject({ model: 'claude-sonnet-4-5', stream: true, max_tokens: 4096 })
  })

  test('thinking arrives as reasoning_content, before the content; the signature is not shown', async () => {
    anthropic.script({
      blocks: [
        { type: 'thinking', thinking: ['Think', 'ing…'] },
        { type: 'text', text: ['An', 'swer'] },
      ],
    })
    const stream = await client.chat.completions.create({ ...ask, stream: true, reasoning_effort: 'low' })
    const order: string[] = []
    let reasoning = ''
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string } | undefined
      if (delta?.reasoning_content) {
        order.push('reasoning')
        reasoning += delta.reasoning_content
      }
      if (delta?.content) order.push('content')
      expect(JSON.stringify(chunk)).not.toContain('c2lnbmF0dXJl')
    }
    expect(reasoning).toBe('Thinking…')
    expect(order).toEqual(['reasoning', 'reasoning', 'content', 'content'])
    expect(anthropic.requests[0]!.body).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 2048 },
      max_tokens: 4096 + 2048,
    })
  })

  test('tool calls are reassembled by the SDK: ids, names and arguments, finish_reason tool_calls', async () => {
    anthropic.script(TOOL_REPLY)
    const runner = client.chat.completions.stream({ ...ask, tools: [weather] })
    const errors: unknown[] = []
    runner.on('error', (error) => errors.push(error))
    const final = await runner.finalChatCompletion()
    expect(errors).toEqual([])
    const choice = final.choices[0]!
    expect(choice.finish_reason).toBe('tool_calls')
    expect(choice.message.content).toBe('Let me look.')
    const calls = choice.message.tool_calls!.map((call) =>
      call.type === 'function' ? [call.id, call.function.name, JSON.parse(call.function.arguments)] : [],
    )
    expect(calls).toEqual([
      ['toolu_01', 'get_weather', { city: 'Lisbon' }],
      ['toolu_02', 'get_weather', { city: 'Porto' }],
    ])
  })

  test('include_usage: the last chunk has the usage, with the prompt cache counters', async () => {
    anthropic.script({
      usage: { input_tokens: 20, output_tokens: 9, cache_read_input_tokens: 100, cache_creation_input_tokens: 5 },
    })
    const stream = await client.chat.completions.create({
      ...ask,
      stream: true,
      stream_options: { include_usage: true },
    })
    const chunks = []
    for await (const chunk of stream) chunks.push(chunk)
    const last = chunks.at(-1)!
    expect(last.choices).toEqual([])
    expect(last.usage).toEqual({
      prompt_tokens: 125,
      completion_tokens: 9,
      total_tokens: 134,
      prompt_cache_hit_tokens: 100,
      prompt_cache_miss_tokens: 25,
      prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 5 },
    } as never)
  })

  const FINISHES: [string, string][] = [
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
  ]
  for (const [stopReason, finish] of FINISHES) {
    test(`stop_reason ${stopReason} → finish_reason ${finish}, streamed and not`, async () => {
      anthropic.script({ stopReason })
      const stream = await client.chat.completions.create({ ...ask, stream: true })
      let streamed: string | null = null
      for await (const chunk of stream) streamed = chunk.choices[0]?.finish_reason ?? streamed
      const whole = await client.chat.completions.create(ask)
      expect([streamed, whole.choices[0]!.finish_reason]).toEqual([finish, finish] as never)
    })
  }

  test('an error event mid-stream ends the stream with our error event, after the content before it', async () => {
    anthropic.script({ errorEvent: { at: 4, type: 'overloaded_error' } })
    const response = await fetch(`http://127.0.0.1:${server.port}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...ask, stream: true }),
    })
    expect(response.status).toBe(200)
    const events = (await response.text()).split('\n\n').filter((event) => event.startsWith('data: '))
    const last = JSON.parse(events.at(-1)!.slice(6))
    expect(last.error).toMatchObject({ type: 'api_error', code: 'upstream_unavailable' })
    expect(events.some((event) => event.includes('"content":"Hello"'))).toBe(true)
    expect(events).not.toContain('data: [DONE]')
    const sdk = await (async () => {
      for await (const _ of await client.chat.completions.create({ ...ask, stream: true }));
    })().catch((error: unknown) => error)
    expect(sdk).toBeInstanceOf(APIError)
  })
})

describe('not streamed', () => {
  test('text, thinking and tool calls in one chat.completion, with usage', async () => {
    anthropic.script({
      ...TOOL_REPLY,
      blocks: [{ type: 'thinking', thinking: 'Hmm.' }, ...TOOL_REPLY.blocks!],
      usage: { input_tokens: 7, output_tokens: 30, cache_read_input_tokens: 3 },
    })
    const completion = await client.chat.completions.create({ ...ask, tools: [weather] })
    expect(completion.id).toBe(MESSAGE_ID)
    expect(completion.model).toBe('claude-sonnet-4-5')
    const message = completion.choices[0]!.message as OpenAI.Chat.ChatCompletionMessage & { reasoning_content?: string }
    expect(message.content).toBe('Let me look.')
    expect(message.reasoning_content).toBe('Hmm.')
    expect(message.tool_calls).toEqual([
      { id: 'toolu_01', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lisbon"}' } },
      { id: 'toolu_02', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Porto"}' } },
    ])
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls')
    expect(completion.usage).toMatchObject({
      prompt_tokens: 10,
      completion_tokens: 30,
      total_tokens: 40,
      prompt_tokens_details: { cached_tokens: 3 },
    })
    expect(anthropic.requests[0]!.body.stream).toBeUndefined()
    expect(anthropic.requests[0]!.headers.get('accept')).toBe('application/json')
  })
})

describe('upstream failures', () => {
  // Anthropic's error answers, and what the SDK sees, streamed or not.
  const ROWS: {
    reply: AnthropicReply
    status: number
    type: string
    code?: string
    param?: string
    message?: string
    hidden?: string
  }[] = [
    {
      reply: {
        status: 400,
        errorType: 'invalid_request_error',
        errorBody: {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'messages: roles must alternate' },
        },
      },
      status: 400,
      type: 'invalid_request_error',
      message: 'roles must alternate',
    },
    {
      reply: { status: 401 },
      status: 502,
      type: 'api_error',
      code: 'upstream_auth_failed',
      hidden: 'mock authentication_error',
    },
    {
      reply: { status: 403 },
      status: 502,
      type: 'api_error',
      code: 'upstream_auth_failed',
      hidden: 'mock permission_error',
    },
    { reply: { status: 404 }, status: 404, type: 'invalid_request_error', code: 'model_not_found', param: 'model' },
    { reply: { status: 413, errorType: 'request_too_large' }, status: 413, type: 'invalid_request_error' },
    { reply: { status: 429, headers: { 'retry-after': '3' } }, status: 429, type: 'rate_limit_error' },
    { reply: { status: 500 }, status: 503, type: 'api_error', code: 'upstream_unavailable' },
    {
      reply: { status: 529 },
      status: 503,
      type: 'api_error',
      code: 'upstream_unavailable',
      hidden: 'mock overloaded_error',
    },
    // The body's type decides over the status.
    {
      reply: { status: 500, errorType: 'overloaded_error' },
      status: 503,
      type: 'api_error',
      code: 'upstream_unavailable',
    },
  ]
  for (const row of ROWS) {
    test(`HTTP ${row.reply.status} ${row.reply.errorType ?? ''} → ${row.status} ${row.code ?? row.type}`, async () => {
      anthropic.script(row.reply)
      for (const stream of [false, true]) {
        const error = (await client.chat.completions
          .create({ ...ask, stream })
          .then(async (answer) => {
            if (stream) for await (const _ of answer as AsyncIterable<unknown>);
          })
          .catch((caught: unknown) => caught)) as APIError
        expect(error).toBeInstanceOf(APIError)
        expect(error.status).toBe(row.status)
        expect(error.type).toBe(row.type)
        if (row.code) expect(error.code).toBe(row.code)
        if (row.param) expect(error.param).toBe(row.param)
        if (row.message) expect(error.message).toContain(row.message)
        if (row.hidden) expect(error.message).not.toContain(row.hidden)
        if (row.status === 429) expect(error.headers?.get('retry-after')).toBe('3')
      }
    })
  }

  test('an overloaded upstream (529) is retried before the first byte, and the retry serves', async () => {
    anthropic.script({ status: 529 }, {})
    const stream = await client.chat.completions.create({ ...ask, model: 'claude-patient', stream: true })
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
    expect(text).toBe('Hello, wörld 🌱')
    expect(anthropic.requests.map((request) => request.path)).toEqual(['/v1/messages', '/v1/messages'])
  })

  test('an error event in place of message_start is retried too: nothing reached the client', async () => {
    anthropic.script({ errorEvent: { at: 0 } }, {})
    const completion = await client.chat.completions.create({ ...ask, model: 'claude-patient', stream: true })
    let text = ''
    for await (const chunk of completion) text += chunk.choices[0]?.delta.content ?? ''
    expect(text).toBe('Hello, wörld 🌱')
    expect(anthropic.requests).toHaveLength(2)
  })

  test('fallback: the anthropic entry fails, the next entry (echo) serves', async () => {
    anthropic.script({ status: 529 })
    const completion = await client.chat.completions.create({ ...ask, model: 'claude-or-echo' })
    expect(completion.choices[0]!.message.content).toBe('Hello')
    expect(anthropic.requests).toHaveLength(1)
  })

  test('a parameter Anthropic cannot honour is a 400 naming it, and nothing goes upstream', async () => {
    const error = (await client.chat.completions
      .create({ ...ask, logprobs: true })
      .catch((caught: unknown) => caught)) as APIError
    expect(error.status).toBe(400)
    expect(error.param).toBe('logprobs')
    expect(anthropic.requests).toHaveLength(0)
  })
})
