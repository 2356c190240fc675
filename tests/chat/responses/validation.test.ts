/**
 * `POST /v1/responses` refuses a malformed request with a 400 in OpenAI's shape whose `param` names
 * the field, before any model sees it: the body as a whole (lossless JSON, its depth, integers past
 * 2^53), each field against OpenAI's bounds, each input item, content part and tool against the
 * schema of its type, and the rules that span fields. Authentication, the model, its allow-list and
 * the body limits answer as on chat completions.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createEchoProvider } from '../../../src/chat/providers/echo/echo'
import { SETUP_TIMEOUT } from '../../helpers/app'
import { openAISpec } from '../../helpers/openai-spec'
import { registryOf } from '../chat-app'
import { makeResponsesApp } from './responses-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let t: Awaited<ReturnType<typeof makeResponsesApp>>
beforeAll(async () => {
  const echo = createEchoProvider()
  t = await makeResponsesApp({
    chat: { registry: registryOf({ echo, other: echo }), keepAliveMs: 15_000 },
    env: { BODY_LIMIT: '65536' },
  })
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const valid = { model: 'echo', input: 'hi' }
const fn = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} } }
/** `{"a":{"a":…1…}}`, `depth` objects deep. */
const nested = (depth: number) => JSON.parse('{"a":'.repeat(depth) + '1' + '}'.repeat(depth))

/** One row per bad body: what is sent, the `param` that must come back, and a piece of the message. */
const BAD_BODIES: [name: string, body: Record<string, unknown>, param: string | null, message: string][] = [
  ['no model', { input: 'hi' }, 'model', "Missing required parameter: 'model'"],
  ['an empty model', { ...valid, model: '' }, 'model', "Invalid 'model'"],
  ['no input', { model: 'echo' }, 'input', "Missing required parameter: 'input'"],
  ['input a number', { ...valid, input: 5 }, 'input', 'expected a string or an array'],
  ['an item of an unknown role', { ...valid, input: [{ role: 'tool', content: 'x' }] }, 'input[0].role', '"tool"'],
  ['a message without content', { ...valid, input: [{ role: 'user' }] }, 'input[0].content', 'Missing required'],
  [
    'a part without text',
    { ...valid, input: [{ role: 'user', content: [{ type: 'input_text' }] }] },
    'input[0].content[0].text',
    'Missing required',
  ],
  [
    'an image detail OpenAI does not have',
    {
      ...valid,
      input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'http://x/a.png', detail: 'max' }] }],
    },
    'input[0].content[0].detail',
    '"max". Supported values are',
  ],
  [
    'a function_call without call_id',
    { ...valid, input: [{ type: 'function_call', name: 'f', arguments: '{}' }] },
    'input[0].call_id',
    'Missing required',
  ],
  [
    'function_call arguments as an object',
    { ...valid, input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: {} }] },
    'input[0].arguments',
    'expected a string',
  ],
  [
    'a function_call_output without output',
    { ...valid, input: [{ type: 'function_call_output', call_id: 'c' }] },
    'input[0].output',
    'Missing required',
  ],
  [
    'an item id with a slash',
    { ...valid, input: [{ id: 'msg/1', role: 'user', content: 'x' }] },
    'input[0].id',
    "Invalid 'input[0].id'",
  ],
  ['an item_reference without an id', { ...valid, input: [{ type: 'item_reference' }] }, 'input[0].id', 'Missing'],
  [
    'a previous_response_id with a space',
    { ...valid, previous_response_id: 'resp 1' },
    'previous_response_id',
    "Invalid 'previous_response_id'",
  ],
  ['max_output_tokens below OpenAI’s 16', { ...valid, max_output_tokens: 15 }, 'max_output_tokens', '16'],
  ['max_output_tokens a fraction', { ...valid, max_output_tokens: 16.5 }, 'max_output_tokens', 'an integer'],
  ['temperature above 2', { ...valid, temperature: 2.5 }, 'temperature', '2'],
  ['top_p above 1', { ...valid, top_p: 1.5 }, 'top_p', '1'],
  ['a metadata value that is not a string', { ...valid, metadata: { a: 1 } }, 'metadata.a', 'a string'],
  [
    'seventeen metadata keys',
    { ...valid, metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) },
    'metadata',
    'too many keys',
  ],
  ['a metadata key of 65 characters', { ...valid, metadata: { ['k'.repeat(65)]: 'v' } }, 'metadata', 'longer than 64'],
  [
    'reasoning effort unknown',
    { ...valid, reasoning: { effort: 'huge' } },
    'reasoning.effort',
    '"huge". Supported values are',
  ],
  ['text format unknown', { ...valid, text: { format: { type: 'xml' } } }, 'text.format.type', '"xml"'],
  [
    'a json_schema format without a name',
    { ...valid, text: { format: { type: 'json_schema', schema: {} } } },
    'text.format.name',
    'Missing required',
  ],
  [
    'a json_schema format without a schema',
    { ...valid, text: { format: { type: 'json_schema', name: 'x' } } },
    'text.format.schema',
    'Missing required',
  ],
  ['a tool without a type', { ...valid, tools: [{ name: 'f' }] }, 'tools[0].type', 'Missing required'],
  ['a function tool without a name', { ...valid, tools: [{ type: 'function' }] }, 'tools[0].name', 'Missing'],
  [
    'a function name with a space',
    { ...valid, tools: [{ ...fn, name: 'get weather' }] },
    'tools[0].name',
    "Invalid 'tools[0].name'",
  ],
  [
    'a namespace without tools',
    { ...valid, tools: [{ type: 'namespace', name: 'ns', tools: [] }] },
    'tools[0].tools',
    'at least 1 item',
  ],
  [
    'a bad function inside a namespace',
    { ...valid, tools: [{ type: 'namespace', name: 'ns', tools: [{ type: 'function', name: 1 }] }] },
    'tools[0].tools[0].name',
    'expected a string',
  ],
  [
    'too many tools',
    { ...valid, tools: Array.from({ length: 129 }, (_, i) => ({ ...fn, name: `f${i}` })) },
    'tools',
    '128',
  ],
  ['tool_choice of an unknown word', { ...valid, tool_choice: 'any' }, 'tool_choice', '"any"'],
  [
    'a function tool_choice without a name',
    { ...valid, tool_choice: { type: 'function' } },
    'tool_choice.name',
    'Missing',
  ],
  [
    'allowed_tools without a mode',
    { ...valid, tool_choice: { type: 'allowed_tools', tools: [] } },
    'tool_choice.mode',
    'Missing',
  ],
  ['store a string', { ...valid, store: 'yes' }, 'store', 'a boolean'],
  ['stream a number', { ...valid, stream: 1 }, 'stream', 'a boolean'],
  ['background true', { ...valid, background: true }, 'background', 'background responses are not supported'],
  ['truncation unknown', { ...valid, truncation: 'middle' }, 'truncation', '"middle". Supported values are'],
  ['an integer past 2^53', { ...valid, metadata: {}, top_logprobs: 9007199254740993 }, 'top_logprobs', '2^53'],
  ['nesting past 128 levels', { ...valid, client_metadata: nested(130) }, null, 'nesting deeper than 128 levels'],
]

