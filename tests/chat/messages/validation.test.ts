/**
 * `POST /v1/messages` and `/v1/messages/count_tokens` refuse what Anthropic refuses, in Anthropic's
 * shape and words (`{"type":"error","error":{"type":"invalid_request_error","message":"<field>: …"}}`),
 * and what a model served through OpenAI's form cannot take, naming the field. Every failure of
 * these routes, before the body too, is in that shape with its `request-id`. So is what such a
 * model is sent in place of what it leaves out (earlier thinking).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createEchoProvider } from '../../../src/chat/providers/echo/echo'
import type { ChatProvider, ChatRequest } from '../../../src/chat/providers/provider'
import { SETUP_TIMEOUT } from '../../helpers/app'
import { makeChatApp, registryOf } from '../chat-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/** The translated requests an OpenAI-form provider was sent; it answers each with `ok`. */
const sent: ChatRequest[] = []
const recorder: ChatProvider = {
  name: 'recorder',
  complete: async (request) => {
    sent.push(request)
    return {
      id: 'c',
      object: 'chat.completion',
      created: 1,
      model: 'up',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    }
  },
  stream: async function* () {
    throw new Error('not used')
  },
}

let t: Awaited<ReturnType<typeof makeChatApp>>
beforeAll(async () => {
  t = await makeChatApp({
    chat: { registry: registryOf({ echo: createEchoProvider(), recorder }), keepAliveMs: 15_000 },
    env: { BODY_LIMIT: '65536' },
  })
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const messages = (body: unknown, init: { headers?: Record<string, string>; raw?: string; path?: string } = {}) =>
  t.app.handle(
    new Request(`http://localhost${init.path ?? '/v1/messages'}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.token, ...init.headers },
      body: init.raw ?? JSON.stringify(body),
    }),
  )

const USER = [{ role: 'user', content: 'hi' }]
const valid = { model: 'echo', max_tokens: 16, messages: USER }
const tool = { name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }
/** A user turn and the assistant's call of tool `t`, which the next user turn must answer. */
const TOOL_TURN = [USER[0], { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] }]
/** `{"a":{"a":…1…}}`, `depth` objects deep, built without recursion. */
const nested = (depth: number): Record<string, unknown> => JSON.parse('{"a":'.repeat(depth) + '1' + '}'.repeat(depth))

/** One row per bad body: what is sent, and the start of the message that must come back. */
const BAD_BODIES: [name: string, body: Record<string, unknown>, message: string][] = [
  ['no model', { max_tokens: 16, messages: USER }, 'model: Field required'],
  ['an empty model', { ...valid, model: '' }, 'model: String should have at least 1 character'],
  ['no max_tokens', { model: 'echo', messages: USER }, 'max_tokens: Field required'],
  ['max_tokens 0', { ...valid, max_tokens: 0 }, 'max_tokens: Input should be greater than or equal to 1'],
  ['max_tokens 1.5', { ...valid, max_tokens: 1.5 }, 'max_tokens: Input should be a valid integer'],
  ['max_tokens as a string', { ...valid, max_tokens: '16' }, 'max_tokens: Input should be a valid integer'],
  [
    'max_tokens beyond any model',
    { ...valid, max_tokens: 2 ** 40 },
    'max_tokens: Input should be less than or equal to 1048576',
  ],
  ['max_tokens null', { ...valid, max_tokens: null }, 'max_tokens: Input should be a valid integer'],
  ['no messages', { model: 'echo', max_tokens: 16 }, 'messages: Field required'],
  ['empty messages', { ...valid, messages: [] }, 'messages: List should have at least 1 item, not 0'],
  [
    'too many messages',
    { ...valid, messages: Array.from({ length: 2049 }, () => USER[0]) },
    'messages: List should have at most 2048 items, not 2049',
  ],
  [
    'a role Anthropic has not',
    { ...valid, messages: [{ role: 'tool', content: 'x' }] },
    "messages.0.role: Input should be 'user', 'assistant' or 'system'",
  ],
  [
    // Claude Code's system turns hold text (as a string or blocks), like the system prompt.
    'a system turn holding an image',
    {
      ...valid,
      messages: [
        USER[0],
        { role: 'system', content: [{ type: 'image', source: { type: 'url', url: 'https://x/y' } }] },
      ],
    },
    "messages.1.content.0.type: Input should be 'text'",
  ],
  ['content missing', { ...valid, messages: [{ role: 'user' }] }, 'messages.0.content: Field required'],
  [
    'content a number',
    { ...valid, messages: [{ role: 'user', content: 5 }] },
    'messages.0.content: Input should be a valid string or a valid list',
  ],
  [
    'a block without a type',
    { ...valid, messages: [{ role: 'user', content: [{ text: 'x' }] }] },
    'messages.0.content.0.type: Field required',
  ],
  [
    'a text block without text',
    { ...valid, messages: [{ role: 'user', content: [{ type: 'text' }] }] },
    'messages.0.content.0.text: Field required',
  ],
  [
    'an image without a source',
    { ...valid, messages: [{ role: 'user', content: [{ type: 'image' }] }] },
    'messages.0.content.0.source: Field required',
  ],
  [
    'tool_use input a string',
    {
      ...valid,
      messages: [USER[0], { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: '{}' }] }],
    },
    'messages.1.content.0.input: Input should be a valid dictionary',
  ],
  [
    'tool_result without its id',
    { ...valid, messages: [{ role: 'user', content: [{ type: 'tool_result', content: 'x' }] }] },
    'messages.0.content.0.tool_use_id: Field required',
  ],
  [
    'a bad block inside a tool_result',
    {
      ...valid,
      messages: [
        ...TOOL_TURN,
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 1 }] }] },
      ],
    },
    'messages.2.content.0.content.0.text: Input should be a valid string',
  ],
  [
    'thinking without a signature',
    { ...valid, messages: [USER[0], { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm' }] }] },
    'messages.1.content.0.signature: Field required',
  ],
  ['system a number', { ...valid, system: 1 }, 'system: Input should be a valid string or a valid list'],
  [
    'a system block that is not text',
    { ...valid, system: [{ type: 'image', text: 'x' }] },
    "system.0.type: Input should be 'text'",
  ],
  ['temperature above 1', { ...valid, temperature: 1.5 }, 'temperature: Input should be less than or equal to 1'],
  ['temperature below 0', { ...valid, temperature: -0.1 }, 'temperature: Input should be greater than or equal to 0'],
  ['top_p above 1', { ...valid, top_p: 2 }, 'top_p: Input should be less than or equal to 1'],
  ['top_k negative', { ...valid, top_k: -1 }, 'top_k: Input should be greater than or equal to 0'],
  ['stop_sequences a string', { ...valid, stop_sequences: 'END' }, 'stop_sequences: Input should be a valid list'],
  [
    'too many stop_sequences',
    { ...valid, stop_sequences: Array.from({ length: 17 }, (_, i) => `s${i}`) },
    'stop_sequences: List should have at most 16 items, not 17',
  ],
  ['stream a string', { ...valid, stream: 'yes' }, 'stream: Input should be a valid boolean'],
  [
    'a tool without a name',
    { ...valid, tools: [{ input_schema: { type: 'object' } }] },
    'tools.0.name: Field required',
  ],
  [
    'a tool name with spaces',
    { ...valid, tools: [{ ...tool, name: 'get weather' }] },
    "tools.0.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
  ],
  ['a custom tool without input_schema', { ...valid, tools: [{ name: 'f' }] }, 'tools.0.input_schema: Field required'],
  [
    'an input_schema that is not an object schema',
    { ...valid, tools: [{ name: 'f', input_schema: { type: 'array' } }] },
    "tools.0.input_schema.type: Input should be 'object'",
  ],
  [
    'two tools of one name',
    { ...valid, tools: [tool, tool] },
    "tools.1.name: Tool names must be unique; 'get_weather' is used twice",
  ],
  [
    'too many tools',
    { ...valid, tools: Array.from({ length: 129 }, (_, i) => ({ ...tool, name: `t${i}` })) },
    'tools: List should have at most 128 items, not 129',
  ],
  [
    'tool_choice of an unknown type',
    { ...valid, tools: [tool], tool_choice: { type: 'required' } },
    "tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'",
  ],
  [
    'tool_choice tool without a name',
    { ...valid, tools: [tool], tool_choice: { type: 'tool' } },
    'tool_choice.name: Field required',
  ],
  [
    'tool_choice naming no tool',
    { ...valid, tools: [tool], tool_choice: { type: 'tool', name: 'nope' } },
    "tool_choice.name: No tool named 'nope' in tools",
  ],
  [
    'tool_choice any without tools',
    { ...valid, tool_choice: { type: 'any' } },
    "tool_choice: tool_choice 'any' needs tools; none are given",
  ],
  [
    'thinking enabled without a budget',
    { ...valid, max_tokens: 4096, thinking: { type: 'enabled' } },
    'thinking.budget_tokens: Field required',
  ],
  [
    'a thinking budget below 1024',
    { ...valid, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1000 } },
    'thinking.budget_tokens: Input should be greater than or equal to 1024',
  ],
  [
    'a thinking budget not below max_tokens',
    { ...valid, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 2048 } },
    'max_tokens: Input should be greater than thinking.budget_tokens (2048)',
  ],
  [
    'thinking of an unknown type',
    { ...valid, thinking: { type: 'on' } },
    "thinking.type: Input should be 'enabled', 'disabled', 'adaptive' or 'between_tools'",
  ],
  [
    'metadata.user_id a number',
    { ...valid, metadata: { user_id: 7 } },
    'metadata.user_id: Input should be a valid string or null',
  ],
  // Every walk after parsing recurses (the estimate's JSON.stringify overflowed the stack: a 500); JSON.parse itself
  // takes any depth.
  [
    'a tool_use input nested past 128 levels',
    {
      ...valid,
      messages: [
        ...TOOL_TURN.slice(0, 1),
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: nested(5_000) }] },
      ],
    },
    'messages.1.content.0.input: Input should not nest objects and lists more than 128 levels deep',
  ],
  [
    'an input_schema nested past 128 levels',
    { ...valid, tools: [{ name: 'f', input_schema: { type: 'object', properties: nested(5_000) } }] },
    'tools.0.input_schema.properties.a: Input should not nest',
  ],
  ['metadata nested past 128 levels', { ...valid, metadata: nested(200) }, 'metadata.a.a.a.a: Input should not nest'],
  // Anthropic's pairing of tool calls and results (OpenAI's API requires the same); echo answered these with an empty
  // 200.
  [
    'two tool_use blocks of one id',
    {
      ...valid,
      messages: [
        USER[0],
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 't', name: 'f', input: {} },
            { type: 'tool_use', id: 't', name: 'f', input: {} },
          ],
        },
      ],
    },
    "messages.1.content.1.id: tool_use ids must be unique; 't' is used twice",
  ],
  [
    'a tool_result for an unknown id',
    { ...valid, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'nope', content: 'x' }] }] },
    "messages.0.content.0.tool_use_id: unexpected tool_use_id 'nope'",
  ],
  [
    'a tool_result for a tool_use two messages back',
    {
      ...valid,
      messages: [
        ...TOOL_TURN,
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] },
      ],
    },
    "messages.4.content.0.tool_use_id: unexpected tool_use_id 't'",
  ],
  [
    'a tool_use left without its tool_result',
    { ...valid, messages: [...TOOL_TURN, { role: 'user', content: 'and?' }] },
    "messages.2.content: tool_use id 't' of messages.1 has no tool_result block here",
  ],
  [
    'an empty content list',
    { ...valid, messages: [{ role: 'user', content: [] }] },
    'messages.0.content: all messages must have non-empty content except for the optional final assistant message',
  ],
  [
    'an empty content string',
    { ...valid, messages: [{ role: 'user', content: '' }] },
    'messages.0.content: all messages must have non-empty content',
  ],
  [
    'an empty assistant turn before the last',
    { ...valid, messages: [USER[0], { role: 'assistant', content: [] }, USER[0]] },
    'messages.1.content: all messages must have non-empty content',
  ],
]

/** What a model served through OpenAI's form cannot take: a 400 naming the field, never a silent drop. */
const UNTRANSLATABLE: [name: string, body: Record<string, unknown>, field: string][] = [
  ['top_k', { ...valid, top_k: 5 }, 'top_k'],
  ['a field Trellis does not model', { ...valid, temperature_schedule: 'warm' }, 'temperature_schedule'],
  ['a server tool', { ...valid, tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, 'tools.0.type'],
  [
    'a document block',
    {
      ...valid,
      messages: [
        {
          role: 'user',
          content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } }],
        },
      ],
    },
    'messages.0.content.0.type',
  ],
  [
    'an image by file id',
    { ...valid, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'f_1' } }] }] },
    'messages.0.content.0.source',
  ],
  [
    'an image inside a tool_result',
    {
      ...valid,
      messages: [
        ...TOOL_TURN,
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't',
              content: [{ type: 'image', source: { type: 'url', url: 'https://x/y.png' } }],
            },
          ],
        },
      ],
    },
    'messages.2.content.0.content.0.type',
  ],
  [
    'a block type Trellis does not model',
    {
      ...valid,
      messages: [{ role: 'user', content: [{ type: 'search_result', source: 's', title: 't', content: [] }] }],
    },
    'messages.0.content.0.type',
  ],
  [
    'a tool_use block in a user message',
    { ...valid, messages: [{ role: 'user', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] }] },
    'messages.0.content.0.type',
  ],
]

describe('a bad body is a 400 invalid_request_error naming the field, as Anthropic words it', () => {
  for (const [name, body, message] of BAD_BODIES) {
    test(name, async () => {
      const response = await messages(body)
      expect(response.status).toBe(400)
      const answer = await response.json()
      expect(answer).toEqual({
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.any(String) },
        request_id: response.headers.get('request-id'),
      })
      expect(answer.error.message).toStartWith(message)
    })
  }

  test('a number too large to represent (JSON.parse reads it as Infinity)', async () => {
    const response = await messages(undefined, {
      raw: '{"model":"echo","max_tokens":16,"messages":[{"role":"user","content":"hi"}],"temperature":1e999}',
    })
    expect(response.status).toBe(400)
    expect((await response.json()).error.message).toBe('temperature: Input should be a finite number')
  })

  test('count_tokens validates the same prompt rules, and needs no max_tokens', async () => {
    const counted = await messages({ model: 'echo', messages: USER }, { path: '/v1/messages/count_tokens' })
    expect(counted.status).toBe(200)
    expect(await counted.json()).toEqual({ input_tokens: 2 })
    const refused = await messages({ model: 'echo', messages: [] }, { path: '/v1/messages/count_tokens' })
    expect(refused.status).toBe(400)
    expect((await refused.json()).error.message).toBe('messages: List should have at least 1 item, not 0')
  })

  test('fields Trellis does not model are accepted by validation (they reach a native Anthropic provider as they are)', async () => {
    const response = await messages({
      ...valid,
      service_tier: 'auto',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }],
    })
    expect(response.status).toBe(200)
  })
})

describe("what a model served through OpenAI's form cannot take is a 400 naming the field", () => {
  for (const [name, body, field] of UNTRANSLATABLE) {
    test(name, async () => {
      const response = await messages(body)
      expect(response.status).toBe(400)
      const { error } = await response.json()
      expect(error.type).toBe('invalid_request_error')
      expect(error.message).toStartWith(
        `${field}: not supported by model 'echo', which is not served by an Anthropic provider`,
      )
    })
  }
})

describe("what a model served through OpenAI's form is sent", () => {
  // Earlier thinking went upstream as reasoning_content, which DeepSeek refuses with a 400 in input messages.
  test("earlier thinking and redacted_thinking blocks are left out; a failed tool_result's text starts with 'Error: '", async () => {
    const response = await messages({
      ...valid,
      model: 'recorder',
      messages: [
        USER[0],
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'I should look it up', signature: 'sig' },
            { type: 'redacted_thinking', data: 'opaque' },
            { type: 'text', text: 'Looking.' },
            { type: 'tool_use', id: 't', name: 'f', input: { q: 1 } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 't', content: 'no such thing', is_error: true }],
        },
      ],
    })
    expect(response.status).toBe(200)
    expect(sent.at(-1)?.messages).toEqual([
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: 'Looking.',
        tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{"q":1}' } }],
      },
      { role: 'tool', tool_call_id: 't', content: 'Error: no such thing' },
    ])
  })
})

describe("every other failure of these routes is in Anthropic's shape, with request-id", () => {
  const FAILURES: [name: string, send: () => Promise<Response>, status: number, type: string, message: string][] = [
    [
      'no credentials',
      () => t.app.handle(new Request('http://localhost/v1/messages', { method: 'POST', body: '{}' })),
      401,
      'authentication_error',
      'missing credentials',
    ],
    [
      'an unknown x-api-key',
      () => messages(valid, { headers: { 'x-api-key': 'sk-ant-api03-not-ours' } }),
      401,
      'authentication_error',
      'the token is unknown',
    ],
    [
      'an x-api-key that cannot be a token',
      () => messages(valid, { headers: { 'x-api-key': 'not a token' } }),
      401,
      'authentication_error',
      'the x-api-key is not a token',
    ],
    [
      'both x-api-key and Authorization',
      () => messages(valid, { headers: { authorization: `Bearer ${t.token}` } }),
      400,
      'invalid_request_error',
      'send one credential',
    ],
    [
      'a token without the chat scope',
      async () => messages(valid, { headers: { 'x-api-key': await t.tokenFor('gardener', ['plants:read']) } }),
      403,
      'permission_error',
      'lacks the "chat" scope',
    ],
    [
      'an unknown model',
      () => messages({ ...valid, model: 'claude-9' }),
      404,
      'not_found_error',
      'The model `claude-9` does not exist',
    ],
    [
      'a body above BODY_LIMIT',
      () => messages({ ...valid, messages: [{ role: 'user', content: 'x'.repeat(70_000) }] }),
      413,
      'request_too_large',
      'larger than the limit',
    ],
    [
      'a body that is not declared JSON',
      () => messages(valid, { headers: { 'content-type': 'text/plain' } }),
      415,
      'invalid_request_error',
      'Content-Type must be application/json',
    ],
    [
      'a body that is not JSON',
      () => messages(undefined, { raw: '{"model":' }),
      400,
      'invalid_request_error',
      'The request body is not valid JSON.',
    ],
    [
      'a body that is an array',
      () => messages([valid]),
      400,
      'invalid_request_error',
      'Input should be a valid dictionary',
    ],
    [
      'a method the route does not take',
      () => t.app.handle(new Request('http://localhost/v1/messages', { headers: { 'x-api-key': t.token } })),
      405,
      'invalid_request_error',
      'GET is not allowed on /v1/messages',
    ],
    [
      'a path under /v1/messages that does not exist',
      () => messages(valid, { path: '/v1/messages/batches' }),
      404,
      'not_found_error',
      'Invalid URL',
    ],
  ]
  for (const [name, send, status, type, message] of FAILURES) {
    test(`${name}: ${status} ${type}`, async () => {
      const response = await send()
      expect(response.status).toBe(status)
      expect(response.headers.get('content-type')).toBe('application/json')
      const requestId = response.headers.get('request-id')
      expect(requestId).toBe(response.headers.get('x-request-id'))
      const body = await response.json()
      expect(body).toEqual({
        type: 'error',
        error: { type, message: expect.stringContaining(message) },
        request_id: requestId,
      })
    })
  }

  test('a 401 still says how to authenticate (WWW-Authenticate)', async () => {
    const response = await t.app.handle(new Request('http://localhost/v1/messages', { method: 'POST', body: '{}' }))
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="trellis"')
  })
})
