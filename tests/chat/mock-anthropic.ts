/**
 * An Anthropic Messages API upstream for tests: a real HTTP/1.1 server (raw TCP on port 0) that
 * answers `POST /v1/messages` (streamed or not) and `POST /v1/messages/count_tokens`, scripted per
 * request. Streams follow the documented event sequence: `message_start`, a `ping`, then per
 * content block `content_block_start`, its deltas and `content_block_stop`, then `message_delta`
 * (stop reason and usage) and `message_stop`. It records every request (path, headers, the body as
 * parsed and as sent), the exact bytes it streamed, and whether the client went away early.
 *
 * @example
 * const anthropic = await startMockAnthropic()
 * anthropic.script(
 *   { status: 529 },                                                    // first request: overloaded
 *   { blocks: [{ type: 'thinking', thinking: ['Hm', 'm.'] }, { type: 'text', text: ['Hi', '!'] }] },
 * )
 * // CHAT_PROVIDERS={"claude":{"kind":"anthropic","baseUrl":anthropic.baseUrl,"apiKey":"sk-ant-test"}}
 * anthropic.requests[1].body.max_tokens      // what the second request asked for
 * anthropic.requests[1].sent                 // the exact event stream it got
 */
import { afterAll, beforeAll, beforeEach } from 'bun:test'
import type { Socket } from 'node:net'
import {
  endChunks,
  startScriptedServer,
  watchHangUp,
  writeChunk,
  writeHead,
  type HangUp,
  type ScriptedRequest,
} from '../helpers/scripted-server'

/** One content block of an answer; `string[]` fields stream as one delta per piece. */
type MockBlock =
  | { type: 'text'; text: string | string[] }
  | { type: 'thinking'; thinking: string | string[]; signature?: string }
  | { type: 'tool_use'; id: string; name: string; input: string | string[] }

type MockUsage = {
  input_tokens: number
  output_tokens: number
  cache_read_input_tokens?: number
  cache_creation_input_tokens?: number
}

/** One scripted answer. Everything is optional; `{}` answers {@link DEFAULT_BLOCKS}. */
export type AnthropicReply = {
  /** HTTP status; anything but 200 answers with Anthropic's error body. */
  status?: number
  /** The error body's `error.type`; by default the type Anthropic documents for `status`. */
  errorType?: string
  /** An error body sent instead, as it is (a string as text). */
  errorBody?: unknown
  /** A non-streamed 200 answer sent instead of the message, as it is (a string as text). */
  body?: unknown
  headers?: Record<string, string>
  blocks?: MockBlock[]
  /** Default: `tool_use` when a tool_use block is answered, else `end_turn`. */
  stopReason?: string
  usage?: MockUsage
  /** The answer's model; default: the request's. */
  model?: string
  /** `input_tokens` of a count_tokens answer; default: the usage's. */
  countedTokens?: number
  /** Where pings go: after message_start (the default, as Anthropic does), between all events, or nowhere. */
  pings?: 'start' | 'every' | 'none'
  /**
   * An `error` event of this type (default `overloaded_error`) instead of the event at this position; the stream then
   * ends.
   */
  errorEvent?: { at: number; type?: string; message?: string }
  /** Line ends of the stream: LF (Anthropic's) or CRLF. */
  lineEnds?: 'lf' | 'crlf'
  /** Send the stream in pieces of this many bytes, one write each (events and characters split across reads). */
  splitEvery?: number
  /** Send these exact pieces as the stream instead. */
  rawPieces?: (string | Uint8Array)[]
  /** Wait before the response headers. */
  headerDelayMs?: number
  /** Wait after the headers before the first event. */
  firstEventDelayMs?: number
  /** Wait before each later event. */
  eventDelayMs?: number
  /** Send a ping at this interval during every wait, and while stalled. */
  pingEveryMs?: number
  /** Stop sending, with the connection open, after this many events (pings not counted). */
  stallAfterEvents?: number
  /** Break the connection after this many events (pings not counted). */
  failAfterEvents?: number
}

type RecordedAnthropicRequest = HangUp & {
  path: string
  headers: Headers
  body: Record<string, unknown>
  /** The request body exactly as it arrived. */
  rawBody: string
  /** Everything streamed so far, exactly as sent. */
  readonly sent: string
}

export type MockAnthropic = {
  /** The base URL to configure, ending in `/v1`. */
  baseUrl: string
  requests: RecordedAnthropicRequest[]
  /** Queues answers for the next requests; the last one keeps answering after the queue runs out. */
  script(...replies: AnthropicReply[]): void
  stop(): Promise<void>
}

const DEFAULT_BLOCKS: MockBlock[] = [{ type: 'text', text: ['Hello', ', wörld', ' 🌱'] }]
const DEFAULT_USAGE: MockUsage = { input_tokens: 12, output_tokens: 3 }
export const MESSAGE_ID = 'msg_mock_01'

