/**
 * The native Responses relay when the upstream fails: HTTP errors, `error` events, broken or
 * oversized streams, answers that are not a Response. Every failure is a ProviderError that the
 * registry retries (or not) before the first byte, as the same failure over HTTP would be.
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { OpenAIProviderOptions } from '../../../../src/chat/providers/openai/openai'
import { ProviderError, type ResponsesRequest } from '../../../../src/chat/providers/provider'
import { responsesEventsOf, sseOf, useMockResponses, type ResponsesReply } from '../../mock-responses'
import { drainText, eventCount, expectError, nativeRelay, upstreamSawAbort, type Expected } from './native-responses'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const upstream = useMockResponses()

const REQUEST: ResponsesRequest = { model: 'gpt-upstream', input: 'hi' }
const signal = () => new AbortController().signal
const relay = (options: Partial<OpenAIProviderOptions> = {}) => nativeRelay(upstream.baseUrl, options)
const stream = (options: Partial<OpenAIProviderOptions> = {}) =>
  drainText(relay(options).streamEvents(REQUEST, signal()))

// An `error` event in the stream, after three events: what the registry and the route see.
const ERROR_EVENTS: [string, NonNullable<ResponsesReply['errorEvent']>, Expected][] = [
  [
    'a rate limit is a retryable 429',
    { at: 3, code: 'rate_limit_exceeded', message: 'slow down' },
    {
      status: 429,
      code: 'rate_limit_exceeded',
      retryable: true,
      message: "'oai' is rate limiting requests: slow down",
    },
  ],
  [
    'a server error is a retryable 502',
    { at: 3, code: 'server_error', message: 'oops' },
    { status: 502, code: 'upstream_error', retryable: true, message: 'failed with HTTP 500' },
  ],
  [
    'an overload is a retryable 503',
    { at: 3, code: 'server_is_overloaded' },
    { status: 503, code: 'upstream_unavailable', retryable: true, message: 'is unavailable' },
  ],
  [
    "an invalid prompt is the client's 400, in the upstream's words",
    { at: 3, code: 'invalid_prompt', message: 'Your prompt was flagged.' },
    {
      status: 400,
      code: 'invalid_prompt',
      retryable: false,
      message: 'Your prompt was flagged.',
      type: 'invalid_request_error',
    },
  ],
  [
    'fields inside an error object, known by their code',
    { at: 3, code: 'context_length_exceeded', message: 'too long', nested: 'invalid_request_error' },
    { status: 400, code: 'context_length_exceeded', retryable: false, message: 'too long' },
  ],
  [
    'fields inside an error object, known by their type',
    { at: 3, code: null, message: 'wait', nested: 'rate_limit_error' },
    { status: 429, code: 'rate_limit_exceeded', retryable: true, message: 'is rate limiting requests: wait' },
  ],
  [
    "the upstream's complaint about our key is a 502, its words for the log only",
    { at: 3, code: 'invalid_api_key', message: 'Incorrect API key sk-…' },
    { status: 502, code: 'upstream_auth_failed', retryable: false, message: "rejected this gateway's credentials" },
  ],
  [
    'a code Trellis does not know is an upstream failure',
    { at: 3, code: 'vector_store_timeout', message: 'the store timed out' },
    { status: 502, code: 'upstream_error', retryable: true, message: 'reported an error mid-answer.' },
  ],
  [
    'no code at all',
    { at: 0, code: null, message: 'nope' },
    { status: 502, code: 'upstream_error', retryable: true, message: 'reported an error mid-answer.' },
  ],
  [
    "Object.prototype's names are not codes",
    { at: 3, code: 'constructor' },
    { status: 502, code: 'upstream_error', retryable: true, message: 'reported an error mid-answer.' },
  ],
]

describe('an error event is thrown as a ProviderError after the events before it, and not forwarded', () => {
  for (const [name, errorEvent, expected] of ERROR_EVENTS) {
    test(name, async () => {
      upstream.script({ errorEvent })
      const { text, error } = await stream()
      expectError(error, expected)
      expect(eventCount(text)).toBe(errorEvent.at)
      expect(text).not.toContain('event: error')
    })
  }

  test("the upstream's own words on a key problem reach the log (detail), not the client", async () => {
    upstream.script({ errorEvent: { at: 1, code: 'invalid_api_key', message: 'Incorrect API key sk-abc' } })
    const { error } = await stream()
    expect((error as ProviderError).message).not.toContain('sk-abc')
    expect((error as ProviderError).options.detail).toContain('sk-abc')
  })
})

// Failures answered over HTTP before any event, streamed or not: the mapping every relay shares.
const HTTP_ERRORS: [string, ResponsesReply, Expected & { retryAfter?: number }][] = [
  [
    '429 with Retry-After',
    {
      status: 429,
      headers: { 'retry-after': '2' },
      errorBody: { error: { message: 'Rate limit reached', code: 'rate_limit_exceeded' } },
    },
    { status: 429, code: 'rate_limit_exceeded', retryable: true, message: 'Rate limit reached', retryAfter: 2 },
  ],
  ['500', { status: 500 }, { status: 502, code: 'upstream_error', retryable: true, message: 'failed with HTTP 500' }],
  ['503', { status: 503 }, { status: 503, code: 'upstream_unavailable', retryable: true, message: 'is unavailable' }],
  [
    '401 (our key)',
    { status: 401 },
    {
      status: 502,
      code: 'upstream_auth_failed',
      retryable: false,
      message: "rejected this gateway's credentials (HTTP 401)",
    },
  ],
  [
    '400 naming a param',
    {
      status: 400,
      errorBody: {
        error: {
          message: 'Unknown parameter: foo',
          type: 'invalid_request_error',
          param: 'foo',
          code: 'unknown_parameter',
        },
      },
    },
    { status: 400, code: 'unknown_parameter', retryable: false, message: 'Unknown parameter: foo' },
  ],
  [
    '404',
    { status: 404 },
    { status: 404, code: 'model_not_found', retryable: false, message: "does not serve the model 'gpt-upstream'" },
  ],
]

describe('HTTP errors before the stream are the mapped errors', () => {
  for (const [name, reply, expected] of HTTP_ERRORS) {
    test(`${name}: streamed`, async () => {
      upstream.script(reply)
      const { text, error } = await stream()
      expect(text).toBe('')
      expectError(error, expected)
      expect((error as ProviderError).options.retryAfter).toBe(expected.retryAfter)
    })

    test(`${name}: not streamed`, async () => {
      upstream.script(reply)
      const error = await relay()
        .complete(REQUEST, signal())
        .catch((caught) => caught)
      expectError(error, expected)
    })
  }
})

const all = responsesEventsOf({}, REQUEST).map(sseOf)

// Streams that are not what the protocol allows: each ends with a 502 the registry may retry.
const BROKEN: [string, ResponsesReply, string, number][] = [
  [
    'JSON instead of an event stream',
    { contentType: 'application/json', rawPieces: ['{"id":"resp_1"}'] },
    'with JSON instead of an event stream',
    0,
  ],
  [
    'closed before the terminal event',
    { final: 'none' },
    'closed the stream before response.completed',
    all.length - 1,
  ],
  ['a connection that breaks mid-stream', { failAfterEvents: 4 }, 'broke mid-response', 4],
  [
    'data that is not a JSON object',
    { rawPieces: [all[0]!, 'event: response.output_text.delta\ndata: [1,2]\n\n', ...all.slice(1)] },
    'sent a response.output_text.delta event that is not a JSON object',
    1,
  ],
  [
    'data that is not JSON, in unusual framing',
    { rawPieces: [all[0]!, 'data: {"type":\n\n'] },
    'not a typed JSON object',
    1,
  ],
  [
    'a type that would forge lines when written out again',
    { rawPieces: [all[0]!, 'data: {"type":"x\\ndata: {}"}\n\n'] },
    'not a typed JSON object',
    1,
  ],
  [
    'an error object without a type (as OpenRouter sends them)',
    { rawPieces: [all[0]!, 'data: {"error":{"message":"busy","code":"server_is_overloaded"}}\n\n'] },
    'is unavailable',
    1,
  ],
]

describe('broken streams', () => {
  for (const [name, reply, message, delivered] of BROKEN) {
    test(name, async () => {
      upstream.script(reply)
      const { text, error } = await stream()
      expect(error).toBeInstanceOf(ProviderError)
      expect((error as ProviderError).message).toContain(message)
      expect((error as ProviderError).options.retryable).toBe(true)
      expect(eventCount(text)).toBe(delivered)
    })
  }
})

describe('the event size cap (CHAT_MAX_EVENT_BYTES)', () => {
  const big = (bytes: number) =>
    sseOf({
      event: 'response.output_text.delta',
      data: { type: 'response.output_text.delta', delta: 'x'.repeat(bytes) },
    })

  test('an event that grows past it across reads ends the stream; the events before it still go out', async () => {
    upstream.script({ rawPieces: [all[0]!, ...chunk(big(10_000), 1000), ...all.slice(1)], eventDelayMs: 2 })
    const { text, error } = await stream({ maxEventBytes: 4096 })
    expect(error).toBeInstanceOf(ProviderError)
    expect((error as ProviderError).message).toContain(
      "larger than this gateway's limit of 4096 bytes (CHAT_MAX_EVENT_BYTES)",
    )
    expect(text).toBe(all[0]!)
    expect(await upstreamSawAbort(upstream.requests[0]!)).toBe(true)
  })

  test('an event below it passes whole', async () => {
    const event = big(3000)
    upstream.script({ rawPieces: [all[0]!, ...chunk(event, 1000), ...all.slice(1)] })
    const { text, error } = await stream({ maxEventBytes: 4096 })
    expect(error).toBeUndefined()
    expect(text).toBe([all[0], event, ...all.slice(1)].join(''))
  })
})

describe('complete: answers that are not a Response', () => {
  const ROWS: [string, ResponsesReply, Expected][] = [
    [
      'an error body in a 200 is mapped by its code',
      {
        body: { error: { message: 'You exceeded your quota', type: 'insufficient_quota', code: 'insufficient_quota' } },
      },
      { status: 429, code: 'insufficient_quota', retryable: true, message: 'You exceeded your quota' },
    ],
    [
      "an error event's shape in a 200",
      { body: { type: 'error', code: 'server_error', message: 'x', param: null } },
      { status: 502, code: 'upstream_error', retryable: true, message: 'failed with HTTP 500' },
    ],
    [
      'a JSON array',
      { body: [1, 2] },
      { status: 502, code: 'upstream_error', retryable: true, message: 'not a JSON object' },
    ],
    [
      'not JSON',
      { body: '<html>' },
      { status: 502, code: 'upstream_error', retryable: true, message: 'not a JSON object' },
    ],
  ]
  for (const [name, reply, expected] of ROWS) {
    test(name, async () => {
      upstream.script(reply)
      expectError(
        await relay()
          .complete(REQUEST, signal())
          .catch((caught) => caught),
        expected,
      )
    })
  }

  test('an answer past CHAT_MAX_RESPONSE_BYTES is a 502 naming the limit', async () => {
    upstream.script({ items: [{ type: 'message', text: 'x'.repeat(70_000) }] })
    const error = await relay({ maxResponseBytes: 65_536 })
      .complete(REQUEST, signal())
      .catch((caught) => caught)
    expectError(error, {
      status: 502,
      code: 'upstream_error',
      retryable: true,
      message: 'limit of 65536 bytes (CHAT_MAX_RESPONSE_BYTES)',
    })
  })
})

function chunk(text: string, size: number): string[] {
  const out: string[] = []
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size))
  return out
}
