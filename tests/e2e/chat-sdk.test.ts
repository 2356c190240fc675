import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import OpenAI, {
  APIError,
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from 'openai'
import { ProviderError, type ChatProvider } from '../../src/chat/providers/provider'
import { createEchoProvider } from '../../src/chat/providers/echo/echo'
import { makeChatApp, registryOf } from '../chat/chat-app'

// Each app starts on a fresh database; the first one in a process takes seconds.
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/*
 * The official `openai` SDK, unchanged, against a real listening Trellis (Bun.serve on a
 * random port serving app.fetch), with base URL http://127.0.0.1:<port>/v1.
 */

/** Answers every request with the upstream's 429, as a rate-limited relay upstream would. */
const rateLimited: ChatProvider = {
  name: 'rate-limited',
  complete: async () => {
    throw new ProviderError(429, 'Rate limit reached for requests', { retryAfter: 20 })
  },
  // eslint-disable-next-line require-yield
  stream: async function* () {
    throw new ProviderError(429, 'Rate limit reached for requests', { retryAfter: 20 })
  },
}

let trellis: Awaited<ReturnType<typeof makeChatApp>>
let server: ReturnType<typeof Bun.serve>
let client: OpenAI

beforeAll(async () => {
  const echo = createEchoProvider()
  const registry = registryOf({ echo, 'echo-reasoner': echo, 'rate-limited': rateLimited })
  trellis = await makeChatApp({
    chat: { registry, keepAliveMs: 15_000 },
    deps: { onLongLivedRequest: (request) => server.timeout(request, 0) },
  })
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: trellis.app.fetch })
  client = new OpenAI({ apiKey: trellis.token, baseURL: `http://127.0.0.1:${server.port}/v1`, maxRetries: 0 })
})

afterAll(async () => {
  await server.stop(true)
  await trellis.close()
})

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
      required: ['city'],
    },
  },
}

describe('chat.completions.create', () => {
  test('without streaming', async () => {
    const completion = await client.chat.completions.create({
      model: 'echo',
      messages: [{ role: 'user', content: 'Hello, SDK!' }],
    })
    expect(completion.object).toBe('chat.completion')
    expect(completion.choices[0]!.message).toEqual({ role: 'assistant', content: 'Hello, SDK!', refusal: null })
    expect(completion.choices[0]!.finish_reason).toBe('stop')
    expect(completion.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 })
  })

  test('streaming without include_usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'echo',
      messages: [{ role: 'user', content: 'one two three' }],
      stream: true,
    })
    let text = ''
    const finishes: (string | null)[] = []
    let usage: unknown
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk')
      for (const choice of chunk.choices) {
        text += choice.delta.content ?? ''
        finishes.push(choice.finish_reason)
      }
      usage ??= chunk.usage
    }
    expect(text).toBe('one two three')
    expect(finishes.at(-1)).toBe('stop')
    expect(usage).toBeUndefined()
  })

  test('streaming with include_usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'echo',
      messages: [{ role: 'user', content: 'one two three' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    const chunks = []
    for await (const chunk of stream) chunks.push(chunk)
    const last = chunks.at(-1)!
    expect(last.choices).toEqual([])
    expect(last.usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 })
  })

  test('reasoning_content arrives before content', async () => {
    const stream = await client.chat.completions.create({
      model: 'echo-reasoner',
      messages: [{ role: 'user', content: 'think' }],
      stream: true,
    })
    const order: string[] = []
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as
        | { content?: string | null; reasoning_content?: string | null }
        | undefined
      if (delta?.reasoning_content) order.push('reasoning')
      if (delta?.content) order.push('content')
    }
    expect(order.indexOf('content')).toBeGreaterThan(order.lastIndexOf('reasoning'))
  })
})

