import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import Anthropic, {
  APIError,
  AuthenticationError,
  BadRequestError,
  ContentTooLargeError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from '@anthropic-ai/sdk'
import { jsonSchemaOutputFormat } from '@anthropic-ai/sdk/helpers/json-schema'
import { ProviderError, type ChatCompletionChunk, type ChatProvider } from '../../src/chat/providers/provider'
import { createEchoProvider } from '../../src/chat/providers/echo/echo'
import { makeChatApp, registryOf } from '../chat/chat-app'

// Each app starts on a fresh database; the first one in a process takes seconds.
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/*
 * The official `@anthropic-ai/sdk`, unchanged, against a real listening Trellis (Bun.serve on a
 * random port serving app.fetch), with base URL http://127.0.0.1:<port> (the SDK adds /v1/messages).
 */

/** A provider whose every answer fails the same way before anything is sent. */
const failing = (name: string, error: () => Error): ChatProvider => ({
  name,
  complete: async () => {
    throw error()
  },
  // eslint-disable-next-line require-yield
  stream: async function* () {
    throw error()
  },
})

const chunk = (delta: Record<string, unknown>, finish: string | null = null): ChatCompletionChunk => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'up',
  choices: [{ index: 0, delta, finish_reason: finish }],
})

/** Says "partial", then its upstream goes away. */
const breaksMidStream: ChatProvider = {
  ...failing('breaks', () => new Error('unused')),
  stream: async function* () {
    yield chunk({ role: 'assistant', content: 'partial' })
    throw new ProviderError(502, 'upstream went away mid-stream')
  },
}

/** Thinks for 400 ms before its first chunk, with keep-alives every 50 ms. */
const slow: ChatProvider = {
  ...failing('slow', () => new Error('unused')),
  stream: async function* () {
    await Bun.sleep(400)
    yield chunk({ role: 'assistant', content: 'at last' })
    yield chunk({}, 'stop')
  },
}

let trellis: Awaited<ReturnType<typeof makeChatApp>>
let server: ReturnType<typeof Bun.serve>
let client: Anthropic
let baseURL: string

beforeAll(async () => {
  const echo = createEchoProvider()
  const registry = registryOf({
    echo,
    'echo-reasoner': echo,
    // An echo of its own, whose prompt cache only the count test below uses.
    'echo-fresh': createEchoProvider(),
    'rate-limited': failing(
      'rate-limited',
      () => new ProviderError(429, 'Rate limit reached for requests', { retryAfter: 20 }),
    ),
    // What the anthropic provider makes of an upstream's 529 (src/chat/providers/anthropic/errors.ts).
    overloaded: failing(
      'overloaded',
      () =>
        new ProviderError(503, 'The upstream provider is unavailable.', {
          type: 'api_error',
          code: 'upstream_unavailable',
          retryable: true,
        }),
    ),
    buggy: failing('buggy', () => new TypeError('cannot read properties of undefined')),
    breaks: breaksMidStream,
    slow,
  })
  trellis = await makeChatApp({
    chat: { registry, keepAliveMs: 50 },
    deps: { onLongLivedRequest: (request) => server.timeout(request, 0) },
  })
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: trellis.app.fetch })
  baseURL = `http://127.0.0.1:${server.port}`
  client = new Anthropic({ apiKey: trellis.token, baseURL, maxRetries: 0 })
})

afterAll(async () => {
  await server.stop(true)
  await trellis.close()
})

/** A message's blocks, untyped, to compare whole. */
const blocksOf = (message: Anthropic.Message): unknown[] => message.content

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: {
    type: 'object' as const,
    properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
    required: ['city'],
  },
}