/** The status Anthropic answers each error type with. */
const STATUS_OF: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
}

const pieces = (value: string | string[]) => (typeof value === 'string' ? [value] : value)

/** The stop reason of a reply. */
const stopReasonOf = (reply: AnthropicReply) =>
  reply.stopReason ??
  ((reply.blocks ?? DEFAULT_BLOCKS).some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn')

/** The events (type and data) a streamed reply sends, pings included, in order. */
export function anthropicEventsOf(
  reply: AnthropicReply,
  body: Record<string, unknown>,
): { event: string; data: Record<string, unknown> }[] {
  const usage = reply.usage ?? DEFAULT_USAGE
  const events: { event: string; data: Record<string, unknown> }[] = []
  const add = (data: Record<string, unknown>) => events.push({ event: String(data.type), data })
  const startUsage = {
    input_tokens: usage.input_tokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
    output_tokens: 1,
  }
  add({
    type: 'message_start',
    message: {
      id: MESSAGE_ID,
      type: 'message',
      role: 'assistant',
      model: reply.model ?? body.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: startUsage,
    },
  })
  if (reply.pings !== 'none') add({ type: 'ping' })
  ;(reply.blocks ?? DEFAULT_BLOCKS).forEach((block, index) => {
    const delta = (value: Record<string, unknown>) => add({ type: 'content_block_delta', index, delta: value })
    if (block.type === 'text') {
      add({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } })
      for (const text of pieces(block.text)) delta({ type: 'text_delta', text })
    } else if (block.type === 'thinking') {
      add({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } })
      for (const thinking of pieces(block.thinking)) delta({ type: 'thinking_delta', thinking })
      delta({ type: 'signature_delta', signature: block.signature ?? 'c2lnbmF0dXJl' })
    } else {
      add({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      })
      // Anthropic's first input_json_delta is often empty.
      for (const partial_json of ['', ...pieces(block.input)]) delta({ type: 'input_json_delta', partial_json })
    }
    add({ type: 'content_block_stop', index })
  })
  const finalUsage: Record<string, unknown> = { output_tokens: usage.output_tokens }
  if (usage.cache_read_input_tokens !== undefined) finalUsage.cache_read_input_tokens = usage.cache_read_input_tokens
  add({ type: 'message_delta', delta: { stop_reason: stopReasonOf(reply), stop_sequence: null }, usage: finalUsage })
  add({ type: 'message_stop' })
  if (reply.pings === 'every')
    return events.flatMap((each, i) =>
      i === 0 || each.event === 'ping' ? [each] : [{ event: 'ping', data: { type: 'ping' } }, each],
    )
  return events
}

/** One event as Anthropic writes it. Pings are written `{"type": "ping"}`, with the space, as the API does. */
export function sseOf(event: { event: string; data: Record<string, unknown> }): string {
  const data = event.event === 'ping' ? '{"type": "ping"}' : JSON.stringify(event.data)
  return `event: ${event.event}\ndata: ${data}\n\n`
}

/** The non-streamed `message` a 200 reply sends. */
export function messageOf(reply: AnthropicReply, body: Record<string, unknown>): Record<string, unknown> {
  const content = (reply.blocks ?? DEFAULT_BLOCKS).map((block) =>
    block.type === 'text'
      ? { type: 'text', text: pieces(block.text).join('') }
      : block.type === 'thinking'
        ? { type: 'thinking', thinking: pieces(block.thinking).join(''), signature: block.signature ?? 'c2lnbmF0dXJl' }
        : { type: 'tool_use', id: block.id, name: block.name, input: JSON.parse(pieces(block.input).join('') || '{}') },
  )
  const usage = reply.usage ?? DEFAULT_USAGE
  return {
    id: MESSAGE_ID,
    type: 'message',
    role: 'assistant',
    model: reply.model ?? body.model,
    content,
    stop_reason: stopReasonOf(reply),
    stop_sequence: null,
    usage: { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...usage },
  }
}

/** Anthropic's error body for a status. */
function errorBodyOf(reply: AnthropicReply): unknown {
  if (reply.errorBody !== undefined) return reply.errorBody
  const status = reply.status ?? 500
  const type = reply.errorType ?? Object.keys(STATUS_OF).find((key) => STATUS_OF[key] === status) ?? 'api_error'
  return { type: 'error', error: { type, message: `mock ${type}` }, request_id: 'req_mock' }
}

export async function startMockAnthropic(): Promise<MockAnthropic> {
  const requests: RecordedAnthropicRequest[] = []
  // Raw TCP (see scripted-server.ts): only a socket we own can break a stream mid-event and see a
  // client leave after its request was read.
  const server = await startScriptedServer<AnthropicReply>({}, (socket, request, reply) =>
    answer(socket, request, reply, requests),
  )
  return { baseUrl: `http://127.0.0.1:${server.port}/v1`, requests, script: server.script, stop: server.stop }
}

