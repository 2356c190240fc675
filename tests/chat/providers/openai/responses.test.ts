/**
 * OpenAI's Responses API spoken natively (`ChatProvider.responses` of an `openai` provider with
 * `responses: "native"`, for `POST /v1/responses`): requests go upstream as they came, events come
 * back byte for byte (whatever their type), and the report is filled in Chat Completions' shape.
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { PROVIDER_DEFAULTS } from '../../../../src/config/chat'
import { openaiProvider } from '../../../../src/chat/providers/openai/openai'
import type { ResponsesReport, ResponsesRequest } from '../../../../src/chat/providers/provider'
import {
  RESPONSE_ID,
  responseOf,
  responsesEventsOf,
  sseOf,
  useMockResponses,
  type MockEvent,
  type ResponsesReply,
} from '../../mock-responses'
import { nativeRelay } from './native-responses'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const upstream = useMockResponses()

const nativeResponses = () =>
  nativeRelay(upstream.baseUrl, { apiKey: 'sk-upstream', headers: { 'openai-organization': 'org-1' } })

/** A request with fields Trellis does not model, which must reach the upstream unchanged. */
const REQUEST: ResponsesRequest = {
  model: 'gpt-upstream',
  input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
  instructions: 'Be brief.',
  tools: [{ type: 'web_search', external_web_access: true }],
  include: ['reasoning.encrypted_content'],
  store: false,
  some_future_field: { nested: [1, 2.5, 'x'] },
}

/** Everything the relay hands over for one stream, as text, and how many items it came in. */
async function collect(request: ResponsesRequest = REQUEST, report?: ResponsesReport) {
  const decoder = new TextDecoder()
  let text = ''
  let items = 0
  for await (const bytes of nativeResponses().streamEvents(request, new AbortController().signal, report)) {
    items++
    text += decoder.decode(bytes, { stream: true })
  }
  return { text, items }
}

const sent = () => upstream.requests[0]!.sent
const events = (reply: ResponsesReply) => responsesEventsOf(reply, REQUEST)

const TOOL_CALL: ResponsesReply = {
  items: [
    { type: 'reasoning', summary: ['Look ', 'it up.'] },
    { type: 'function_call', name: 'lookup', arguments: ['{"q":', ' "ünïcode"}'] },
  ],
  usage: { input_tokens: 40, output_tokens: 25, cached_tokens: 32, reasoning_tokens: 18 },
}

/** Events of built-in tools and annotations: Trellis models none of them. */
const UNMODELLED: MockEvent[] = [
  {
    event: 'response.web_search_call.in_progress',
    data: { type: 'response.web_search_call.in_progress', output_index: 0, item_id: 'ws_1' },
  },
  {
    event: 'response.web_search_call.searching',
    data: { type: 'response.web_search_call.searching', output_index: 0, item_id: 'ws_1' },
  },
  {
    event: 'response.output_text.annotation.added',
    data: {
      type: 'response.output_text.annotation.added',
      item_id: 'msg_mock_0',
      output_index: 0,
      content_index: 0,
      annotation_index: 0,
      annotation: { type: 'url_citation', url: 'https://example.com', title: 'Ex', start_index: 0, end_index: 5 },
    },
  },
  { event: 'response.trellis_never_heard_of_it', data: { type: 'response.trellis_never_heard_of_it', x: [{}] } },
]