describe('messages.create', () => {
  test('without streaming: a message with a text block and usage', async () => {
    const message = await client.messages.create({
      model: 'echo',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello, SDK!' }],
    })
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'echo',
      stop_reason: 'end_turn',
      stop_sequence: null,
    })
    expect(message.id).toStartWith('msg_')
    expect(blocksOf(message)).toEqual([{ type: 'text', text: 'Hello, SDK!', citations: null }])
    // echo counts `<|user|>` and the four tokens of the text; its answer is the same four.
    expect(message.usage).toMatchObject({
      input_tokens: 5,
      output_tokens: 4,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    })
    expect(message._request_id).toBeString()
  })

  test('streamed: the raw events in order, text deltas that add up, and max_tokens as the stop reason', async () => {
    const stream = await client.messages.create({
      model: 'echo',
      max_tokens: 2,
      stream: true,
      messages: [{ role: 'user', content: 'one two three' }],
    })
    const types: string[] = []
    let text = ''
    let stop: string | null = null
    for await (const event of stream) {
      types.push(event.type)
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text
      if (event.type === 'message_delta') stop = event.delta.stop_reason
    }
    expect(types[0]).toBe('message_start')
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop'])
    expect(types.filter((type) => type === 'content_block_start')).toHaveLength(1)
    expect(text).toBe('one two')
    expect(stop).toBe('max_tokens')
  })

  test('thinking from echo-reasoner comes as a thinking block before the text', async () => {
    const message = await client.messages
      .stream({
        model: 'echo-reasoner',
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: 'think' }],
      })
      .finalMessage()
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text'])
    expect(message.content[0]).toMatchObject({
      type: 'thinking',
      thinking: 'Echo provider, not a model: repeating 1 tokens.',
    })
    expect(blocksOf(message)[1]).toEqual({ type: 'text', text: 'think', citations: null })
  })

  test('without thinking enabled, a reasoning model answers text alone (its reasoning still counts as output)', async () => {
    const message = await client.messages.create({
      model: 'echo-reasoner',
      max_tokens: 2048,
      messages: [{ role: 'user', content: 'think' }],
    })
    expect(blocksOf(message)).toEqual([{ type: 'text', text: 'think', citations: null }])
    expect(message.usage.output_tokens).toBeGreaterThan(1)
  })
})

describe('structured output and the fields the SDK types as always present', () => {
  // What messages.parse() sends as output_config.format; echo answers json_schema requests with an example.
  const format = jsonSchemaOutputFormat({
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
    required: ['city', 'days'],
    additionalProperties: false,
  } as const)

  test('messages.parse() with a JSON schema: parsed_output is an object of the schema', async () => {
    const message = await client.messages.parse({
      model: 'echo',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Lisbon' }],
      output_config: { format, effort: 'high' },
    })
    expect(message.parsed_output).toEqual({ city: 'Lisbon', days: expect.any(Number) })
    expect(Number.isInteger(message.parsed_output!.days)).toBe(true)
  })

  test('messages.stream() with the same format: the final message is parsed too', async () => {
    const message = await client.messages
      .stream({
        model: 'echo',
        max_tokens: 256,
        messages: [{ role: 'user', content: 'Porto' }],
        output_config: { format },
      })
      .finalMessage()
    expect(message.parsed_output).toEqual({ city: 'Porto', days: expect.any(Number) })
  })

  test('the typed fields are there, null where there is nothing, and stop_sequence names the sequence', async () => {
    const message = await client.messages.create({
      model: 'echo',
      max_tokens: 64,
      stop_sequences: ['STOP'],
      messages: [{ role: 'user', content: 'go on STOP here' }],
    })
    expect(message.stop_reason).toBe('stop_sequence')
    expect(message.stop_sequence).toBe('STOP')
    expect([message.container, message.stop_details, message.diagnostics]).toEqual([null, null, null])
    const block = message.content[0]!
    if (block.type !== 'text') throw new Error('expected a text block')
    expect([block.text, block.citations]).toEqual(['go on ', null])
    const { cache_creation, server_tool_use, service_tier, inference_geo, speed, output_tokens_details } = message.usage
    expect([cache_creation, server_tool_use, service_tier, inference_geo, speed]).toEqual([
      null,
      null,
      null,
      null,
      null,
    ])
    expect(output_tokens_details).toEqual({ thinking_tokens: 0 })
    const streamed = await client.messages
      .stream({
        model: 'echo',
        max_tokens: 64,
        stop_sequences: ['STOP'],
        messages: [{ role: 'user', content: 'go on STOP here' }],
      })
      .finalMessage()
    expect([streamed.stop_reason, streamed.stop_sequence]).toEqual(['stop_sequence', 'STOP'])
  })
})

describe('models.list and models.retrieve', () => {
  test("list(): every model, in Anthropic's shape, across pages", async () => {
    const ids: string[] = []
    for await (const model of client.models.list({ limit: 3 })) {
      expect(model.type).toBe('model')
      expect(model.display_name).toBe(model.id)
      expect(new Date(model.created_at).toISOString()).toStartWith(model.created_at.slice(0, 19))
      ids.push(model.id)
    }
    expect(ids).toEqual([
      'echo',
      'echo-reasoner',
      'echo-fresh',
      'rate-limited',
      'overloaded',
      'buggy',
      'breaks',
      'slow',
    ])
    const page = await client.models.list({ limit: 2 })
    expect([page.has_more, page.first_id, page.last_id]).toEqual([true, 'echo', 'echo-reasoner'])
  })

  test('retrieve(): one model; an unknown one is a NotFoundError', async () => {
    const model = await client.models.retrieve('echo-reasoner')
    expect(model).toMatchObject({ type: 'model', id: 'echo-reasoner', lifecycle: 'active', max_tokens: null })
    expect(model._request_id).toBeString()
    const error = await client.models.retrieve('claude-9').catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(NotFoundError)
    expect((error as NotFoundError).type).toBe('not_found_error')
  })
})

