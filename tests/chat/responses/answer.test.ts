/**
 * A whole answer (`stream` absent or false) is a Response object with every field OpenAI's schema
 * requires, checked against OpenAI's published document: the request echoed, the output items
 * (reasoning with its summary, a message of output_text parts, function calls), the status
 * (`incomplete` when cut by `max_output_tokens` or filtered) and the usage in the Responses API's
 * shape.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createEchoProvider } from '../../../src/chat/providers/echo/echo'
import type { JsonObject } from '../../../src/chat/providers/provider'
import { SETUP_TIMEOUT } from '../../helpers/app'
import { openAISpec } from '../../helpers/openai-spec'
import { registryOf } from '../chat-app'
import { makeResponsesApp, scripted } from './responses-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let t: Awaited<ReturnType<typeof makeResponsesApp>>
beforeAll(async () => {
  const echo = createEchoProvider()
  const registry = registryOf({
    echo,
    'echo-reasoner': echo,
    filtered: scripted('filtered', [], { role: 'assistant', content: 'I will not' }, 'content_filter'),
    refuses: scripted('refuses', [], { role: 'assistant', content: null, refusal: 'No.' }),
    silent: scripted('silent', [], { role: 'assistant', content: '' }),
    nameless: scripted('nameless', [], {
      role: 'assistant',
      tool_calls: [{ id: 'c', type: 'function', function: { arguments: '{}' } }],
    }),
  })
  t = await makeResponsesApp({ chat: { registry, keepAliveMs: 15_000 } })
  openAISpec()
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

/** The answer to `body`, which must be a 200 and a valid `Response`. */
async function answer(body: Record<string, unknown>): Promise<JsonObject & { output: JsonObject[] }> {
  const response = await t.respond(body)
  const json = await response.json()
  expect({ status: response.status, json }).toMatchObject({ status: 200 })
  openAISpec().assert('Response', json)
  return json
}

const weather = {
  type: 'function',
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}

describe('the Response object', () => {
  test("echo's answer, with the request echoed as OpenAI echoes it", async () => {
    const json = await answer({
      model: 'echo',
      input: 'Hello there',
      instructions: 'Be terse.',
      metadata: { trace: 't-1' },
      temperature: 0.2,
      user: 'u-1',
    })
    expect(json).toMatchObject({
      object: 'response',
      status: 'completed',
      error: null,
      incomplete_details: null,
      instructions: 'Be terse.',
      model: 'echo',
      previous_response_id: null,
      store: true,
      temperature: 0.2,
      top_p: null,
      tool_choice: 'auto',
      tools: [],
      parallel_tool_calls: true,
      text: { format: { type: 'text' } },
      truncation: 'disabled',
      user: 'u-1',
      metadata: { trace: 't-1' },
    })
    expect(json.id).toMatch(/^resp_[0-9a-f]{48}$/)
    expect(json.output).toEqual([
      {
        id: expect.stringMatching(/^msg_[0-9a-f]{48}$/),
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Hello there', annotations: [], logprobs: [] }],
      },
    ])
    expect(json.usage).toEqual({
      input_tokens: expect.any(Number),
      input_tokens_details: { cached_tokens: expect.any(Number), cache_write_tokens: 0 },
      output_tokens: 2,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: (json.usage as { input_tokens: number }).input_tokens + 2,
    })
  })

  test("a model that reasons answers a reasoning item first, its reasoning as the summary's text", async () => {
    const json = await answer({ model: 'echo-reasoner', input: 'Hello there' })
    expect(json.output.map((item) => item.type)).toEqual(['reasoning', 'message'])
    expect(json.output[0]).toEqual({
      id: expect.stringMatching(/^rs_[0-9a-f]{48}$/),
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Echo provider, not a model: repeating 2 tokens.' }],
    })
    expect(
      (json.usage as { output_tokens_details: { reasoning_tokens: number } }).output_tokens_details.reasoning_tokens,
    ).toBeGreaterThan(0)
  })

  test('a function call: fc_ id, the upstream’s call id, name and arguments valid for the tool', async () => {
    const json = await answer({ model: 'echo', input: 'Paris', tools: [weather], tool_choice: 'required' })
    expect(json.output).toEqual([
      {
        id: expect.stringMatching(/^fc_[0-9a-f]{48}$/),
        type: 'function_call',
        status: 'completed',
        arguments: expect.any(String),
        call_id: expect.stringMatching(/^call_/),
        name: 'get_weather',
      },
    ])
    expect(JSON.parse(json.output[0]!.arguments as string)).toEqual({ city: 'Paris' })
    expect(json.tools).toEqual([{ ...weather, strict: null }])
  })

  test('cut by max_output_tokens: status incomplete, the reason, the message incomplete', async () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ')
    const json = await answer({ model: 'echo', input: words, max_output_tokens: 16 })
    expect(json).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      max_output_tokens: 16,
    })
    expect(json.output[0]).toMatchObject({ type: 'message', status: 'incomplete' })
  })

  test('filtered: status incomplete, reason content_filter', async () => {
    const json = await answer({ model: 'filtered', input: 'hi' })
    expect(json).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'content_filter' } })
  })

  test('a refusal is a refusal part; an empty answer still a message, of empty text', async () => {
    expect((await answer({ model: 'refuses', input: 'hi' })).output[0]!.content).toEqual([
      { type: 'refusal', refusal: 'No.' },
    ])
    expect((await answer({ model: 'silent', input: 'hi' })).output[0]!.content).toEqual([
      { type: 'output_text', text: '', annotations: [], logprobs: [] },
    ])
  })

  test('structured output: json_schema is honoured (echo answers an example of the schema)', async () => {
    const json = await answer({
      model: 'echo',
      input: 'Paris',
      text: {
        format: {
          type: 'json_schema',
          name: 'city',
          strict: true,
          schema: {
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
            additionalProperties: false,
          },
        },
      },
    })
    const text = ((json.output[0]!.content as JsonObject[])[0] as { text: string }).text
    expect(JSON.parse(text)).toEqual({ city: 'Paris' })
  })

  test('the schema check is not a rubber stamp: a text part without annotations, or no output, fails it', async () => {
    const json = await answer({ model: 'echo', input: 'hi' })
    const message = json.output[0]!
    const bare = { ...message, content: [{ type: 'output_text', text: 'hi', logprobs: [] }] }
    expect(openAISpec().validate('Response', { ...json, output: [bare] }).valid).toBe(false)
    const { output: _output, ...withoutOutput } = json
    expect(openAISpec().validate('Response', withoutOutput).valid).toBe(false)
  })

  test('an upstream’s call without a name is a 502 that says so', async () => {
    const response = await t.respond({ model: 'nameless', input: 'hi' })
    expect(response.status).toBe(502)
    expect((await response.json()).error.message).toContain('tool call without a name')
  })
})