describe('streamEvents', () => {
  test("the request goes to /responses unchanged but for stream: true; the headers are the provider's", async () => {
    await collect()
    const seen = upstream.requests[0]!
    expect(seen.path).toBe('/v1/responses')
    expect(JSON.parse(seen.rawBody)).toEqual({ ...REQUEST, stream: true })
    expect(seen.rawBody).toContain('"some_future_field":{"nested":[1,2.5,"x"]}')
    expect(seen.headers.get('authorization')).toBe('Bearer sk-upstream')
    expect(seen.headers.get('openai-organization')).toBe('org-1')
    expect(seen.headers.get('accept')).toBe('text/event-stream')
    expect(seen.headers.get('accept-encoding')).toBe('identity')
  })

  const STREAMS: [string, ResponsesReply][] = [
    ['a text answer', {}],
    ['reasoning and a function call', TOOL_CALL],
    ['events of types Trellis does not model', { extraEvents: UNMODELLED.map((event, i) => ({ at: 2 + i, event })) }],
    ['split every 7 bytes (events and characters across reads)', { ...TOOL_CALL, splitEvery: 7 }],
    ['split every byte', { splitEvery: 1 }],
    ['an incomplete answer', { final: 'incomplete' }],
    ['a failed answer', { final: 'failed' }],
  ]
  for (const [name, reply] of STREAMS) {
    test(`events come out byte for byte: ${name}`, async () => {
      upstream.script(reply)
      const { text } = await collect()
      expect(text).toBe(sent())
      expect(text).toBe(events(reply).map(sseOf).join(''))
    })
  }

  test('unmodelled events are forwarded whole, in their place', async () => {
    upstream.script({ extraEvents: UNMODELLED.map((event) => ({ at: 3, event })) })
    const { text } = await collect()
    for (const event of UNMODELLED) expect(text).toContain(`event: ${event.event}\ndata: {"type":"${event.event}"`)
    expect(text.indexOf('web_search_call.searching')).toBeLessThan(text.indexOf('response.output_text.delta'))
  })

  test('the events of one read are handed over together, as the read itself', async () => {
    upstream.script({ rawPieces: [events(TOOL_CALL).map(sseOf).join('')] })
    const { text, items } = await collect()
    expect(items).toBe(1)
    expect(text).toBe(sent())
  })

  test('an event cut across reads waits for its end; the events before the cut go at once', async () => {
    const all = events({}).map(sseOf)
    const joined = all.join('')
    const cut = joined.indexOf('"delta":"Hello"') + 5
    upstream.script({ rawPieces: [joined.slice(0, cut), joined.slice(cut)], eventDelayMs: 30 })
    const chunks: string[] = []
    const decoder = new TextDecoder()
    for await (const bytes of nativeResponses().streamEvents(REQUEST, new AbortController().signal))
      chunks.push(decoder.decode(bytes))
    expect(chunks.join('')).toBe(joined)
    const firstDelta = all.findIndex((event) => event.includes('"delta":"Hello"'))
    expect(chunks[0]).toBe(all.slice(0, firstDelta).join(''))
  })

  test('data is kept exactly as written: spacing, escapes, number spellings, integers beyond 2^53', async () => {
    const [created, inProgress, ...rest] = events({}).map(sseOf)
    const odd =
      'event: response.output_text.delta\ndata: {"type": "response.output_text.delta", "item_id": "msg_mock_0", ' +
      '"output_index": 0, "content_index": 0, "delta": "\\u00e9 1.50e1", "logprobs": [], "seed": 12345678901234567890, ' +
      '"sequence_number": 3}\n\n'
    upstream.script({ rawPieces: [created!, inProgress!, odd, ...rest] })
    const { text } = await collect()
    expect(text).toBe([created, inProgress, odd, ...rest].join(''))
  })

  test('CRLF framing is normalised to LF, the data kept as sent', async () => {
    upstream.script({ ...TOOL_CALL, lineEnds: 'crlf' })
    const { text } = await collect()
    expect(text).toBe(sent().replaceAll('\r\n', '\n'))
  })

  test('unusual framing (data-only events, data over two lines, comments, ids) is written out in the usual form', async () => {
    const all = events({})
    const [created, inProgress, added, ...rest] = all
    const odd = [
      `: upstream comment\n\n`,
      `data: ${JSON.stringify(created!.data)}\n\n`,
      `id: 7\nevent: response.in_progress\ndata: {"type":"response.in_progress",\ndata: "response":${JSON.stringify(inProgress!.data.response)},"sequence_number":1}\n\n`,
      sseOf(added!),
      ...rest.map(sseOf),
    ]
    upstream.script({ rawPieces: odd })
    const { text } = await collect()
    expect(text).toBe(all.map(sseOf).join(''))
  })

  test('keepalive events and comments are dropped; Trellis sends its own keep-alives', async () => {
    const keepalive: MockEvent = { event: 'keepalive', data: { type: 'keepalive' } }
    upstream.script({ extraEvents: [{ at: 1, event: keepalive }], commentEveryMs: 10, eventDelayMs: 25 })
    const { text } = await collect()
    expect(sent()).toContain('event: keepalive')
    expect(sent()).toContain(': keep-alive')
    expect(text).toBe(
      events({ extraEvents: [{ at: 1, event: keepalive }] })
        .filter((event) => event.event !== 'keepalive')
        .map(sseOf)
        .join(''),
    )
  })

  test('the stream ends after the terminal event: nothing after it is read or forwarded', async () => {
    const all = events({}).map(sseOf)
    upstream.script({ rawPieces: [all.join('') + 'data: [DONE]\n\n' + all[2]] })
    const { text } = await collect()
    expect(text).toBe(all.join(''))
  })
})

