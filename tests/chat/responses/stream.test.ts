/**
 * `stream: true` answers with the Responses API's events, each `event: <type>` and `data: <json>`
 * with `sequence_number` from 0 and valid against OpenAI's schema for stream events: the lifecycle
 * (`response.created`, `response.in_progress`, then `response.completed` or
 * `response.incomplete` with the whole output and the usage, all of one response id), and per
 * output item `output_item.added`, its parts, deltas and `.done` events and `output_item.done`,
 * every event of an item naming its id and index. Keep-alives fill waits; a failure after the first
 * byte is an `error` event numbered after the rest; before it, an HTTP error.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createEchoProvider } from '../../../src/chat/providers/echo/echo'
import { ProviderError } from '../../../src/chat/providers/provider'
import { SETUP_TIMEOUT } from '../../helpers/app'
import { openAISpec } from '../../helpers/openai-spec'
import { readAll, registryOf } from '../chat-app'
import { chunk, makeResponsesApp, responseEventsOf, scripted, type SentEvent } from './responses-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const call = (index: number, fields: Record<string, unknown>) => chunk({ tool_calls: [{ index, ...fields }] })
const usage = { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13, prompt_tokens_details: { cached_tokens: 3 } }
let aborted = false

let t: Awaited<ReturnType<typeof makeResponsesApp>>
beforeAll(async () => {
  const echo = createEchoProvider()
  const registry = registryOf({
    echo,
    'echo-reasoner': echo,
    // Two calls whose deltas interleave, the second's arguments before its name.
    parallel: scripted('parallel', [
      chunk({ role: 'assistant', content: 'Checking.' }),
      call(0, { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }),
      call(1, { id: 'call_b', type: 'function', function: { arguments: '{"city":"Oslo"}' } }),
      call(0, { function: { arguments: '"Paris"}' } }),
      call(1, { function: { name: 'get_weather' } }),
      chunk({}, 'tool_calls'),
      chunk({}, null, usage),
    ]),
    cut: scripted('cut', [
      chunk({ role: 'assistant', content: 'Once upon' }),
      chunk({}, 'length'),
      chunk({}, null, usage),
    ]),
    refuses: scripted('refuses', [chunk({ refusal: 'No.' }), chunk({}, 'stop')]),
    slow: scripted('slow', [120, chunk({ content: 'late' }), chunk({}, 'stop')]),
    breaks: scripted('breaks', [chunk({ content: 'partial' }), new ProviderError(502, 'upstream went away')]),
    down: scripted('down', [new ProviderError(503, 'The upstream provider is unavailable.', { retryable: true })]),
    nameless: scripted('nameless', [call(0, { id: 'c', function: { arguments: '{}' } }), chunk({}, 'tool_calls')]),
    hangs: {
      ...scripted('hangs'),
      stream: async function* (_request, signal) {
        yield chunk({ content: 'first' })
        await new Promise((_, reject) =>
          signal.addEventListener('abort', () => ((aborted = true), reject(signal.reason)), { once: true }),
        )
      },
    },
  })
  t = await makeResponsesApp({ chat: { registry, keepAliveMs: 40, maxResponseBytes: 65_536 } })
  openAISpec()
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

/** The events of a streamed answer to `body`, each checked to be a valid stream event. */
async function streamed(body: Record<string, unknown>): Promise<{ events: SentEvent[]; text: string }> {
  const response = await t.respond({ store: false, ...body, stream: true })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toBe('text/event-stream')
  const text = await readAll(response)
  const events = responseEventsOf(text)
  for (const { event, data } of events) {
    expect(event).toBe(data.type)
    openAISpec().assert('ResponseStreamEvent', data)
  }
  return { events, text }
}

/** What every well-formed stream holds to: numbering, one response id, items added before they are used. */
function expectWellFormed(events: SentEvent[]) {
  expect(events.map(({ data }) => data.sequence_number)).toEqual(events.map((_, i) => i))
  expect(events.slice(0, 2).map(({ data }) => data.type)).toEqual(['response.created', 'response.in_progress'])
  const lifecycle = events.filter(({ data }) => 'response' in data).map(({ data }) => data.response.id)
  expect(new Set(lifecycle).size).toBe(1)
  const added = new Map<number, string>()
  const done = new Set<number>()
  for (const { data } of events) {
    if (data.type === 'response.output_item.added') added.set(data.output_index, data.item.id)
    else if ('output_index' in data) {
      expect(added.get(data.output_index)).toBe(data.item_id ?? data.item.id)
      if (data.type === 'response.output_item.done') done.add(data.output_index)
    }
  }
  expect([...done].sort()).toEqual([...added.keys()].sort())
  const last = events.at(-1)!.data
  expect(['response.completed', 'response.incomplete']).toContain(last.type)
  const items = events.filter(({ data }) => data.type === 'response.output_item.done').map(({ data }) => data.item)
  expect(last.response.output).toEqual(items)
  return last.response
}

