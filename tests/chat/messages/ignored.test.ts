/**
 * The rule for `/v1/messages` on a model served through OpenAI's form: a field that cannot change
 * the content of the answer is accepted, ignored and named in `x-trellis-ignored`; one that would
 * change it and cannot be translated is a 400 naming it. A native Anthropic provider gets every
 * field as sent, and nothing is named. What is translated arrives upstream in OpenAI's words.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createEchoProvider } from '../../../src/chat/providers/echo/echo'
import type { ChatProvider, ChatRequest, JsonObject } from '../../../src/chat/providers/provider'
import { ignoredHeader } from '../../../src/chat/ignored'
import { SETUP_TIMEOUT } from '../../helpers/app'
import { makeChatApp, readAll, registryOf } from '../chat-app'

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

/** What a native Anthropic provider was sent. */
const native: JsonObject[] = []
const anthropic: ChatProvider = {
  ...recorder,
  name: 'anthropic:fake',
  messages: {
    complete: async (request) => {
      native.push(request)
      return { id: 'msg_n', type: 'message', role: 'assistant', model: 'up', content: [], stop_reason: 'end_turn' }
    },
    streamEvents: async function* () {
      throw new Error('not used')
    },
    countTokens: async () => ({ input_tokens: 1 }),
  },
}

let t: Awaited<ReturnType<typeof makeChatApp>>
beforeAll(async () => {
  const echo = createEchoProvider()
  t = await makeChatApp({
    chat: { registry: registryOf({ echo, 'echo-reasoner': echo, recorder, claude: anthropic }), keepAliveMs: 15_000 },
  })
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const messages = (body: Record<string, unknown>) =>
  t.app.handle(
    new Request('http://localhost/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.token },
      body: JSON.stringify({ model: 'echo', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], ...body }),
    }),
  )

const tool = (extra: Record<string, unknown> = {}) => ({
  name: 'get_weather',
  input_schema: { type: 'object', properties: { city: { type: 'string' } } },
  ...extra,
})
const ephemeral = { type: 'ephemeral' }

/** One row per ignored field: the fields added to a plain request, and the header that must name them. */
const IGNORED: [name: string, fields: Record<string, unknown>, header: string][] = [
  [
    'context_management (Claude Code)',
    { context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] } },
    'context_management',
  ],
  ['cache_control on the request', { cache_control: ephemeral }, 'cache_control'],
  [
    'cache_control on system blocks, named once',
    {
      system: [
        { type: 'text', text: 'a', cache_control: ephemeral },
        { type: 'text', text: 'b', cache_control: ephemeral },
      ],
    },
    'cache_control',
  ],
  [
    'cache_control on a text block',
    { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: ephemeral }] }] },
    'cache_control',
  ],
  [
    'cache_control on a tool_result (Claude Code)',
    {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'get_weather', input: {} }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 't', content: 'sun', cache_control: ephemeral }],
        },
      ],
      tools: [tool()],
    },
    'cache_control',
  ],
  ['cache_control on a tool', { tools: [tool({ cache_control: ephemeral })] }, 'cache_control'],
  ['container: null', { container: null }, 'container'],
  ['mcp_servers: []', { mcp_servers: [] }, 'mcp_servers'],
  ['inference_geo', { inference_geo: 'us' }, 'inference_geo'],
  ['speed', { speed: 'fast' }, 'speed'],
  ['service_tier', { service_tier: 'standard_only' }, 'service_tier'],
  ['diagnostics', { diagnostics: { previous_message_id: null } }, 'diagnostics'],
  [
    'safeguards (Claude Code in auto mode)',
    { safeguards: [{ type: 'dangerous_tool_use', classifier_context: { v: 1 } }] },
    'safeguards',
  ],
  ['thread: null', { thread: null }, 'thread'],
  ['metadata beside user_id', { metadata: { user_id: 'u', tenant: 'x' } }, 'metadata.tenant'],
  ['thinking.display summarized', { thinking: { type: 'adaptive', display: 'summarized' } }, 'thinking.display'],
  [
    "thinking.display updates (Claude Code's TUI)",
    { thinking: { type: 'adaptive', display: 'updates' } },
    'thinking.display',
  ],
  [
    'defer_loading on a tool',
    { tools: [tool(), tool({ name: 'later', defer_loading: true })] },
    'tools[1].defer_loading',
  ],
  [
    'eager_input_streaming on a tool',
    { tools: [tool({ eager_input_streaming: true })] },
    'tools[0].eager_input_streaming',
  ],
  ["allowed_callers: ['direct']", { tools: [tool({ allowed_callers: ['direct'] })] }, 'tools[0].allowed_callers'],
  [
    'several at once, each named once in the order met',
    {
      context_management: { edits: [] },
      cache_control: ephemeral,
      system: [{ type: 'text', text: 'a', cache_control: ephemeral }],
      tools: [tool({ defer_loading: true, cache_control: ephemeral })],
    },
    'context_management, cache_control, tools[0].defer_loading',
  ],
]

