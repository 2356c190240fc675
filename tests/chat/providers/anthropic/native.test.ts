/**
 * The Messages API spoken natively (`ChatProvider.messages`, for `POST /v1/messages`): requests
 * go upstream as they came, events come back byte for byte minus pings, and the report is filled
 * as the OpenAI path fills it.
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { PROVIDER_DEFAULTS } from '../../../../src/config/chat'
import { anthropicProvider } from '../../../../src/chat/providers/anthropic/anthropic'
import { ProviderError, type MessagesRequest, type StreamReport } from '../../../../src/chat/providers/provider'
import { anthropicEventsOf, messageOf, sseOf, useMockAnthropic, type AnthropicReply } from '../../mock-anthropic'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const anthropic = useMockAnthropic()

const native = (headers?: Record<string, string>) =>
  anthropicProvider({
    ...PROVIDER_DEFAULTS,
    name: 'claude',
    baseUrl: anthropic.baseUrl,
    apiKey: 'sk-ant-native',
    anthropicVersion: '2024-01-01',
    headers,
  }).messages

/** A request with fields Trellis does not model, which must reach Anthropic unchanged. */
const REQUEST: MessagesRequest = {
  model: 'claude-sonnet-4-5',
  max_tokens: 1024,
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }],
  system: [{ type: 'text', text: 'Be brief.' }],
  thinking: { type: 'enabled', budget_tokens: 1024 },
  container: 'container_1',
  some_future_field: { nested: [1, 2.5, 'x'] },
}

const THINKING_AND_TOOLS: AnthropicReply = {
  blocks: [
    { type: 'thinking', thinking: ['Let me ', 'think.'], signature: 'sig-abc' },
    { type: 'text', text: ['Looking ', 'it up.'] },
    { type: 'tool_use', id: 'toolu_9', name: 'lookup', input: ['{"q":', ' "ünïcode"}'] },
  ],
  usage: { input_tokens: 30, output_tokens: 12, cache_read_input_tokens: 200, cache_creation_input_tokens: 10 },
}

/** Everything the provider hands over for one stream, as text, and how many items it came in. */
async function collect(request: MessagesRequest, report?: StreamReport) {
  const decoder = new TextDecoder()
  let text = ''
  let items = 0
  for await (const bytes of native().streamEvents(request, new AbortController().signal, report)) {
    items++
    text += decoder.decode(bytes, { stream: true })
  }
  return { text, items }
}

/** What the mock sent, without its pings. */
const withoutPings = (sent: string) =>
  sent
    .split(/(?<=\n\n)/)
    .filter((event) => !event.startsWith('event: ping'))
    .join('')