describe('the events of an answer', () => {
  test('echo-reasoner: a reasoning item (its summary streamed), then the message, then response.completed', async () => {
    const { events } = await streamed({ model: 'echo-reasoner', input: 'Hello there' })
    const response = expectWellFormed(events)
    const types = events.map(({ data }) => data.type)
    const deltas = (type: string) => types.filter((found) => found === type).length
    expect(types.filter((type) => !type.endsWith('.delta'))).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ])
    expect(deltas('response.reasoning_summary_text.delta')).toBeGreaterThan(1)
    expect(deltas('response.output_text.delta')).toBe(2)
    expect(response.status).toBe('completed')
    expect(response.output[1].content[0].text).toBe('Hello there')
    expect(response.usage.output_tokens_details.reasoning_tokens).toBeGreaterThan(0)
    // The lifecycle events before the end have no usage yet: the schema does not let it be null.
    expect(events[0]!.data.response).not.toHaveProperty('usage')
  })

  test('function calls: added with empty arguments, argument deltas, done with the name and the whole arguments', async () => {
    const { events } = await streamed({
      model: 'parallel',
      input: 'hi',
      tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }],
    })
    const response = expectWellFormed(events)
    const added = events.filter(({ data }) => data.type === 'response.output_item.added').map(({ data }) => data.item)
    expect(added.map((item) => [item.type, item.arguments])).toEqual([
      ['message', undefined],
      ['function_call', ''],
      ['function_call', ''],
    ])
    const done = events
      .filter(({ data }) => data.type === 'response.function_call_arguments.done')
      .map(({ data }) => data)
    expect(done.map(({ name, arguments: args }) => [name, args])).toEqual([
      ['get_weather', '{"city":"Paris"}'],
      ['get_weather', '{"city":"Oslo"}'],
    ])
    expect(
      response.output.slice(1).map((item: { call_id: string; status: string }) => [item.call_id, item.status]),
    ).toEqual([
      ['call_a', 'completed'],
      ['call_b', 'completed'],
    ])
    expect(response.usage).toEqual({
      input_tokens: 9,
      input_tokens_details: { cached_tokens: 3, cache_write_tokens: 0 },
      output_tokens: 4,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 13,
    })
  })

  test('cut by length: response.incomplete, reason max_output_tokens, the message incomplete', async () => {
    const { events } = await streamed({ model: 'cut', input: 'hi' })
    const response = expectWellFormed(events)
    expect(events.at(-1)!.data.type).toBe('response.incomplete')
    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } })
    expect(response.output[0].status).toBe('incomplete')
  })

  test('a refusal streams as refusal deltas in a refusal part', async () => {
    const { events } = await streamed({ model: 'refuses', input: 'hi' })
    expectWellFormed(events)
    const types = events.map(({ data }) => data.type)
    expect(types).toContain('response.refusal.delta')
    expect(events.find(({ data }) => data.type === 'response.refusal.done')!.data.refusal).toBe('No.')
  })

  test('while the model is silent, keep-alive comments; the events follow', async () => {
    const { text, events } = await streamed({ model: 'slow', input: 'hi' })
    expect(text.startsWith(': keep-alive\n\n')).toBe(true)
    expectWellFormed(events)
  })
})

describe('failures', () => {
  test('after the first byte: an error event numbered after the rest, and no response.completed', async () => {
    const { events } = await streamed({ model: 'breaks', input: 'hi' })
    const last = events.at(-1)!.data
    expect(last).toEqual({
      type: 'error',
      code: 'bad_gateway',
      message: expect.stringContaining('upstream went away'),
      param: null,
      sequence_number: events.length - 1,
    })
    expect(events.map(({ data }) => data.type)).not.toContain('response.completed')
  })

  test('before the first byte: an HTTP error in OpenAI’s shape', async () => {
    const response = await t.respond({ model: 'down', input: 'hi', stream: true })
    expect(response.status).toBe(503)
    expect((await response.json()).error.message).toStartWith('The upstream provider is unavailable.')
  })

  test('a call that never gets a name ends the stream with an error event', async () => {
    const { events } = await streamed({ model: 'nameless', input: 'hi' })
    expect(events.at(-1)!.data).toMatchObject({ type: 'error', message: expect.stringContaining('without a name') })
  })

  test('an answer past CHAT_MAX_RESPONSE_BYTES ends with response_too_large', async () => {
    const words = Array.from({ length: 3000 }, (_, i) => `w${i}`).join(' ')
    const { events } = await streamed({ model: 'echo', input: words })
    expect(events.at(-1)!.data).toMatchObject({ type: 'error', code: 'response_too_large' })
  })

  test('a client that goes away aborts the upstream request', async () => {
    aborted = false
    const response = await t.respond({ model: 'hangs', input: 'hi', stream: true, store: false })
    const reader = response.body!.getReader()
    await reader.read()
    await reader.cancel()
    for (let i = 0; i < 50 && !aborted; i++) await Bun.sleep(10)
    expect(aborted).toBe(true)
  })
})
