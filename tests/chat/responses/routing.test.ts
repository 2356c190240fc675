/**
 * How `/v1/responses` goes through the registry: a provider that speaks the Responses API has its
 * events relayed as they are (and its final response stored), one that does not is translated, and
 * a model's entries may mix; failures before the first byte retry and fall back to the next entry,
 * as for chat completions. An error after a native provider's bytes is numbered after its last event.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createEchoProvider } from '../../../src/chat/providers/echo/echo'
import {
  type ChatProvider,
  type JsonObject,
  ProviderError,
  type ResponsesReport,
} from '../../../src/chat/providers/provider'
import { ModelRegistry } from '../../../src/chat/registry'
import { SETUP_TIMEOUT } from '../../helpers/app'
import { readAll } from '../chat-app'
import { makeResponsesApp, responseEventsOf, scripted } from './responses-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const encoder = new TextEncoder()
const sse = (data: JsonObject) => encoder.encode(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`)
const upstreamResponse = { id: 'resp_upstream7', object: 'response', status: 'completed', output: [], model: 'up' }

/** A native Responses provider: three events (one the server does not model), or two and a failure. */
function native(name: string, fails: boolean): ChatProvider {
  return {
    ...scripted(name),
    responses: {
      complete: async () => upstreamResponse,
      streamEvents: async function* (_request, _signal, report?: ResponsesReport) {
        yield sse({
          type: 'response.created',
          response: { ...upstreamResponse, status: 'in_progress' },
          sequence_number: 0,
        })
        yield sse({ type: 'response.web_search_call.searching', item_id: 'ws_1', output_index: 0, sequence_number: 1 })
        if (fails) throw new ProviderError(502, 'the upstream went away')
        if (report) report.response = upstreamResponse
        yield sse({ type: 'response.completed', response: upstreamResponse, sequence_number: 2 })
      },
    },
  }
}

const down = scripted('down', [new ProviderError(503, 'The upstream provider is unavailable.', { retryable: true })])
const noRetry = { maxRetries: 0, retryBaseMs: 0, retryMaxMs: 0 }

let t: Awaited<ReturnType<typeof makeResponsesApp>>
beforeAll(async () => {
  const echo = createEchoProvider()
  const entry = (provider: ChatProvider, model: string) => ({ provider, model, retry: noRetry })
  const registry = new ModelRegistry(
    new Map([
      ['native', [entry(native('native', false), 'up')]],
      ['native-breaks', [entry(native('native-breaks', true), 'up')]],
      ['flaky', [entry(down, 'down'), entry(echo, 'echo')]],
      ['down-then-native', [entry(down, 'down'), entry(native('native', false), 'up')]],
    ]),
  )
  t = await makeResponsesApp({ chat: { registry, keepAliveMs: 15_000 } })
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

describe('a native provider', () => {
  test('its events go out as it sent them, unmodelled ones too; its final response is stored', async () => {
    const response = await t.respond({ model: 'native', input: 'hi', stream: true })
    const text = await readAll(response)
    expect(responseEventsOf(text).map(({ data }) => data.type)).toEqual([
      'response.created',
      'response.web_search_call.searching',
      'response.completed',
    ])
    const stored = await t.request('/v1/responses/resp_upstream7', { token: t.token })
    expect(await stored.json()).toEqual(upstreamResponse)
  })

  test('a failure after its bytes is an error event numbered after its last event', async () => {
    const response = await t.respond({ model: 'native-breaks', input: 'hi', stream: true, store: false })
    const events = responseEventsOf(await readAll(response))
    expect(events.at(-1)!.data).toMatchObject({ type: 'error', sequence_number: 2, code: 'bad_gateway' })
  })
})

describe('retries and fallback, before the first byte', () => {
  test('an unavailable entry falls back to the next, translated or native, streamed or not', async () => {
    const whole = await t.respond({ model: 'flaky', input: 'Hello there', store: false })
    expect(whole.status).toBe(200)
    expect((await whole.json()).output[0].content[0].text).toBe('Hello there')
    const streamed = await t.respond({ model: 'flaky', input: 'Hello there', stream: true, store: false })
    const events = responseEventsOf(await readAll(streamed))
    expect(events.map(({ data }) => data.sequence_number)).toEqual(events.map((_, i) => i))
    expect(events.at(-1)!.data.type).toBe('response.completed')
    const relayed = await t.respond({ model: 'down-then-native', input: 'hi', stream: true, store: false })
    expect(responseEventsOf(await readAll(relayed)).at(-1)!.data.type).toBe('response.completed')
  })
})
