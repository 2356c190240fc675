import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { createEchoProvider } from '../../src/chat/providers/echo/echo'
import { CLIENT_HEADERS, type ChatProvider, type ChatRequest } from '../../src/chat/providers/provider'
import { makeChatApp, registryOf, USER } from './chat-app'

// Each app starts on a fresh database; the first one in a process takes seconds.
setDefaultTimeout(30_000)

/*
 * POST /chat/completions validates every field OpenAI documents, with OpenAI's bounds,
 * and answers a bad request with 400 in OpenAI's error shape, naming the field in `param`.
 */

let app: Awaited<ReturnType<typeof makeChatApp>>
beforeAll(async () => {
  app = await makeChatApp()
})
afterAll(() => app.close())

const base = { model: 'echo', messages: USER('hi') }
/** `{"a":{"a":…}}`, `levels` objects deep. */
const nested = (levels: number): unknown => (levels === 1 ? {} : { a: nested(levels - 1) })
const tool = { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }

// [case, body, param, fragment of the message]
const BAD_REQUESTS: [string, unknown, string | null, string][] = [
  ['no model', { messages: USER('hi') }, 'model', "Missing required parameter: 'model'"],
  ['empty model', { ...base, model: '' }, 'model', "'model'"],
  ['no messages', { model: 'echo' }, 'messages', "Missing required parameter: 'messages'"],
  ['empty messages', { ...base, messages: [] }, 'messages', 'at least 1 item'],
  ['messages not an array', { ...base, messages: 'hi' }, 'messages', 'expected an array'],
  [
    'unknown role',
    { ...base, messages: [{ role: 'bot', content: 'x' }] },
    'messages[0].role',
    "Supported values are: 'system', 'developer', 'user', 'assistant', 'tool'",
  ],
  [
    'content of the wrong type',
    { ...base, messages: [{ role: 'user', content: 5 }] },
    'messages[0].content',
    'but got a number',
  ],
  [
    'user without content',
    { ...base, messages: [{ role: 'user' }] },
    'messages[0].content',
    "Missing required parameter: 'messages[0].content'",
  ],
  [
    'tool message without tool_call_id',
    { ...base, messages: [...USER('hi'), { role: 'tool', content: 'result' }] },
    'messages[1].tool_call_id',
    "Missing required parameter: 'messages[1].tool_call_id'",
  ],
  [
    'assistant with neither content nor tool_calls',
    { ...base, messages: [{ role: 'assistant' }, ...USER('hi')] },
    'messages[0].content',
    "'content' or 'tool_calls'",
  ],
  [
    'assistant tool call without id',
    {
      ...base,
      messages: [{ role: 'assistant', tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] }],
    },
    'messages[0].tool_calls[0].id',
    "'messages[0].tool_calls[0].id'",
  ],
  ['temperature above 2', { ...base, temperature: 2.5 }, 'temperature', 'less or equal to 2'],
  ['temperature below 0', { ...base, temperature: -0.1 }, 'temperature', 'greater or equal to 0'],
  [
    'temperature of 1e999, which JSON.parse reads as Infinity',
    '{"model":"echo","messages":[{"role":"user","content":"hi"}],"temperature":1e999}',
    'temperature',
    "Invalid value for 'temperature': the number is too large",
  ],
  [
    'temperature as a string',
    { ...base, temperature: 'warm' },
    'temperature',
    'expected a number or null, but got a string',
  ],
  ['top_p above 1', { ...base, top_p: 1.01 }, 'top_p', 'less or equal to 1'],
  ['frequency_penalty below -2', { ...base, frequency_penalty: -2.5 }, 'frequency_penalty', 'greater or equal to -2'],
  ['presence_penalty above 2', { ...base, presence_penalty: 3 }, 'presence_penalty', 'less or equal to 2'],
  ['max_tokens of 0', { ...base, max_tokens: 0 }, 'max_tokens', 'greater or equal to 1'],
  ['max_tokens not an integer', { ...base, max_tokens: 1.5 }, 'max_tokens', 'expected an integer'],
  [
    'max_completion_tokens of 0',
    { ...base, max_completion_tokens: 0 },
    'max_completion_tokens',
    'greater or equal to 1',
  ],
  ['n of 0', { ...base, n: 0 }, 'n', 'greater or equal to 1'],
  ['stop as a number', { ...base, stop: 7 }, 'stop', "Invalid type for 'stop'"],
  [
    'stop with 17 sequences',
    { ...base, stop: Array.from({ length: 17 }, (_, i) => `s${i}`) },
    'stop',
    'at most 16 items, but got 17',
  ],
  ['stop with a non-string', { ...base, stop: ['ok', 3] }, 'stop[1]', 'expected a string'],
  ['logprobs as a string', { ...base, logprobs: 'yes' }, 'logprobs', 'expected a boolean or null'],
  ['top_logprobs above 20', { ...base, logprobs: true, top_logprobs: 21 }, 'top_logprobs', 'less or equal to 20'],
  ['top_logprobs below 0', { ...base, logprobs: true, top_logprobs: -1 }, 'top_logprobs', 'greater or equal to 0'],
  ['top_logprobs without logprobs', { ...base, top_logprobs: 3 }, 'top_logprobs', "'logprobs' must be set to true"],
  [
    'top_logprobs with logprobs false',
    { ...base, logprobs: false, top_logprobs: 3 },
    'top_logprobs',
    "'logprobs' must be set to true",
  ],
  [
    'unknown response_format type',
    { ...base, response_format: { type: 'xml' } },
    'response_format.type',
    "Supported values are: 'text', 'json_object', 'json_schema'",
  ],
  [
    'json_schema format without its schema',
    { ...base, response_format: { type: 'json_schema' } },
    'response_format.json_schema',
    "Missing required parameter: 'response_format.json_schema'",
  ],
  ['tools not an array', { ...base, tools: {} }, 'tools', "Invalid type for 'tools'"],
  [
    'tool of another type',
    { ...base, tools: [{ ...tool, type: 'retrieval' }] },
    'tools[0].type',
    "Supported values are: 'function'",
  ],
  [
    'tool without a function',
    { ...base, tools: [{ type: 'function' }] },
    'tools[0].function',
    "Missing required parameter: 'tools[0].function'",
  ],
  [
    'tool name with spaces',
    { ...base, tools: [{ type: 'function', function: { name: 'look up' } }] },
    'tools[0].function.name',
    'match',
  ],
  [
    'tool parameters not an object',
    { ...base, tools: [{ type: 'function', function: { name: 'f', parameters: 'x' } }] },
    'tools[0].function.parameters',
    'expected an object',
  ],
  [
    'unknown tool_choice',
    { ...base, tools: [tool], tool_choice: 'sometimes' },
    'tool_choice',
    "Supported values are: 'none', 'auto', 'required'",
  ],
  [
    'tool_choice required without tools',
    { ...base, tool_choice: 'required' },
    'tool_choice',
    "only allowed when 'tools' are specified",
  ],
  [
    'named tool_choice without a name',
    { ...base, tools: [tool], tool_choice: { type: 'function', function: {} } },
    'tool_choice.function.name',
    "Missing required parameter: 'tool_choice.function.name'",
  ],
  [
    'named tool_choice naming an unknown tool',
    { ...base, tools: [tool], tool_choice: { type: 'function', function: { name: 'other' } } },
    'tool_choice.function.name',
    "no function named 'other'",
  ],
  ['stream as a string', { ...base, stream: 'true' }, 'stream', 'expected a boolean or null'],
  [
    'include_usage as a string',
    { ...base, stream: true, stream_options: { include_usage: 'yes' } },
    'stream_options.include_usage',
    'expected a boolean',
  ],
  // Bounds on what a request can multiply (issue #11, OWASP API4): OpenAI's where it has one.
  ['n above 128', { ...base, n: 129 }, 'n', 'less or equal to 128'],
  ['max_tokens above 1,048,576', { ...base, max_tokens: 1_048_577 }, 'max_tokens', 'less or equal to 1048576'],
  [
    'max_completion_tokens above 1,048,576',
    { ...base, max_completion_tokens: 2 ** 40 },
    'max_completion_tokens',
    'less or equal to 1048576',
  ],
  [
    'logit_bias with 301 entries',
    { ...base, logit_bias: Object.fromEntries(Array.from({ length: 301 }, (_, i) => [String(i), 1])) },
    'logit_bias',
    'too many keys. Expected at most 300, but got 301',
  ],
  ['logit_bias above 100', { ...base, logit_bias: { '42': 101 } }, 'logit_bias[42]', 'less or equal to 100'],
  [
    '129 tools',
    {
      ...base,
      tools: Array.from({ length: 129 }, (_, i) => ({ ...tool, function: { ...tool.function, name: `t${i}` } })),
    },
    'tools',
    'at most 128 items, but got 129',
  ],
  [
    '2049 messages',
    { ...base, messages: Array.from({ length: 2049 }, () => USER('hi')[0]) },
    'messages',
    'at most 2048 items, but got 2049',
  ],
  [
    '1025 content parts',
    {
      ...base,
      messages: [{ role: 'user', content: Array.from({ length: 1025 }, () => ({ type: 'text', text: 'a' })) }],
    },
    'messages[0].content',
    'at most 1024 items, but got 1025',
  ],
  [
    '129 tool calls in one message',
    {
      ...base,
      messages: [
        {
          role: 'assistant',
          tool_calls: Array.from({ length: 129 }, (_, i) => ({
            id: `c${i}`,
            type: 'function',
            function: { name: 'f', arguments: '{}' },
          })),
        },
        ...USER('hi'),
      ],
    },
    'messages[0].tool_calls',
    'at most 128 items, but got 129',
  ],
  ['body is an array', [base], null, 'must be a JSON object'],
  ['body is not JSON', '{"model": "echo",', null, 'could not parse the JSON body'],
  // JSON.parse takes any depth; the prompt estimate and the body sent upstream overflowed the stack on it (a 500).
  [
    'tool parameters nested 100,000 levels deep',
    `{"model":"echo","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${'['.repeat(100_000)}${']'.repeat(100_000)}}}]}`,
    'tools[0].function.parameters[0]',
    'may nest at most 128 levels deep',
  ],
  [
    'a vendor field nested 129 levels deep',
    { ...base, vendor: nested(129) },
    'vendor.a.a.a.a',
    'may nest at most 128 levels deep',
  ],
]