describe('streamEvents', () => {
  test("the request goes upstream unchanged, with stream: true; the headers are the provider's", async () => {
    await collect(REQUEST)
    const seen = anthropic.requests[0]!
    expect(seen.path).toBe('/v1/messages')
    expect(JSON.parse(seen.rawBody)).toEqual({ ...REQUEST, stream: true })
    expect(seen.rawBody).toContain('"some_future_field":{"nested":[1,2.5,"x"]}')
    expect(seen.headers.get('x-api-key')).toBe('sk-ant-native')
    expect(seen.headers.get('anthropic-version')).toBe('2024-01-01')
    expect(seen.headers.get('accept')).toBe('text/event-stream')
  })

  const FRAMINGS: [string, AnthropicReply][] = [
    ['as Anthropic sends it', {}],
    ['with pings between all events', { pings: 'every' }],
    ['split every 5 bytes (events and characters across reads)', { splitEvery: 5 }],
    ['split every byte', { splitEvery: 1 }],
  ]
  for (const [name, framing] of FRAMINGS) {
    test(`events come out byte for byte, minus pings: ${name}`, async () => {
      anthropic.script({ ...THINKING_AND_TOOLS, ...framing })
      const { text } = await collect(REQUEST)
      const sent = anthropic.requests[0]!.sent
      expect(sent).toContain('event: ping')
      expect(text).toBe(withoutPings(sent))
      expect(text).toContain('"signature":"sig-abc"')
      expect(text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true)
    })
  }

  test('events of one read are handed over together, as whole events', async () => {
    anthropic.script({ rawPieces: [anthropicEventsOf({}, REQUEST).map(sseOf).join('')] })
    const { text, items } = await collect(REQUEST)
    expect(items).toBe(1)
    expect(text).toBe(withoutPings(anthropic.requests[0]!.sent))
  })

  test('data is kept exactly as written: spacing, escapes and number spellings', async () => {
    const [start, ...rest] = anthropicEventsOf({ pings: 'none' }, REQUEST).map(sseOf)
    const odd =
      'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "\\u00e9 1.50e1"}}\n\n'
    anthropic.script({ rawPieces: [start!, rest[0]!, odd, ...rest.slice(1)] })
    const { text } = await collect(REQUEST)
    expect(text).toBe([start, rest[0], odd, ...rest.slice(1)].join(''))
  })

  test('CRLF framing is normalised to LF, the data kept as sent', async () => {
    anthropic.script({ lineEnds: 'crlf' })
    const { text } = await collect(REQUEST)
    expect(text).toBe(withoutPings(anthropic.requests[0]!.sent.replaceAll('\r\n', '\n')))
  })

  test('unusual framing (data over two lines, a comment, an id) is written out again in the usual form', async () => {
    const events = anthropicEventsOf({ pings: 'none' }, REQUEST)
    const [start, ...rest] = events.map(sseOf)
    const odd = `: hello\nid: 1\nevent: message_start\ndata: {"type":"message_start",\ndata: "message":${JSON.stringify(events[0]!.data.message)}}\n\n`
    anthropic.script({ rawPieces: [odd, ...rest] })
    const { text } = await collect(REQUEST)
    expect(text).toBe([start, ...rest].join(''))
  })

  test('a decoded event whose type holds a line break is refused: written out again, it would forge lines', async () => {
    const [start, ...rest] = anthropicEventsOf({ pings: 'none' }, REQUEST).map(sseOf)
    // Data over two lines sends the event down the decoding path; its type would become an `event:` line.
    const forged =
      'event: x\ndata: {"type":"content_block_delta\\nevent: message_stop\\ndata: {}",\ndata: "index":0}\n\n'
    anthropic.script({ rawPieces: [start!, forged, ...rest] })
    const error = await collect(REQUEST).then(
      () => undefined,
      (caught) => caught,
    )
    expect(error).toBeInstanceOf(ProviderError)
    expect((error as ProviderError).message).toContain('not a typed JSON object')
  })

  test("the report: usage in OpenAI's shape with the cache counted in, finish reason, one event per content delta", async () => {
    anthropic.script(THINKING_AND_TOOLS)
    const report: StreamReport = { events: 0 }
    const { text } = await collect(REQUEST, report)
    expect(report.usage).toEqual({
      prompt_tokens: 240,
      completion_tokens: 12,
      total_tokens: 252,
      prompt_cache_hit_tokens: 200,
      prompt_cache_miss_tokens: 40,
      prompt_tokens_details: { cached_tokens: 200, cache_write_tokens: 10 },
    })
    expect(report.finishReason).toBe('tool_calls')
    expect(report.events).toBe(text.split('event: content_block_delta\n').length - 1)
    expect(report.events).toBe(8)
  })

  test('an error event is thrown as a ProviderError after the events before it, and not forwarded', async () => {
    anthropic.script({ errorEvent: { at: 3, type: 'overloaded_error' } })
    const report: StreamReport = { events: 0 }
    const decoder = new TextDecoder()
    let text = ''
    const error = await (async () => {
      for await (const bytes of native().streamEvents(REQUEST, new AbortController().signal, report))
        text += decoder.decode(bytes)
    })().catch((caught) => caught)
    expect(error).toBeInstanceOf(ProviderError)
    expect(error.status).toBe(503)
    expect(error.options.retryable).toBe(true)
    expect(text).not.toContain('error')
    expect(text.split('\n\n').filter(Boolean)).toHaveLength(3)
    expect(report.usage).toMatchObject({ prompt_tokens: 12 })
  })

  test('a stream that breaks before message_stop is an error', async () => {
    anthropic.script({ failAfterEvents: 3 })
    const error = await collect(REQUEST).catch((caught) => caught)
    expect(error).toBeInstanceOf(ProviderError)
    expect(error.status).toBe(502)
  })
})

describe('complete', () => {
  test('the message as Anthropic answered it; the request unchanged, stream forced off; report filled', async () => {
    anthropic.script(THINKING_AND_TOOLS)
    const report: StreamReport = { events: 0 }
    const message = await native().complete({ ...REQUEST, stream: true }, new AbortController().signal, report)
    expect(message).toEqual(messageOf(THINKING_AND_TOOLS, REQUEST))
    expect(JSON.parse(anthropic.requests[0]!.rawBody)).toEqual({ ...REQUEST, stream: false })
    expect(report).toMatchObject({ finishReason: 'tool_calls', usage: { prompt_tokens: 240, completion_tokens: 12 } })
  })

  test('without stream in the request, none is added', async () => {
    await native().complete(REQUEST, new AbortController().signal)
    expect(JSON.parse(anthropic.requests[0]!.rawBody)).toEqual(REQUEST)
  })
})

describe('countTokens', () => {
  test('posts to /messages/count_tokens without the fields only generation takes; unknown fields kept', async () => {
    anthropic.script({ countedTokens: 321 })
    const counted = await native().countTokens(
      { ...REQUEST, stream: true, temperature: 0.2, stop_sequences: ['x'] },
      new AbortController().signal,
    )
    expect(counted).toEqual({ input_tokens: 321 })
    const seen = anthropic.requests[0]!
    expect(seen.path).toBe('/v1/messages/count_tokens')
    const { max_tokens: _, ...counting } = REQUEST
    expect(seen.body).toEqual(counting)
    expect(seen.headers.get('accept')).toBe('application/json')
  })

  test('an answer without input_tokens is a 502', async () => {
    anthropic.script({ status: 200, rawPieces: [] })
    anthropic.script({ countedTokens: 'many' as never })
    const error = await native()
      .countTokens(REQUEST, new AbortController().signal)
      .catch((caught) => caught)
    expect(error).toBeInstanceOf(ProviderError)
    expect(error.status).toBe(502)
  })
})