/** Requests with nothing ignored: no header at all. */
const NOTHING_IGNORED: [name: string, fields: Record<string, unknown>][] = [
  ['a plain request', {}],
  // Claude Code's user_id is a JSON string; it becomes OpenAI's `user`.
  ['metadata with user_id only', { metadata: { user_id: '{"device_id":"d","session_id":"s"}' } }],
  ['thinking.display omitted, which is honoured', { thinking: { type: 'adaptive', display: 'omitted' } }],
  ['output_config, which is translated', { output_config: { effort: 'high' } }],
]

/** One row per field that would change the answer: what is sent, and the field the 400 names. */
const REFUSED: [name: string, fields: Record<string, unknown>, field: string][] = [
  ['top_k', { top_k: 5 }, 'top_k'],
  ['a container id', { container: 'container_1' }, 'container'],
  ['container params with skills', { container: { skills: [{ skill_id: 'pdf', type: 'anthropic' }] } }, 'container'],
  ['an MCP server', { mcp_servers: [{ type: 'url', url: 'https://mcp.example/sse', name: 'x' }] }, 'mcp_servers'],
  ['a thread to create', { thread: { type: 'create' } }, 'thread'],
  ['a thread to continue', { thread: { type: 'continue', previous_message_id: 'msg_1' } }, 'thread'],
  ['a field Trellis does not model', { temperature_schedule: 'warm' }, 'temperature_schedule'],
  ["a tool's input_examples", { tools: [tool({ input_examples: [{ city: 'Lisbon' }] })] }, 'tools.0.input_examples'],
  [
    "a tool callable from Anthropic's code execution",
    { tools: [tool({ allowed_callers: ['code_execution_20250825'] })] },
    'tools.0.allowed_callers',
  ],
  ['a tool field Trellis does not model', { tools: [tool({ frobnicate: true })] }, 'tools.0.frobnicate'],
  ['an output_config field Trellis does not model', { output_config: { task_budget: 5 } }, 'output_config.task_budget'],
  ['an effort Anthropic has not', { output_config: { effort: 'extreme' } }, 'output_config.effort'],
  [
    'an output format other than json_schema',
    { output_config: { format: { type: 'json_object' } } },
    'output_config.format.type',
  ],
  [
    'a json_schema format whose schema is not an object',
    { output_config: { format: { type: 'json_schema', schema: 'x' } } },
    'output_config.format.schema',
  ],
  ['the beta output_format of another type', { output_format: { type: 'text' } }, 'output_format.type'],
]

describe('a field that cannot change the answer is accepted and named in x-trellis-ignored', () => {
  for (const [name, fields, header] of IGNORED) {
    test(name, async () => {
      const response = await messages(fields)
      expect(response.status).toBe(200)
      expect(response.headers.get('x-trellis-ignored')).toBe(header)
    })
  }

  for (const [name, fields] of NOTHING_IGNORED) {
    test(`${name}: no header`, async () => {
      const response = await messages(fields)
      expect(response.status).toBe(200)
      expect(response.headers.has('x-trellis-ignored')).toBe(false)
    })
  }

  test('the header is on a stream too, sent with its first byte', async () => {
    const response = await messages({ stream: true, context_management: { edits: [] }, speed: 'fast' })
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    expect(response.headers.get('x-trellis-ignored')).toBe('context_management, speed')
    expect(await readAll(response)).toContain('event: message_stop')
  })

  test('a native Anthropic provider is sent every field as it came, and nothing is named', async () => {
    const fields = {
      container: 'container_1',
      mcp_servers: [{ type: 'url', url: 'https://mcp.example/sse', name: 'x' }],
      context_management: { edits: [] },
      top_k: 5,
      // Claude Code's system turn, forwarded where it stands.
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'system', content: [{ type: 'text', text: 'env', cache_control: ephemeral }] },
      ],
    }
    const response = await messages({ model: 'claude', ...fields })
    expect(response.status).toBe(200)
    expect(response.headers.has('x-trellis-ignored')).toBe(false)
    expect(native.at(-1)).toMatchObject({ model: 'claude', ...fields })
  })
})

describe('a field that would change the answer and cannot be translated is a 400 naming it', () => {
  for (const [name, fields, field] of REFUSED) {
    test(name, async () => {
      const response = await messages(fields)
      expect(response.status).toBe(400)
      const { error } = await response.json()
      expect(error.type).toBe('invalid_request_error')
      expect(error.message).toStartWith(
        `${field}: not supported by model 'echo', which is not served by an Anthropic provider`,
      )
    })
  }
})

