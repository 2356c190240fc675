/**
 * What a model that does not speak the Responses API is sent: the request in Chat Completions form
 * (the rows below), what cannot change the answer accepted and named in `x-trellis-ignored`, what
 * would change it and cannot be honoured refused with a 400 naming it, and a provider's complaint
 * about a chat parameter named by the Responses parameter it came from. A provider that speaks the
 * Responses API gets the body as it came, `model` rewritten.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { CLIENT_HEADERS, ProviderError, type ChatProvider, type JsonObject } from '../../../src/chat/providers/provider'
import { SETUP_TIMEOUT } from '../../helpers/app'
import { registryOf } from '../chat-app'
import { makeResponsesApp, scripted } from './responses-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const recorder = scripted('recorder')
const caller = scripted('caller', [], {
  role: 'assistant',
  content: null,
  tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'agents__spawn', arguments: '{"n":1}' } }],
})
const refusing = scripted('refusing', [
  new ProviderError(400, 'max_completion_tokens: too many for this model', { param: 'max_completion_tokens' }),
])
const toolRefusing = scripted('tool-refusing', [new ProviderError(400, 'bad tool', { param: 'tools[1].function' })])
const nativeSent: JsonObject[] = []
const native: ChatProvider = {
  ...scripted('native'),
  responses: {
    complete: async (request) => {
      nativeSent.push(request)
      return { id: 'resp_upstream1', object: 'response', output: [], model: request.model }
    },
    streamEvents: async function* () {
      yield new TextEncoder().encode('event: response.created\ndata: {}\n\n')
    },
  },
}

let t: Awaited<ReturnType<typeof makeResponsesApp>>
beforeAll(async () => {
  const registry = registryOf({
    recorder,
    caller,
    refusing,
    'tool-refusing': toolRefusing,
    native,
  })
  t = await makeResponsesApp({ chat: { registry, keepAliveMs: 15_000 } })
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

/** The chat request the recorder was sent for `body` (which must be answered 200). */
async function sentFor(body: Record<string, unknown>): Promise<JsonObject & { messages: JsonObject[] }> {
  const response = await t.respond({ model: 'recorder', store: false, ...body })
  expect({ status: response.status, body: response.status === 200 ? 'ok' : await response.json() }).toEqual({
    status: 200,
    body: 'ok',
  })
  return recorder.sent.at(-1) as JsonObject & { messages: JsonObject[] }
}

const weather = { type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object' } }
const spawn = { type: 'function', name: 'spawn', strict: false, parameters: { type: 'object' } }

describe('the conversation as chat messages', () => {
  test('instructions come first as a system message, a string input as a user message', async () => {
    const sent = await sentFor({ instructions: 'Be terse.', input: 'Hello' })
    expect(sent.messages).toEqual([
      { role: 'system', content: 'Be terse.' },
      { role: 'user', content: [{ type: 'text', text: 'Hello' }] },
    ])
  })

  test('every kind of item, as Codex, the AI SDK and the Agents SDK send them', async () => {
    const sent = await sentFor({
      input: [
        { type: 'message', id: 'msg_codex-1', role: 'developer', content: [{ type: 'input_text', text: 'rules' }] },
        { role: 'system', content: 'You are terse.' },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Look:' },
            { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'low' },
            { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'original' },
          ],
        },
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' },
        { role: 'assistant', content: [{ type: 'output_text', text: 'Calling.', annotations: [] }] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        {
          type: 'function_call',
          call_id: 'call_2',
          name: 'spawn',
          namespace: 'agents',
          arguments: '{}',
          status: 'completed',
        },
        { type: 'function_call_output', call_id: 'call_1', output: '21C' },
        {
          type: 'function_call_output',
          call_id: 'call_2',
          output: [
            { type: 'input_text', text: 'spawned' },
            { type: 'input_text', text: 'agent 7' },
          ],
          status: 'completed',
        },
        { type: 'message', role: 'assistant', content: 'Done.', status: 'completed', phase: 'final_answer' },
      ],
    })
    expect(sent.messages).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'rules' }] },
      { role: 'system', content: [{ type: 'text', text: 'You are terse.' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look:' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Calling.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_2', type: 'function', function: { name: 'agents__spawn', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '21C' },
      { role: 'tool', tool_call_id: 'call_2', content: 'spawned\nagent 7' },
      { role: 'assistant', content: 'Done.' },
    ])
  })

  test('a function call with no assistant text before it is an assistant message of its own', async () => {
    const sent = await sentFor({
      input: [
        { role: 'user', content: 'hi' },
        { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c', output: 'ok' },
      ],
    })
    expect(sent.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c', content: 'ok' },
    ])
  })
})