describe('a bad request is a 400 naming param', () => {
  test.each(BAD_REQUESTS)('%s', async (_name, body, param, fragment) => {
    const response = await app.chat(body)
    expect(response.status).toBe(400)
    expect(response.headers.get('content-type')).toBe('application/json')
    const { error } = (await response.json()) as { error: Record<string, unknown> }
    expect(error.type).toBe('invalid_request_error')
    expect(error.param).toBe(param)
    expect(error.message).toContain(fragment)
    expect(Object.keys(error).sort()).toEqual(['code', 'message', 'param', 'type'])
  })
})

describe('what is accepted', () => {
  test('unknown fields are passed through, not rejected', async () => {
    const response = await app.chat({
      ...base,
      vendor_option: { deep: true },
      messages: [{ role: 'user', content: 'hi', vendor_tag: 1 }],
    })
    expect(response.status).toBe(200)
  })

  test('unknown fields reach the provider untouched, at the top level and inside messages', async () => {
    const seen: ChatRequest[] = []
    const echo = createEchoProvider()
    const capturing: ChatProvider = {
      name: 'capturing',
      complete: (request, signal) => (seen.push(request), echo.complete(request, signal)),
      stream: echo.stream,
    }
    const own = await makeChatApp({ chat: { registry: registryOf({ capturing }), keepAliveMs: 15_000 } })
    try {
      const body = {
        model: 'capturing',
        messages: [{ role: 'user', content: 'hi', vendor_tag: { n: 1 } }],
        vendor_option: [1, 'two'],
        thinking: { type: 'enabled' },
      }
      expect((await own.chat(body)).status).toBe(200)
      // The client's headers ride along under a symbol, which JSON never carries upstream.
      expect(seen).toEqual([{ ...body, stream: false, [CLIENT_HEADERS]: expect.any(Headers) }])
      expect(JSON.parse(JSON.stringify(seen[0]))).toEqual({ ...body, stream: false })
    } finally {
      await own.close()
    }
  })

  test('null for every optional field, as the OpenAI SDK may send', async () => {
    const nulls = Object.fromEntries(
      [
        'frequency_penalty',
        'presence_penalty',
        'logit_bias',
        'logprobs',
        'top_logprobs',
        'max_tokens',
        'max_completion_tokens',
        'n',
        'seed',
        'stop',
        'stream',
        'stream_options',
        'temperature',
        'top_p',
        'tools',
        'parallel_tool_calls',
      ].map((key) => [key, null]),
    )
    const response = await app.chat({ ...base, ...nulls })
    expect(response.status).toBe(200)
  })

  test('the bounds themselves', async () => {
    const response = await app.chat({
      ...base,
      temperature: 2,
      top_p: 0,
      frequency_penalty: -2,
      presence_penalty: 2,
      max_tokens: 1_048_576,
      logprobs: true,
      top_logprobs: 20,
      stop: Array.from({ length: 16 }, (_, i) => `s${i}`),
      n: 128,
      logit_bias: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [String(i), 1])),
      max_completion_tokens: 1_048_576,
    })
    expect(response.status).toBe(200)
  })

  test('every message role, multi-part content, and a tool round trip', async () => {
    const response = await app.chat({
      ...base,
      tools: [tool],
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'developer', content: 'really brief' },
        { role: 'user', content: [{ type: 'text', text: 'look it up' }] },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'I should call lookup',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'found' },
        { role: 'user', content: 'thanks' },
      ],
    })
    expect(response.status).toBe(200)
  })
})