/**
 * One mock for a whole test file: started before its tests, stopped after them, and before each
 * test emptied of requests and scripted back to `{}`, so no test sees another's leftovers. Its
 * fields are valid inside tests (and the functions they call), not while the file is being read.
 *
 * @example
 * const anthropic = useMockAnthropic()
 * const provider = () => anthropicProvider({ ...PROVIDER_DEFAULTS, name: 'claude', baseUrl: anthropic.baseUrl })
 * test('…', async () => {
 *   anthropic.script({ status: 529 })
 *   …
 *   expect(anthropic.requests).toHaveLength(1)
 * })
 */
export function useMockAnthropic(): MockAnthropic {
  let mock: MockAnthropic | undefined
  beforeAll(async () => {
    mock = await startMockAnthropic()
  })
  afterAll(async () => {
    await mock?.stop()
  })
  beforeEach(() => {
    started().requests.length = 0
    started().script({})
  })
  const started = () => {
    if (!mock) throw new Error('useMockAnthropic(): the mock starts in beforeAll; use its fields inside tests')
    return mock
  }
  return {
    get baseUrl() {
      return started().baseUrl
    },
    get requests() {
      return started().requests
    },
    script: (...replies) => started().script(...replies),
    stop: () => started().stop(),
  }
}

async function answer(
  socket: Socket,
  request: ScriptedRequest,
  reply: AnthropicReply,
  requests: RecordedAnthropicRequest[],
): Promise<void> {
  const body = JSON.parse(request.text || '{}') as Record<string, unknown>
  const sent: Buffer[] = []
  const { recorded, gone, complete } = watchHangUp(socket, {
    path: request.path,
    headers: request.headers,
    body,
    rawBody: request.text,
    // Decoded whole on demand: pieces may split a character.
    get sent() {
      return Buffer.concat(sent).toString('utf8')
    },
  })
  requests.push(recorded)
  const send = (data: string | Uint8Array) => {
    const bytes = Buffer.from(data)
    if (gone() || bytes.length === 0) return
    sent.push(bytes)
    writeChunk(socket, bytes)
  }
  const json = (status: number, payload: unknown) => {
    const text = Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload))
    writeHead(socket, status, {
      'content-type': 'application/json',
      'content-length': String(text.length),
      'request-id': 'req_mock',
      ...reply.headers,
    })
    socket.write(text)
    complete()
  }

  if (reply.headerDelayMs) await sleep(reply.headerDelayMs)
  if (gone()) return
  const status = reply.status ?? 200
  if (status !== 200) return json(status, errorBodyOf(reply))
  if (request.path.endsWith('/count_tokens'))
    return json(200, { input_tokens: reply.countedTokens ?? (reply.usage ?? DEFAULT_USAGE).input_tokens })
  if (!body.stream) return json(200, reply.body !== undefined ? reply.body : messageOf(reply, body))

  writeHead(socket, 200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'transfer-encoding': 'chunked',
    'request-id': 'req_mock',
    ...reply.headers,
  })
  const ping = () => send(sseOf({ event: 'ping', data: { type: 'ping' } }))
  const wait = async (ms: number) => {
    if (!reply.pingEveryMs) return sleep(ms)
    for (let waited = 0; waited < ms && !gone(); waited += reply.pingEveryMs) {
      await sleep(Math.min(reply.pingEveryMs, ms - waited))
      ping()
    }
  }
  const write = (text: string) => {
    const framed = reply.lineEnds === 'crlf' ? text.replaceAll('\n', '\r\n') : text
    if (!reply.splitEvery) return send(framed)
    const bytes = Buffer.from(framed)
    for (let at = 0; at < bytes.length; at += reply.splitEvery) send(bytes.subarray(at, at + reply.splitEvery))
  }
  if (reply.rawPieces) {
    for (const raw of reply.rawPieces) {
      if (reply.eventDelayMs) await sleep(reply.eventDelayMs)
      send(raw)
    }
  } else {
    if (reply.firstEventDelayMs) await wait(reply.firstEventDelayMs)
    let counted = 0
    for (const event of anthropicEventsOf(reply, body)) {
      if (gone()) return
      if (event.event !== 'ping') {
        if (counted === reply.failAfterEvents) {
          await sleep(5)
          socket.destroy()
          return
        }
        if (counted === reply.stallAfterEvents) {
          while (!gone()) await wait(reply.pingEveryMs ?? 20)
          return
        }
        if (counted === reply.errorEvent?.at) {
          const type = reply.errorEvent.type ?? 'overloaded_error'
          write(
            sseOf({
              event: 'error',
              data: { type: 'error', error: { type, message: reply.errorEvent.message ?? `mock ${type}` } },
            }),
          )
          break
        }
        if (counted > 0 && reply.eventDelayMs) await wait(reply.eventDelayMs)
        counted++
      }
      write(sseOf(event))
    }
  }
  if (gone()) return
  endChunks(socket)
  complete()
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