describe('messages.stream', () => {
  test('finalMessage() on a tool-use turn: a tool_use block with its input, stop reason tool_use, and no error', async () => {
    const stream = client.messages.stream({
      model: 'echo',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Lisbon' }],
      tools: [weatherTool],
      tool_choice: { type: 'tool', name: 'get_weather' },
    })
    const errors: unknown[] = []
    stream.on('error', (error) => errors.push(error))
    const jsonDeltas: string[] = []
    stream.on('inputJson', (partial) => jsonDeltas.push(partial))
    const message = await stream.finalMessage()
    expect(errors).toEqual([])
    expect(message.stop_reason).toBe('tool_use')
    const block = message.content[0]!
    expect(block.type).toBe('tool_use')
    if (block.type !== 'tool_use') throw new Error('expected a tool_use block')
    expect(block.name).toBe('get_weather')
    expect(block.id).toBeString()
    expect(block.input).toEqual({ city: 'Lisbon', days: 1 })
    expect(jsonDeltas.length).toBeGreaterThan(1)
    // The usage of message_delta (input included, which an OpenAI upstream reports only at the end) is accumulated.
    expect(message.usage.input_tokens).toBeGreaterThan(0)
    expect(message.usage.output_tokens).toBeGreaterThan(0)
  })

  test('a tool_use turn sent back with its tool_result gets a text answer', async () => {
    const message = await client.messages.create({
      model: 'echo',
      max_tokens: 64,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Lisbon' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Lisbon' } }],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: 'sunny' },
            { type: 'text', text: 'and tomorrow?' },
          ],
        },
      ],
    })
    expect(blocksOf(message)).toEqual([{ type: 'text', text: 'and tomorrow?', citations: null }])
  })

  test('keep-alive pings under a slow provider are skipped by the SDK, and the answer arrives', async () => {
    const message = await client.messages
      .stream({ model: 'slow', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage()
    expect(blocksOf(message)).toEqual([{ type: 'text', text: 'at last', citations: null }])
  })
})

describe('messages.countTokens', () => {
  test("echo's count is the input its /v1/messages usage reports for the same request", async () => {
    const prompt = {
      model: 'echo-fresh',
      system: 'You are terse.',
      tools: [weatherTool],
      messages: [{ role: 'user' as const, content: `count me ${crypto.randomUUID()}` }],
    }
    const { input_tokens } = await client.messages.countTokens(prompt)
    const message = await client.messages.create({ ...prompt, max_tokens: 16 })
    expect(input_tokens).toBeGreaterThan(10)
    // The first prompt this echo sees: nothing was read from its cache, so the two agree exactly.
    expect(message.usage.cache_read_input_tokens).toBe(0)
    expect(input_tokens).toBe(message.usage.input_tokens)
    // Asked again, the prompt is read from the cache: Anthropic's input_tokens leave cache reads out, the count does
    // not.
    const again = await client.messages.create({ ...prompt, max_tokens: 16 })
    expect(again.usage.cache_read_input_tokens).toBeGreaterThan(0)
    expect(again.usage.input_tokens + again.usage.cache_read_input_tokens!).toBe(input_tokens)
  })
})

describe('credentials: the same token as x-api-key or as a bearer', () => {
  test('x-api-key, as Anthropic SDKs have long sent it', async () => {
    const fetchWithApiKey = (input: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers)
      const bearer = headers.get('authorization')!
      headers.delete('authorization')
      headers.set('x-api-key', bearer.slice('Bearer '.length))
      return fetch(input, { ...init, headers })
    }
    const sdk = new Anthropic({ apiKey: trellis.token, baseURL, maxRetries: 0, fetch: fetchWithApiKey })
    const message = await sdk.messages.create({
      model: 'echo',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'key' }],
    })
    expect(blocksOf(message)).toEqual([{ type: 'text', text: 'key', citations: null }])
  })

  test('Authorization: Bearer, from authToken', async () => {
    const sdk = new Anthropic({ authToken: trellis.token, baseURL, maxRetries: 0 })
    expect(
      blocksOf(
        await sdk.messages.create({ model: 'echo', max_tokens: 8, messages: [{ role: 'user', content: 'bearer' }] }),
      ),
    ).toEqual([{ type: 'text', text: 'bearer', citations: null }])
  })
})