describe('the options, translated', () => {
  test('each option in its chat form; metadata, store and previous_response_id are not sent', async () => {
    const sent = await sentFor({
      input: 'hi',
      tools: [weather],
      parallel_tool_calls: false,
      tool_choice: { type: 'function', name: 'get_weather' },
      text: {
        format: { type: 'json_schema', name: 'city', schema: { type: 'object' }, strict: true },
        verbosity: 'low',
      },
      reasoning: { effort: 'high' },
      max_output_tokens: 64,
      temperature: 0.5,
      top_p: 0.9,
      user: 'u-1',
      safety_identifier: 'hashed-user',
      metadata: { trace: 't-1' },
    })
    const { messages: _messages, ...options } = sent
    expect(options).toEqual({
      model: 'recorder',
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object' } },
        },
      ],
      parallel_tool_calls: false,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'city', schema: { type: 'object' }, strict: true },
      },
      verbosity: 'low',
      reasoning_effort: 'high',
      max_completion_tokens: 64,
      temperature: 0.5,
      top_p: 0.9,
      user: 'u-1',
      safety_identifier: 'hashed-user',
      // The client's headers ride along under a symbol, which JSON never carries upstream.
      [CLIENT_HEADERS]: expect.any(Headers),
    })
  })

  test('json_object is response_format json_object; a stream asks the upstream for its usage', async () => {
    expect((await sentFor({ input: 'hi', text: { format: { type: 'json_object' } } })).response_format).toEqual({
      type: 'json_object',
    })
    await t.respond({ model: 'recorder', input: 'hi', stream: true, store: false }).then((r) => r.text())
    expect(recorder.sent.at(-1)).toMatchObject({ stream: true, stream_options: { include_usage: true } })
  })

  test("a namespace's functions are flattened to <namespace>__<name>, and a call of one comes back with its namespace", async () => {
    const sent = await sentFor({
      input: 'hi',
      tools: [weather, { type: 'namespace', name: 'agents', description: 'Agents', tools: [spawn] }],
    })
    expect((sent.tools as { function: { name: string } }[]).map((tool) => tool.function.name)).toEqual([
      'get_weather',
      'agents__spawn',
    ])
    const response = await t.respond({
      model: 'caller',
      input: 'hi',
      store: false,
      tools: [{ type: 'namespace', name: 'agents', description: 'Agents', tools: [spawn] }],
    })
    const call = (await response.json()).output.find((item: JsonObject) => item.type === 'function_call')
    expect(call).toMatchObject({
      type: 'function_call',
      call_id: 'call_9',
      namespace: 'agents',
      name: 'spawn',
      arguments: '{"n":1}',
    })
  })

  test('allowed_tools offers only the tools it names, with its mode', async () => {
    const sent = await sentFor({
      input: 'hi',
      tools: [weather, spawn],
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'spawn' }] },
    })
    expect(sent.tool_choice).toBe('required')
    expect((sent.tools as { function: { name: string } }[]).map((tool) => tool.function.name)).toEqual(['spawn'])
  })
})