describe('the report', () => {
  test("usage in Chat Completions' shape, the final Response, one event per delta", async () => {
    upstream.script(TOOL_CALL)
    const report: ResponsesReport = { events: 0 }
    const { text } = await collect(REQUEST, report)
    expect(report.usage).toEqual({
      prompt_tokens: 40,
      completion_tokens: 25,
      total_tokens: 65,
      prompt_tokens_details: { cached_tokens: 32 },
      completion_tokens_details: { reasoning_tokens: 18 },
    })
    expect(report.response).toEqual(responseOf(TOOL_CALL, REQUEST))
    expect(report.finishReason).toBe('tool_calls')
    expect(report.events).toBe(text.split(/event: [a-z_.]+\.delta\n/).length - 1)
    expect(report.events).toBe(4)
  })

  const FINISH: [string, ResponsesReply, string][] = [
    ['completed text', {}, 'stop'],
    ['a function call', TOOL_CALL, 'tool_calls'],
    ['incomplete at max_output_tokens', { final: 'incomplete' }, 'length'],
    ['failed', { final: 'failed' }, 'failed'],
  ]
  for (const [name, reply, finish] of FINISH) {
    test(`finish reason: ${name} → ${finish}; the terminal Response is reported`, async () => {
      upstream.script(reply)
      const report: ResponsesReport = { events: 0 }
      await collect(REQUEST, report)
      expect(report.finishReason).toBe(finish)
      expect(report.response).toMatchObject({
        id: RESPONSE_ID,
        status: finish === 'stop' || finish === 'tool_calls' ? 'completed' : reply.final,
      })
      const usage = responseOf(reply, REQUEST).usage as { input_tokens: number; output_tokens: number }
      expect(report.usage).toMatchObject({ prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens })
    })
  }

  test('a final Response without usage leaves the report without usage; unknown incomplete reasons are kept', async () => {
    const response = {
      ...responseOf({}, REQUEST, 'incomplete'),
      usage: null,
      incomplete_details: { reason: 'tool_budget' },
    }
    const [created, ...rest] = events({ final: 'none' }).map(sseOf)
    const terminal = sseOf({
      event: 'response.incomplete',
      data: { type: 'response.incomplete', response, sequence_number: 99 },
    })
    upstream.script({ rawPieces: [created!, ...rest, terminal] })
    const report: ResponsesReport = { events: 0 }
    await collect(REQUEST, report)
    expect(report.usage).toBeUndefined()
    expect(report.finishReason).toBe('tool_budget')
    expect(report.response).toEqual(response)
  })
})

describe('complete', () => {
  test('the Response as the upstream answered it; the request unchanged, stream forced off; the report filled', async () => {
    upstream.script(TOOL_CALL)
    const report: ResponsesReport = { events: 0 }
    const response = await nativeResponses().complete(
      { ...REQUEST, stream: true },
      new AbortController().signal,
      report,
    )
    expect(response).toEqual(responseOf(TOOL_CALL, REQUEST))
    const seen = upstream.requests[0]!
    expect(seen.path).toBe('/v1/responses')
    expect(JSON.parse(seen.rawBody)).toEqual({ ...REQUEST, stream: false })
    expect(seen.headers.get('accept')).toBe('application/json')
    expect(report).toEqual({
      events: 0,
      usage: {
        prompt_tokens: 40,
        completion_tokens: 25,
        total_tokens: 65,
        prompt_tokens_details: { cached_tokens: 32 },
        completion_tokens_details: { reasoning_tokens: 18 },
      },
      finishReason: 'tool_calls',
      response,
    })
  })

  test('without stream in the request, none is added', async () => {
    await nativeResponses().complete(REQUEST, new AbortController().signal)
    expect(JSON.parse(upstream.requests[0]!.rawBody)).toEqual(REQUEST)
  })

  test('a failed Response is an answer, not an error: the client sees its status and error', async () => {
    upstream.script({ final: 'failed' })
    const report: ResponsesReport = { events: 0 }
    const response = await nativeResponses().complete(REQUEST, new AbortController().signal, report)
    expect(response).toMatchObject({ status: 'failed', error: { code: 'server_error' } })
    expect(report.finishReason).toBe('failed')
  })
})

describe('the setting', () => {
  test('without responses: "native" the provider has no native relay (the route translates)', () => {
    for (const responses of [undefined, 'translate'] as const) {
      const provider = openaiProvider({ ...PROVIDER_DEFAULTS, name: 'oai', baseUrl: upstream.baseUrl, responses })
      expect(provider.responses).toBeUndefined()
    }
  })
})