describe('the other errors, in the same shape', () => {
  test('415 without a JSON content type', async () => {
    const response = await app.chat(undefined, {
      body: JSON.stringify(base),
      headers: { 'content-type': 'text/plain' },
    })
    expect(response.status).toBe(415)
    expect(await response.json()).toEqual({
      error: {
        message: expect.stringContaining('application/json'),
        type: 'invalid_request_error',
        param: null,
        code: 'unsupported_media_type',
      },
    })
  })

  test('413 over the body limit', async () => {
    const huge = { ...base, messages: USER('x'.repeat(2 * 1024 * 1024)) }
    const response = await app.chat(huge)
    expect(response.status).toBe(413)
    const { error } = (await response.json()) as { error: Record<string, unknown> }
    expect(error.code).toBe('request_too_large')
  })

  test('404 model_not_found for a model the registry does not serve', async () => {
    const response = await app.chat({ ...base, model: 'gpt-9' })
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({
      error: {
        message: 'The model `gpt-9` does not exist or you do not have access to it.',
        type: 'invalid_request_error',
        param: 'model',
        code: 'model_not_found',
      },
    })
  })

  test('401 without a token, before the body is even looked at, keeping WWW-Authenticate', async () => {
    const response = await app.request('/v1/chat/completions', { method: 'POST', json: { nonsense: true } })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toContain('Bearer')
    const { error } = (await response.json()) as { error: Record<string, unknown> }
    expect(error.type).toBe('invalid_request_error')
  })

  test('401 for an unknown token', async () => {
    const response = await app.request('/v1/chat/completions', { method: 'POST', token: 'trl_unknown', json: base })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toContain('invalid_token')
  })

  test('403 for a token without the chat scope', async () => {
    const token = await app.tokenFor('gardener', ['plants:read'])
    const response = await app.request('/v1/chat/completions', { method: 'POST', token, json: base })
    expect(response.status).toBe(403)
    expect(response.headers.get('www-authenticate')).toContain('insufficient_scope')
    const { error } = (await response.json()) as { error: Record<string, unknown> }
    expect(error.code).toBe('insufficient_scope')
  })
})

describe('GET /models', () => {
  test.each(['/models', '/v1/models'])('%s lists the public model names', async (path) => {
    const response = await app.request(path, { token: app.token })
    expect(response.status).toBe(200)
    const list = (await response.json()) as { object: string; data: { id: string; object: string; owned_by: string }[] }
    expect(list.object).toBe('list')
    expect(list.data.map((model) => model.id)).toEqual(['echo', 'echo-reasoner'])
    expect(list.data.every((model) => model.object === 'model' && model.owned_by === 'trellis')).toBe(true)
  })

  test('one model by name, and 404 model_not_found for another', async () => {
    expect(((await (await app.request('/v1/models/echo', { token: app.token })).json()) as { id: string }).id).toBe(
      'echo',
    )
    const missing = await app.request('/v1/models/gpt-9', { token: app.token })
    expect(missing.status).toBe(404)
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('model_not_found')
  })

  test('needs a token', async () => {
    expect((await app.request('/v1/models')).status).toBe(401)
  })
})
