/**
 * The `anthropic` provider against odd clients and a hostile or broken upstream: every outcome is
 * a translation Anthropic accepts, or a clear ProviderError (never a TypeError, which the route
 * turns into a 500), and nothing the upstream names can reach Object.prototype.
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { PROVIDER_DEFAULTS } from '../../../../src/config/chat'
import { anthropicProvider } from '../../../../src/chat/providers/anthropic/anthropic'
import {
  ProviderError,
  type ChatRequest,
  type MessagesRequest,
  type StreamReport,
} from '../../../../src/chat/providers/provider'
import { useMockAnthropic } from '../../mock-anthropic'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const anthropic = useMockAnthropic()

const provider = () => anthropicProvider({ ...PROVIDER_DEFAULTS, name: 'claude', baseUrl: anthropic.baseUrl })
const signal = () => new AbortController().signal
const text = (value: string) => ({ type: 'text', text: value })
const hi = [{ role: 'user', content: 'hi' }]

/** One Anthropic event as the API writes it. */
const ev = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`
const START = ev({
  type: 'message_start',
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [],
    usage: { input_tokens: 3, output_tokens: 1 },
  },
})
const TEXT_START = ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })
const TEXT = (index: number, value: string) =>
  ev({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: value } })
const BLOCK_STOP = (index: number) => ev({ type: 'content_block_stop', index })
const END = (stopReason = 'end_turn') =>
  ev({ type: 'message_delta', delta: { stop_reason: stopReason }, usage: { output_tokens: 2 } }) +
  ev({ type: 'message_stop' })
const TOOL_START = (index: number, id: string) =>
  ev({ type: 'content_block_start', index, content_block: { type: 'tool_use', id, name: 'now', input: {} } })
const ARGS = (index: number, partial_json: string) =>
  ev({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } })

/** The chunks' data the provider hands over for a raw upstream stream, the error it ends with, and its report. */
async function translate(raw: string) {
  anthropic.script({ rawPieces: [raw] })
  const report: StreamReport = { events: 0 }
  let body = ''
  let error: unknown
  try {
    for await (const bytes of provider().streamEvents({ model: 'm', messages: hi, stream: true }, signal(), report))
      body += new TextDecoder().decode(bytes)
  } catch (caught) {
    error = caught
  }
  const chunks = body
    .split('\n\n')
    .filter((event) => event.startsWith('data: {'))
    .map((event) => JSON.parse(event.slice(6)))
  return { chunks, error, report }
}

describe('what an odd but valid OpenAI request becomes', () => {
  const ROWS: { name: string; messages: unknown[]; expected: unknown[]; system?: unknown[] }[] = [
    {
      name: 'empty text is left out (the API refuses empty text blocks), and a message left with nothing is no turn',
      messages: [
        { role: 'system', content: '' },
        { role: 'user', content: 'a' },
        { role: 'assistant', content: '' },
        { role: 'user', content: [text(''), text('b')] },
      ],
      expected: [{ role: 'user', content: [text('a'), text('b')] }],
    },
    {
      name: 'an empty tool result is a tool_result without content',
      messages: [
        ...hi,
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '' } }],
        },
        { role: 'tool', tool_call_id: 't1', content: '' },
      ],
      expected: [
        { role: 'user', content: [text('hi')] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1' }] },
      ],
    },
  ]
  for (const { name, messages, expected } of ROWS) {
    test(name, async () => {
      await provider().complete({ model: 'm', messages } as ChatRequest, signal())
      expect(anthropic.requests[0]!.body.messages).toEqual(expected)
      expect(anthropic.requests[0]!.body.system).toBeUndefined()
    })
  }
})

/**
 * Requests that must be a 400 naming `param` before anything goes upstream; `json` is parsed, so `__proto__` is an own
 * field.
 */
const REFUSED: { json: string; param: string; message: string }[] = [
  { json: '{"__proto__": {"x": 1}}', param: '__proto__', message: 'not supported' },
  { json: '{"hasOwnProperty": 5}', param: 'hasOwnProperty', message: 'not supported' },
  { json: '{"reasoning_effort": "toString"}', param: 'reasoning_effort', message: 'must be one of' },
  {
    json: '{"reasoning_effort": "constructor", "max_tokens": 5000}',
    param: 'reasoning_effort',
    message: 'must be one of',
  },
  {
    json: '{"messages": [{"role": "system", "content": "Be brief."}]}',
    param: 'messages',
    message: 'at least one user or assistant message',
  },
  {
    json: '{"messages": [{"role": "user", "content": ""}]}',
    param: 'messages',
    message: 'at least one user or assistant message',
  },
  {
    json: '{"messages": [{"role": "user", "content": [{"type": "text"}]}]}',
    param: 'messages[0].content[0]',
    message: 'needs its text as a string',
  },
]

describe('odd requests are a 400 naming the field, never a TypeError', () => {
  for (const { json, param, message } of REFUSED) {
    test(`${json} → 400 param ${param}`, async () => {
      const request = { model: 'm', messages: hi, ...JSON.parse(json) } as ChatRequest
      const error = await provider()
        .complete(request, signal())
        .catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(ProviderError)
      expect((error as ProviderError).status).toBe(400)
      expect((error as ProviderError).options.param).toBe(param)
      expect((error as ProviderError).message).toContain(message)
      expect(anthropic.requests).toHaveLength(0)
    })
  }
})

/** Broken streams: each a clear 502 after what came before it (`content`: the text relayed first). */
const BROKEN: { name: string; raw: string; error: string; content?: string }[] = [
  {
    name: 'content before message_start',
    raw: TEXT_START + TEXT(0, 'x') + START + END(),
    error: 'sent content_block_start before message_start',
  },
  { name: 'message_delta before message_start', raw: END(), error: 'sent message_delta before message_start' },
  {
    name: 'a second message_start',
    raw: START + TEXT_START + TEXT(0, 'a') + START + END(),
    error: 'sent a second message_start',
    content: 'a',
  },
  {
    name: 'an error event of a type named like an Object.prototype member',
    raw: START + ev({ type: 'error', error: { type: 'constructor', message: 'm' } }),
    error: 'reported an error mid-answer',
  },
  {
    name: 'an error event of type __proto__',
    raw: START + 'event: error\ndata: {"type":"error","error":{"type":"__proto__"}}\n\n',
    error: 'reported an error mid-answer',
  },
]

describe('a broken upstream stream ends in a clear error', () => {
  for (const { name, raw, error, content } of BROKEN) {
    test(name, async () => {
      const { chunks, error: caught } = await translate(raw)
      expect(caught).toBeInstanceOf(ProviderError)
      expect((caught as ProviderError).status).toBe(502)
      expect((caught as ProviderError).message).toContain(error)
      expect(chunks.every((chunk) => chunk.id === 'msg_1')).toBe(true)
      expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe(content ?? '')
    })
  }
})

describe('odd but survivable upstream events', () => {
  for (const stopReason of ['constructor', '__proto__', 'toString']) {
    test(`stop_reason ${stopReason} is kept as a string, streamed, native and not streamed`, async () => {
      const raw =
        START +
        TEXT_START +
        TEXT(0, 'a') +
        BLOCK_STOP(0) +
        END(stopReason).replace('"end_turn"', JSON.stringify(stopReason))
      const { chunks, error, report } = await translate(raw)
      expect(error).toBeUndefined()
      expect(chunks.at(-1).choices[0].finish_reason).toBe(stopReason)
      expect(report.finishReason).toBe(stopReason)

      anthropic.script({ rawPieces: [raw] })
      const native: StreamReport = { events: 0 }
      for await (const _ of provider().messages.streamEvents(
        { model: 'm', messages: hi, max_tokens: 9, stream: true } as MessagesRequest,
        signal(),
        native,
      ));
      expect(native.finishReason).toBe(stopReason)

      anthropic.script({ stopReason })
      const completion = await provider().complete({ model: 'm', messages: hi } as ChatRequest, signal())
      expect(completion.choices[0]!.finish_reason).toBe(stopReason)
    })
  }

  test('a tool call with empty input and no input_json_delta gets arguments {}, as the whole answer has', async () => {
    const raw =
      START +
      TOOL_START(0, 't1') +
      BLOCK_STOP(0) +
      TOOL_START(1, 't2') +
      ARGS(1, '') +
      BLOCK_STOP(1) +
      TOOL_START(2, 't3') +
      ARGS(2, '{"a":1}') +
      BLOCK_STOP(2) +
      END('tool_use')
    const { chunks, error } = await translate(raw)
    expect(error).toBeUndefined()
    const args = ['', '', '']
    for (const chunk of chunks)
      for (const call of chunk.choices[0]?.delta?.tool_calls ?? []) args[call.index] += call.function.arguments
    expect(args).toEqual(['{}', '{}', '{"a":1}'])
  })

  test('a tool block never stopped still gets its {} before the finish chunk', async () => {
    const { chunks } = await translate(START + TOOL_START(0, 't1') + END('tool_use'))
    const last = chunks.filter((chunk) => chunk.choices.length > 0).slice(-2)
    expect(last[0].choices[0].delta.tool_calls).toEqual([{ index: 0, function: { arguments: '{}' } }])
    expect(last[1].choices[0].finish_reason).toBe('tool_calls')
  })

  test('a delta for a block that has stopped, or was never started, is not relayed', async () => {
    const { chunks, error } = await translate(
      START + TEXT_START + TEXT(0, 'a') + BLOCK_STOP(0) + TEXT(0, 'late') + TEXT(7, 'stray') + END(),
    )
    expect(error).toBeUndefined()
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe('a')
  })

  test("a tool block's non-string id and name reach the client as strings", async () => {
    const raw =
      START +
      ev({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 42, name: null, input: {} },
      }) +
      END('tool_use')
    const { chunks } = await translate(raw)
    expect(chunks[1].choices[0].delta.tool_calls[0]).toMatchObject({ id: '42', function: { name: '' } })
  })
})

describe('odd answers from the upstream', () => {
  test('a non-streamed 200 that is an error body is mapped by its type, not taken for a message', async () => {
    anthropic.script({ body: { type: 'error', error: { type: 'overloaded_error', message: 'busy' } } })
    for (const call of [
      () => provider().complete({ model: 'm', messages: hi } as ChatRequest, signal()),
      () => provider().messages.complete({ model: 'm', messages: hi, max_tokens: 9 } as MessagesRequest, signal()),
    ]) {
      const error = await call().catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(ProviderError)
      expect((error as ProviderError).status).toBe(503)
      expect((error as ProviderError).options.retryable).toBe(true)
    }
  })

  test('native: an event whose data is not JSON ends the stream with an error instead of reaching the client', async () => {
    for (const bad of ['nope', '{"type":"content_block_delta",', '[1,2]']) {
      anthropic.script({ rawPieces: [START + TEXT_START + `event: content_block_delta\ndata: ${bad}\n\n` + END()] })
      let body = ''
      const error = await (async () => {
        for await (const bytes of provider().messages.streamEvents(
          { model: 'm', messages: hi, max_tokens: 9, stream: true } as MessagesRequest,
          signal(),
        ))
          body += new TextDecoder().decode(bytes)
      })().catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(ProviderError)
      expect((error as ProviderError).message).toContain('sent a content_block_delta event that is not a JSON object')
      expect(body).toBe(START + TEXT_START)
    }
  })

  const HTTP: { name: string; status: number; body: unknown; message: string; absent?: string }[] = [
    {
      name: "a proxy's HTML 400 page is not the client's message",
      status: 400,
      body: '<html><body>Bad Request</body></html>',
      message: 'rejected the request',
      absent: '<html>',
    },
    {
      name: "a proxy's HTML 429 page is not the client's message",
      status: 429,
      body: '<html>slow down</html>',
      message: 'rate limiting requests',
      absent: '<html>',
    },
    {
      name: "Anthropic's own 400 message still is",
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: too big' } },
      message: 'max_tokens: too big',
    },
    {
      name: 'a JSON 400 from elsewhere keeps its message',
      status: 400,
      body: { error: { message: 'bad field' } },
      message: 'bad field',
    },
    {
      name: 'an error type named like an Object.prototype member is mapped by the status',
      status: 529,
      body: { type: 'error', error: { type: 'constructor', message: 'x' } },
      message: 'is unavailable',
      absent: 'function',
    },
  ]
  for (const { name, status, body, message, absent } of HTTP) {
    test(name, async () => {
      anthropic.script({ status, errorBody: body })
      const error = await provider()
        .complete({ model: 'm', messages: hi } as ChatRequest, signal())
        .catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(ProviderError)
      expect((error as ProviderError).message).toContain(message)
      if (absent) expect((error as ProviderError).message).not.toContain(absent)
    })
  }
})