describe('a malformed request is a 400 naming the field', () => {
  test.each(BAD_BODIES)('%s', async (_name, body, param, message) => {
    const response = await t.respond(body)
    expect(response.status).toBe(400)
    const answer = await response.json()
    openAISpec().assert('ErrorResponse', answer)
    const { error } = answer
    expect(error.type).toBe('invalid_request_error')
    if (param !== null) expect(error.param).toBe(param)
    expect(error.message).toContain(message)
  })
})

describe('the body as a whole', () => {
  test.each([
    ['not JSON', '{"model":', 'malformed JSON at line 1, column 10'],
    ['a property named twice', '{"model":"echo","model":"echo","input":"hi"}', 'appears twice'],
    ['not an object', '[1]', 'must be a JSON object'],
  ])('%s is a 400 saying where', async (_name, raw, message) => {
    const response = await t.respond(undefined, { body: raw, headers: { 'content-type': 'application/json' } })
    expect(response.status).toBe(400)
    expect((await response.json()).error.message).toContain(message)
  })

  test('a body past BODY_LIMIT is a 413, one not declared as JSON a 415', async () => {
    const big = await t.respond({ ...valid, input: 'x'.repeat(70_000) })
    expect(big.status).toBe(413)
    expect((await big.json()).error.code).toBe('request_too_large')
    const text = await t.respond(undefined, { body: JSON.stringify(valid), headers: { 'content-type': 'text/plain' } })
    expect(text.status).toBe(415)
  })
})

describe('who may ask, and for which model', () => {
  test('no token is a 401, a token without the chat scope a 403, both before the body is read', async () => {
    const anonymous = await t.app.handle(
      new Request('http://localhost/v1/responses', { method: 'POST', body: '{not json' }),
    )
    expect(anonymous.status).toBe(401)
    const plants = await t.tokenFor('plants-only', ['plants:read'])
    const forbidden = await t.respond(valid, { token: plants })
    expect(forbidden.status).toBe(403)
    expect((await forbidden.json()).error).toBeDefined()
  })

  test('an unknown model and one outside the allow-list are the same 404 model_not_found', async () => {
    const admin = await t.tokenFor('root', ['admin'])
    const made = await t.request('/admin/tokens', {
      method: 'POST',
      token: admin,
      json: { owner: 'narrow', scopes: ['chat'], models: ['echo'] },
    })
    const narrow = (await made.json()).token
    const unknown = await t.respond({ ...valid, model: 'nope' })
    const hidden = await t.respond({ ...valid, model: 'other' }, { token: narrow })
    for (const [response, model] of [
      [unknown, 'nope'],
      [hidden, 'other'],
    ] as const) {
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({
        error: {
          message: `The model \`${model}\` does not exist or you do not have access to it.`,
          type: 'invalid_request_error',
          param: 'model',
          code: 'model_not_found',
        },
      })
    }
    expect((await t.respond(valid, { token: narrow })).status).toBe(200)
  })

  test('the route also answers without /v1, and an unknown path under it is a 404 in OpenAI’s shape', async () => {
    expect((await t.respond(valid, { path: '/responses' })).status).toBe(200)
    const unknown = await t.request('/responses/resp_1/cancel', { method: 'POST', token: t.token })
    expect(unknown.status).toBe(404)
    expect((await unknown.json()).error.message).toContain('Invalid URL')
  })
})