describe('each SDK error class for its status, with Anthropic error types', () => {
  // Untyped overrides: this SDK's types no longer list the sampling parameters, which the API still takes.
  const ask = (overrides: Record<string, unknown> = {}, sdk = client) =>
    sdk.messages
      .create({
        model: 'echo',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hi' }],
        ...overrides,
      } as Anthropic.MessageCreateParamsNonStreaming)
      .catch((caught: unknown) => caught)

  const rows: {
    name: string
    error: () => Promise<unknown>
    type: new (...args: never[]) => APIError
    status: number
    errorType: string
    message?: string
  }[] = [
    {
      name: '400 temperature above 1',
      error: () => ask({ temperature: 1.5 }),
      type: BadRequestError,
      status: 400,
      errorType: 'invalid_request_error',
      message: 'temperature: Input should be less than or equal to 1',
    },
    {
      name: "400 top_k on a model served through OpenAI's form",
      error: () => ask({ top_k: 5 }),
      type: BadRequestError,
      status: 400,
      errorType: 'invalid_request_error',
      message: "top_k: not supported by model 'echo'",
    },
    {
      name: '401 unknown key',
      error: async () => ask({}, new Anthropic({ apiKey: 'trl_not_a_real_token', baseURL, maxRetries: 0 })),
      type: AuthenticationError,
      status: 401,
      errorType: 'authentication_error',
    },
    {
      name: '403 without the chat scope',
      error: async () =>
        ask({}, new Anthropic({ apiKey: await trellis.tokenFor('gardener', ['plants:read']), baseURL, maxRetries: 0 })),
      type: PermissionDeniedError,
      status: 403,
      errorType: 'permission_error',
    },
    {
      name: '404 unknown model',
      error: () => ask({ model: 'claude-9' }),
      type: NotFoundError,
      status: 404,
      errorType: 'not_found_error',
      message: 'The model `claude-9` does not exist',
    },
    {
      name: '413 body above BODY_LIMIT',
      error: () => ask({ messages: [{ role: 'user', content: 'x'.repeat(1_100_000) }] }),
      type: ContentTooLargeError,
      status: 413,
      errorType: 'request_too_large',
    },
    {
      name: '429 from the provider',
      error: () => ask({ model: 'rate-limited' }),
      type: RateLimitError,
      status: 429,
      errorType: 'rate_limit_error',
    },
    {
      name: '500 a bug of ours',
      error: () => ask({ model: 'buggy' }),
      type: InternalServerError,
      status: 500,
      errorType: 'api_error',
      message: 'request id',
    },
    {
      name: '503 an overloaded upstream',
      error: () => ask({ model: 'overloaded' }),
      type: InternalServerError,
      status: 503,
      errorType: 'overloaded_error',
    },
  ]
  for (const row of rows) {
    test(row.name, async () => {
      const error = (await row.error()) as APIError
      expect(error).toBeInstanceOf(row.type)
      expect(error.status).toBe(row.status)
      expect(error.type).toBe(row.errorType as never)
      expect(error.requestID).toBeString()
      if (row.message) expect(error.message).toContain(row.message)
    })
  }

  // JSON.parse takes any depth; the prompt estimate's JSON.stringify then overflowed the stack, a 500 on both routes.
  test('a body nested 100,000 deep is a 400 naming the field, on /v1/messages and count_tokens', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
    const prompt = `"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"f","input_schema":{"type":"object","p":${deep}}}]`
    for (const [path, body] of [
      ['/v1/messages', `{"model":"echo","max_tokens":16,${prompt}}`],
      ['/v1/messages/count_tokens', `{"model":"echo",${prompt}}`],
    ]) {
      const response = await fetch(`${baseURL}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': trellis.token },
        body,
      })
      expect(response.status).toBe(400)
      const answer = await response.json()
      expect(answer).toEqual({
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.any(String) },
        request_id: response.headers.get('request-id'),
      })
      expect(answer.error.message).toStartWith(
        'tools.0.input_schema.p.0: Input should not nest objects and lists more than 128 levels deep',
      )
    }
  })

  test('a 429 says when to retry', async () => {
    const error = (await ask({ model: 'rate-limited' })) as RateLimitError
    expect(error.headers.get('retry-after')).toBe('20')
  })

  test('a 429 before the first byte of a stream is a RateLimitError too', async () => {
    const error = await client.messages
      .create({ model: 'rate-limited', max_tokens: 8, stream: true, messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(RateLimitError)
  })

  test('an error event after the first byte surfaces as an APIError while iterating, after the text before it', async () => {
    const stream = await client.messages.create({
      model: 'breaks',
      max_tokens: 16,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    })
    let text = ''
    const error = await (async () => {
      for await (const event of stream)
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text
    })().catch((caught: unknown) => caught)
    expect(text).toBe('partial')
    expect(error).toBeInstanceOf(APIError)
    expect((error as APIError).type).toBe('api_error')
    expect((error as APIError).message).toContain('upstream went away mid-stream')
  })
})