describe('what cannot change the answer is accepted, not sent, and named in x-trellis-ignored', () => {
  test('Codex’s request: hosted tools, include, prompt_cache_key, client_metadata, reasoning.summary', async () => {
    const response = await t.respond({
      model: 'recorder',
      input: 'hi',
      store: false,
      tools: [weather, { type: 'web_search', external_web_access: true }, { type: 'tool_search', execution: 'client' }],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      reasoning: { summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'session-1',
      client_metadata: { thread_id: 't' },
      service_tier: 'flex',
      truncation: 'auto',
      top_logprobs: 2,
      context_management: [{ type: 'compaction', compact_threshold: 100000 }],
      max_tool_calls: 3,
      stream_options: { include_obfuscation: true },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('x-trellis-ignored')).toBe(
      'include, prompt_cache_key, client_metadata, service_tier, truncation, top_logprobs, context_management, ' +
        'max_tool_calls, stream_options, tools[1], tools[2], reasoning.summary',
    )
    const sent = recorder.sent.at(-1)!
    expect((sent.tools as unknown[]).length).toBe(1)
    for (const field of ['include', 'prompt_cache_key', 'client_metadata', 'service_tier', 'truncation'])
      expect(sent).not.toHaveProperty(field)
  })

  test('their values that ask for nothing are not named; a request that ignores nothing has no header', async () => {
    const response = await t.respond({
      model: 'recorder',
      input: 'hi',
      store: false,
      include: [],
      service_tier: 'auto',
      truncation: 'disabled',
      top_logprobs: 0,
      stream_options: { include_obfuscation: false },
      background: false,
      conversation: null,
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('x-trellis-ignored')).toBeNull()
  })

  test('with only hosted tools, tool_choice auto is dropped along with them', async () => {
    const sent = await sentFor({ input: 'hi', tools: [{ type: 'web_search' }], tool_choice: 'auto' })
    expect(sent).not.toHaveProperty('tools')
    expect(sent).not.toHaveProperty('tool_choice')
  })
})

const weatherCall = { type: 'function_call', call_id: 'c', name: 'get_weather', arguments: '{}' }

/** One row per request a chat model cannot honour: the body, the `param` named. */
const REFUSED: [name: string, body: Record<string, unknown>, param: string][] = [
  ['a conversation', { conversation: 'conv_1' }, 'conversation'],
  ['a prompt template', { prompt: { id: 'pmpt_1' } }, 'prompt'],
  ['moderation', { moderation: { model: 'omni-moderation-latest' } }, 'moderation'],
  ['a field Trellis does not know', { frobnicate: true }, 'frobnicate'],
  ['a custom (freeform) tool', { tools: [weather, { type: 'custom', name: 'apply_patch' }] }, 'tools[1]'],
  ['a tool type nobody knows', { tools: [{ type: 'teleport' }] }, 'tools[0].type'],
  [
    'a custom tool inside a namespace',
    { tools: [{ type: 'namespace', name: 'ns', description: 'd', tools: [{ type: 'custom', name: 'x' }] }] },
    'tools[0].tools[0]',
  ],
  [
    'a namespaced name past 64 characters',
    {
      tools: [
        { type: 'namespace', name: 'n'.repeat(40), description: 'd', tools: [{ ...spawn, name: 's'.repeat(30) }] },
      ],
    },
    'tools[0].tools[0].name',
  ],
  [
    'a namespaced name that another tool has',
    {
      tools: [
        { ...spawn, name: 'ns__spawn' },
        { type: 'namespace', name: 'ns', description: 'd', tools: [spawn] },
      ],
    },
    'tools[1].tools[0].name',
  ],
  [
    'forcing a hosted tool',
    { tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search_preview' } },
    'tool_choice',
  ],
  ['required with only hosted tools', { tools: [{ type: 'web_search' }], tool_choice: 'required' }, 'tool_choice'],
  [
    'forcing a function there is not',
    { tools: [weather], tool_choice: { type: 'function', name: 'f' } },
    'tool_choice.name',
  ],
  [
    'a file',
    { input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }] },
    'input[0].content[0]',
  ],
  [
    'an image by file id',
    { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] },
    'input[0].content[0]',
  ],
  [
    'an image in a system message',
    { input: [{ role: 'system', content: [{ type: 'input_image', image_url: 'https://x/a.png' }] }] },
    'input[0].content[0]',
  ],
  [
    'an image in a function output',
    {
      input: [
        weatherCall,
        { type: 'function_call_output', call_id: 'c', output: [{ type: 'input_image', image_url: 'https://x/a.png' }] },
      ],
    },
    'input[1].output[0]',
  ],
  ['a hosted tool’s item', { input: [{ type: 'web_search_call', id: 'ws_1', status: 'completed' }] }, 'input[0].type'],
  ['an empty input without instructions', { input: [] }, 'input'],
]

describe('what would change the answer and cannot be honoured is a 400 naming it', () => {
  test.each(REFUSED)('%s', async (_name, body, param) => {
    const response = await t.respond({ model: 'recorder', input: 'hi', store: false, ...body })
    expect(response.status).toBe(400)
    const { error } = await response.json()
    expect(error.param).toBe(param)
    expect(error.type).toBe('invalid_request_error')
    expect(error.message).toContain("not supported by model 'recorder'")
  })

  test('an output that answers no call is refused in OpenAI’s words', async () => {
    const response = await t.respond({
      model: 'recorder',
      input: [{ type: 'function_call_output', call_id: 'nobody', output: 'x' }],
    })
    expect(response.status).toBe(400)
    expect((await response.json()).error).toEqual({
      message: 'No tool call found for function call output with call_id nobody.',
      type: 'invalid_request_error',
      param: 'input[0].call_id',
      code: null,
    })
  })
})

describe("a provider's error names the Responses parameter", () => {
  test('max_completion_tokens is max_output_tokens, tools[1] the hosted-tool-skipping tools[2]', async () => {
    const limit = await t.respond({ model: 'refusing', input: 'hi', store: false })
    expect(limit.status).toBe(400)
    expect((await limit.json()).error.param).toBe('max_output_tokens')
    const tool = await t.respond({
      model: 'tool-refusing',
      input: 'hi',
      store: false,
      tools: [weather, { type: 'web_search' }, spawn],
    })
    expect((await tool.json()).error.param).toBe('tools[2]')
  })
})

describe('a provider that speaks the Responses API', () => {
  test('gets the body as it came, model rewritten, hosted tools and all, and its answer as it is', async () => {
    const body = {
      model: 'native',
      input: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'web_search' }, { type: 'custom', name: 'apply_patch' }],
      include: ['reasoning.encrypted_content'],
      store: false,
    }
    const response = await t.respond(body)
    expect(response.status).toBe(200)
    expect(response.headers.get('x-trellis-ignored')).toBeNull()
    expect(nativeSent.at(-1)).toEqual({ ...body, model: 'native' })
    expect(await response.json()).toEqual({ id: 'resp_upstream1', object: 'response', output: [], model: 'native' })
  })
})