describe("what is translated arrives upstream in OpenAI's words", () => {
  const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] }
  const lastSent = async (fields: Record<string, unknown>) => {
    const response = await messages({ model: 'recorder', ...fields })
    expect(response.status).toBe(200)
    return sent.at(-1) as JsonObject
  }

  test('output_config: format as a strict json_schema response_format, effort as reasoning_effort', async () => {
    const request = await lastSent({ output_config: { effort: 'high', format: { type: 'json_schema', schema } } })
    expect(request.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'output', schema, strict: true },
    })
    expect(request.reasoning_effort).toBe('high')
  })

  const EFFORTS: [effort: string, sent: string][] = [
    ['low', 'low'],
    ['medium', 'medium'],
    ['high', 'high'],
    ['xhigh', 'xhigh'],
    ['max', 'xhigh'],
  ]
  for (const [effort, expected] of EFFORTS)
    test(`effort ${effort} is reasoning_effort ${expected}`, async () => {
      expect((await lastSent({ output_config: { effort } })).reasoning_effort).toBe(expected)
    })

  test("the beta's output_format (LangChain) is the same response_format", async () => {
    const request = await lastSent({ output_format: { type: 'json_schema', schema } })
    expect(request.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'output', schema, strict: true },
    })
  })

  test('adaptive thinking, and null output_config members, send no reasoning_effort of their own', async () => {
    const request = await lastSent({ thinking: { type: 'adaptive' }, output_config: { effort: null, format: null } })
    expect('reasoning_effort' in request).toBe(false)
    expect('response_format' in request).toBe(false)
  })

  test("a deferred tool is sent whole; a tool's strict is the function's", async () => {
    const request = await lastSent({ tools: [tool({ defer_loading: true, strict: true })] })
    expect(request.tools).toEqual([
      {
        type: 'function',
        function: { name: 'get_weather', parameters: tool().input_schema, strict: true },
      },
    ])
  })

  test("Claude Code's system turns are system messages at their place (string or blocks)", async () => {
    const request = await lastSent({
      system: 'top',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'system', content: [{ type: 'text', text: 'env', cache_control: ephemeral }] },
        { role: 'assistant', content: 'hello' },
        { role: 'system', content: 'again' },
        { role: 'user', content: 'bye' },
      ],
    })
    expect(request.messages).toEqual([
      { role: 'system', content: 'top' },
      { role: 'user', content: 'hi' },
      { role: 'system', content: [{ type: 'text', text: 'env' }] },
      { role: 'assistant', content: 'hello' },
      { role: 'system', content: 'again' },
      { role: 'user', content: 'bye' },
    ])
  })

  test('a system turn between tool calls and their results comes after the results (OpenAI wants them adjacent)', async () => {
    const request = await lastSent({
      tools: [tool()],
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'get_weather', input: {} }] },
        { role: 'system', content: 'note' },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'sun' }] },
      ],
    })
    expect(request.messages).toEqual([
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 't', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 't', content: 'sun' },
      { role: 'system', content: 'note' },
    ])
  })

  test("Claude Code's JSON-string user_id is OpenAI's user", async () => {
    const user_id = '{"device_id":"d","account_uuid":"","session_id":"s"}'
    expect((await lastSent({ metadata: { user_id } })).user).toBe(user_id)
  })
})

describe('thinking.display omitted is honoured: the thinking block comes without its text', () => {
  const ask = {
    model: 'echo-reasoner',
    max_tokens: 2048,
    thinking: { type: 'adaptive', display: 'omitted' },
  }

  test('in a whole message', async () => {
    const message = await (await messages(ask)).json()
    expect(message.content).toEqual([
      { type: 'thinking', thinking: '', signature: '' },
      { type: 'text', text: 'hi', citations: null },
    ])
  })

  test('in a stream: the block opens and closes with no thinking_delta', async () => {
    const body = await readAll(await messages({ ...ask, stream: true }))
    expect(body).toContain('"content_block":{"type":"thinking","thinking":"","signature":""}')
    expect(body).not.toContain('thinking_delta')
    expect(body).toContain('"text":"hi"')
  })
})

describe('ignoredHeader', () => {
  test('nothing ignored is no header', () => expect(ignoredHeader([])).toEqual({}))
  test('names once each, in order, comma and space', () =>
    expect(ignoredHeader(['a', 'b', 'a', 'c'])).toEqual({ 'x-trellis-ignored': 'a, b, c' }))
  test('past 32 names, the last says how many more', () => {
    const names = Array.from({ length: 40 }, (_, i) => `tools[${i}].defer_loading`)
    const listed = ignoredHeader(names)['x-trellis-ignored']!.split(', ')
    expect(listed).toHaveLength(32)
    expect(listed.at(-2)).toBe('tools[30].defer_loading')
    expect(listed.at(-1)).toBe('and 9 more')
  })
})
