/**
 * The requests real clients send (abridged from captures of Codex CLI 0.171, the AI SDK 7 and the
 * Agents SDK 0.20 against a logging mock) are answered on a translated model, their events valid
 * against OpenAI's schema, and what they ask for that cannot run here named in `x-trellis-ignored`.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createEchoProvider } from '../../../src/chat/providers/echo/echo'
import { SETUP_TIMEOUT } from '../../helpers/app'
import { openAISpec } from '../../helpers/openai-spec'
import { readAll, registryOf } from '../chat-app'
import { makeResponsesApp, responseEventsOf } from './responses-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let t: Awaited<ReturnType<typeof makeResponsesApp>>
beforeAll(async () => {
  t = await makeResponsesApp({
    chat: { registry: registryOf({ 'mock-model': createEchoProvider() }), keepAliveMs: 15_000 },
  })
  openAISpec()
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const params = { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] }

/** Codex's first turn: developer messages, client ids on every item, store false, namespace and web_search tools. */
const CODEX_TURN = {
  model: 'mock-model',
  stream: true,
  input: [
    {
      type: 'message',
      id: 'msg_e70663b1-c296-5e75-829f-ea24d977df5f',
      role: 'developer',
      content: [{ type: 'input_text', text: 'You are a coding agent running in the Codex CLI.' }],
    },
    {
      type: 'message',
      id: 'msg_01a21a16-4959-7f30-8c05-898fd4f84540',
      role: 'user',
      content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/work</cwd>\n</environment_context>' }],
    },
    {
      type: 'message',
      id: 'msg_01a21a16-4965-7ff0-8fdd-a96e74d7f703',
      role: 'user',
      content: [{ type: 'input_text', text: 'say hi' }],
    },
  ],
  tools: [
    { type: 'function', name: 'exec_command', description: 'Runs a command', strict: false, parameters: params },
    {
      type: 'namespace',
      name: 'multi_agent_v1',
      description: 'Tools for spawning and managing sub-agents',
      tools: [
        { type: 'function', name: 'spawn_agent', description: 'Spawn', strict: false, parameters: params },
        { type: 'function', name: 'wait_agent', description: 'Wait', strict: false, parameters: params },
      ],
    },
    { type: 'web_search', external_web_access: true },
  ],
  tool_choice: 'auto',
  parallel_tool_calls: true,
  reasoning: { summary: 'auto' },
  store: false,
  include: ['reasoning.encrypted_content'],
  prompt_cache_key: '01a21a16-490a-7b40-9261-d8243f141eee',
  client_metadata: { thread_id: '01a21a16-490a-7b40-9261-d8243f141eee', 'x-codex-window-id': '01a21a16:0' },
}

/** Its second turn: the whole history again, with the call, its output and a replayed reasoning item. */
const CODEX_SECOND_TURN = {
  ...CODEX_TURN,
  input: [
    ...CODEX_TURN.input,
    {
      type: 'reasoning',
      id: 'rs_1',
      summary: [{ type: 'summary_text', text: 'run it' }],
      content: null,
      encrypted_content: 'opaque',
    },
    {
      type: 'function_call',
      status: 'completed',
      id: 'fc_33fb87854bfe42418ef0814e459df5f3',
      name: 'exec_command',
      arguments: '{"cmd":"echo hi"}',
      call_id: 'call_dc196a897ee840128dfdb657686ed995',
    },
    {
      type: 'function_call_output',
      id: 'fco_01a21a16-9c92-7060-998c-b6947e8c89cb',
      call_id: 'call_dc196a897ee840128dfdb657686ed995',
      output: 'Process exited with code 0\nOutput:\nhi\n',
    },
  ],
}

async function streamedEvents(body: Record<string, unknown>) {
  const response = await t.respond(body)
  expect(response.status).toBe(200)
  const events = responseEventsOf(await readAll(response))
  for (const { data } of events) openAISpec().assert('ResponseStreamEvent', data)
  return { response, events }
}

describe('Codex CLI (store false, the whole history each turn)', () => {
  test.each([
    ['its first turn', CODEX_TURN],
    ['its second turn, after a tool call', CODEX_SECOND_TURN],
  ])('%s streams to response.completed with output_item.done for every item', async (_name, body) => {
    const { response, events } = await streamedEvents(body)
    expect(response.headers.get('x-trellis-ignored')).toBe(
      'include, prompt_cache_key, client_metadata, tools[2], reasoning.summary',
    )
    const last = events.at(-1)!.data
    expect(last.type).toBe('response.completed')
    expect(last.response.output.length).toBeGreaterThan(0)
    expect(events.filter(({ data }) => data.type === 'response.output_item.done')).toHaveLength(
      last.response.output.length,
    )
    // Nothing was kept: Codex sends store false.
    expect((await t.request(`/v1/responses/${last.response.id}`, { token: t.token })).status).toBe(404)
  })
})

describe('the AI SDK and the Agents SDK', () => {
  test('the AI SDK’s tool loop: the full history again, calls without id or status, strict false', async () => {
    const tool = {
      type: 'function',
      name: 'weather',
      description: 'Get weather',
      parameters: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
        additionalProperties: false,
      },
      strict: false,
    }
    const response = await t.respond({
      model: 'mock-model',
      input: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] },
        { type: 'function_call', call_id: 'call_abc123', name: 'weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_abc123', output: '{"city":"Paris","tempC":21}' },
      ],
      tools: [tool],
      tool_choice: 'auto',
    })
    expect(response.status).toBe(200)
    const json = await response.json()
    openAISpec().assert('Response', json)
    expect(json.output[0].content[0].text).toBe('Weather in Paris?')
  })

  test('the Agents SDK’s replay: server ids and status on every item, include [], stream false', async () => {
    const response = await t.respond({
      model: 'mock-model',
      instructions: 'Be terse.',
      input: [
        { role: 'user', content: 'What is the weather in Paris?' },
        {
          id: 'fc_1',
          type: 'function_call',
          name: 'weather',
          call_id: 'call_ag1',
          arguments: '{"city":"Paris"}',
          status: 'completed',
        },
        { type: 'function_call_output', call_id: 'call_ag1', output: 'It is 21C in Paris', status: 'completed' },
      ],
      include: [],
      stream: false,
      tools: [
        { type: 'function', name: 'weather', description: 'Get weather', parameters: { type: 'object' }, strict: true },
      ],
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('x-trellis-ignored')).toBeNull()
    openAISpec().assert('Response', await response.json())
  })
})