describe('chat.completions.stream', () => {
  test('finalChatCompletion() on a tool-call stream, with no error', async () => {
    const runner = client.chat.completions.stream({
      model: 'echo',
      messages: [{ role: 'user', content: 'Lisbon' }],
      tools: [weatherTool],
      tool_choice: 'required',
    })
    const errors: unknown[] = []
    runner.on('error', (error) => errors.push(error))
    const argumentDeltas: string[] = []
    runner.on('tool_calls.function.arguments.delta', (event) => argumentDeltas.push(event.arguments_delta))
    const final = await runner.finalChatCompletion()
    expect(errors).toEqual([])
    const choice = final.choices[0]!
    expect(choice.finish_reason).toBe('tool_calls')
    const call = choice.message.tool_calls![0]!
    expect(call.type).toBe('function')
    if (call.type !== 'function') throw new Error('expected a function call')
    expect(call.function.name).toBe('get_weather')
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Lisbon', days: 1 })
    expect(argumentDeltas.length).toBeGreaterThan(1)
  })
})

describe('models', () => {
  test('list and retrieve', async () => {
    const ids: string[] = []
    for await (const model of client.models.list()) ids.push(model.id)
    expect(ids).toEqual(['echo', 'echo-reasoner', 'rate-limited'])
    expect((await client.models.retrieve('echo')).id).toBe('echo')
  })
})

describe('each SDK error class for its status', () => {
  const ask = (overrides: Partial<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming> = {}, sdk = client) =>
    sdk.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'hi' }], ...overrides })

  test('400 → BadRequestError, naming param', async () => {
    const error = await ask({ temperature: 5 }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(BadRequestError)
    expect((error as BadRequestError).status).toBe(400)
    expect((error as BadRequestError).param).toBe('temperature')
    expect((error as BadRequestError).type).toBe('invalid_request_error')
  })

  test('401 → AuthenticationError', async () => {
    const stranger = new OpenAI({ apiKey: 'trl_not_a_real_token', baseURL: client.baseURL, maxRetries: 0 })
    const error = await ask({}, stranger).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(AuthenticationError)
    expect((error as AuthenticationError).status).toBe(401)
  })

  test('403 → PermissionDeniedError', async () => {
    const gardener = new OpenAI({
      apiKey: await trellis.tokenFor('gardener', ['plants:read']),
      baseURL: client.baseURL,
      maxRetries: 0,
    })
    expect(await ask({}, gardener).catch((caught: unknown) => caught)).toBeInstanceOf(PermissionDeniedError)
  })

  test('404 → NotFoundError with code model_not_found', async () => {
    const error = await ask({ model: 'gpt-9' }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(NotFoundError)
    expect((error as NotFoundError).code).toBe('model_not_found')
  })

  test('429 from the provider → RateLimitError with Retry-After', async () => {
    const error = await ask({ model: 'rate-limited' }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(RateLimitError)
    expect((error as RateLimitError).headers.get('retry-after')).toBe('20')
  })

  test('429 before the first byte of a stream is a RateLimitError too', async () => {
    const error = await client.chat.completions
      .create({ model: 'rate-limited', messages: [{ role: 'user', content: 'hi' }], stream: true })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(RateLimitError)
  })

  test('an error event after the first byte surfaces as an APIError while iterating', async () => {
    const failing: ChatProvider = {
      name: 'failing',
      complete: async () => {
        throw new Error('unused')
      },
      stream: async function* () {
        yield {
          id: 'c',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'failing',
          choices: [{ index: 0, delta: { role: 'assistant', content: 'partial' }, finish_reason: null }],
        }
        throw new ProviderError(502, 'upstream went away mid-stream')
      },
    }
    const other = await makeChatApp({ chat: { registry: registryOf({ failing }), keepAliveMs: 15_000 } })
    const otherServer = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: other.app.fetch })
    try {
      const sdk = new OpenAI({ apiKey: other.token, baseURL: `http://127.0.0.1:${otherServer.port}/v1`, maxRetries: 0 })
      const stream = await sdk.chat.completions.create({
        model: 'failing',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      })
      let text = ''
      const error = await (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
      })().catch((caught: unknown) => caught)
      expect(text).toBe('partial')
      expect(error).toBeInstanceOf(APIError)
      expect((error as APIError).message).toContain('upstream went away mid-stream')
    } finally {
      await otherServer.stop(true)
      await other.close()
    }
  })
})
