/**
 * An OpenAI Responses API upstream for tests: a real HTTP/1.1 server (raw TCP on port 0) that
 * answers `POST /v1/responses`, streamed or not, scripted per request. Streams follow the event
 * sequence OpenAI sends: `response.created`, `response.in_progress`, then per output item
 * `response.output_item.added`, its parts and deltas and `response.output_item.done`, then the
 * terminal `response.completed` (or `response.incomplete` / `response.failed`), every event
 * `event: <type>\ndata: <json>\n\n` with `sequence_number` from 0. It records every request (path,
 * headers, the body as parsed and as sent), the exact bytes it streamed, and whether the client
 * went away early.
 *
 * @example
 * const upstream = useMockResponses()
 * upstream.script(
 *   { status: 429 },                                                     // first request: rate limited
 *   { items: [{ type: 'function_call', name: 'lookup', arguments: ['{"q":', '"x"}'] }] },
 * )
 * upstream.requests[1].sent                 // the exact event stream the second request got
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

/** One output item; `string[]` fields stream as one delta per piece. */
type MockItem =
  | { type: 'message'; text: string | string[] }
  | { type: 'function_call'; name: string; arguments: string | string[] }
  | { type: 'reasoning'; summary: string | string[] }

type MockResponsesUsage = {
  input_tokens: number
  output_tokens: number
  cached_tokens?: number
  reasoning_tokens?: number
}

/** One named event as the mock sends it. */
export type MockEvent = { event: string; data: Record<string, unknown> }

/** One scripted answer. Everything is optional; `{}` answers {@link DEFAULT_ITEMS}. */
export type ResponsesReply = {
  /** HTTP status; anything but 200 answers with `errorBody` (default: OpenAI's error shape). */
  status?: number
  errorBody?: unknown
  /** A non-streamed 200 answer sent instead of the Response, as it is (a string as text). */
  body?: unknown
  headers?: Record<string, string>
  items?: MockItem[]
  /** The final Response's usage; `null` leaves it out. */
  usage?: MockResponsesUsage | null
  /** How the stream ends (`none`: it just closes), and the final Response's status. */
  final?: 'completed' | 'incomplete' | 'failed' | 'none'
  /** Events the mock does not generate (e.g. a built-in tool's), sent before the generated event at `at`. */
  extraEvents?: { at: number; event: MockEvent }[]
  /** An `error` event instead of the generated event at `at` (pings not counted); the stream then ends. */
  errorEvent?: {
    at: number
    code?: string | null
    message?: string
    /** The fields inside an `error` object of this type, as some servers write it, instead of beside `type`. */
    nested?: string
  }
  /** Line ends of the stream: LF (OpenAI's) or CRLF. */
  lineEnds?: 'lf' | 'crlf'
  /** Send the stream in pieces of this many bytes, one write each (events and characters split across reads). */
  splitEvery?: number
  /** Send these exact pieces as the stream instead. */
  rawPieces?: (string | Uint8Array)[]
  /** The stream's content type (default `text/event-stream`). */
  contentType?: string
  headerDelayMs?: number
  firstEventDelayMs?: number
  eventDelayMs?: number
  /** `: keep-alive` comments at this interval during every wait, and while stalled. */
  commentEveryMs?: number
  /** Stop sending, with the connection open, after this many events. */
  stallAfterEvents?: number
  /** Break the connection after this many events. */
  failAfterEvents?: number
}

type RecordedResponsesRequest = HangUp & {
  path: string
  headers: Headers
  body: Record<string, unknown>
  /** The request body exactly as it arrived. */
  rawBody: string
  /** Everything streamed (or answered) so far, exactly as sent. */
  readonly sent: string
}

export type MockResponses = {
  /** The base URL to configure, ending in `/v1`. */
  baseUrl: string
  requests: RecordedResponsesRequest[]
  /** Queues answers for the next requests; the last one keeps answering after the queue runs out. */
  script(...replies: ResponsesReply[]): void
  stop(): Promise<void>
}

const DEFAULT_ITEMS: MockItem[] = [{ type: 'message', text: ['Hello', ', wörld', ' 🌱'] }]
const DEFAULT_USAGE: MockResponsesUsage = { input_tokens: 12, output_tokens: 3, cached_tokens: 4, reasoning_tokens: 0 }
export const RESPONSE_ID = 'resp_mock_0123456789abcdef'
const CREATED_AT = 1_795_733_997

const pieces = (value: string | string[]) => (typeof value === 'string' ? [value] : value)

/** The output items of the final Response. */
function outputOf(reply: ResponsesReply): Record<string, unknown>[] {
  return (reply.items ?? DEFAULT_ITEMS).map((item, index) => doneItem(item, index))
}

function doneItem(item: MockItem, index: number): Record<string, unknown> {
  if (item.type === 'message')
    return {
      id: `msg_mock_${index}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: pieces(item.text).join(''), annotations: [], logprobs: [] }],
    }
  if (item.type === 'function_call')
    return {
      id: `fc_mock_${index}`,
      type: 'function_call',
      status: 'completed',
      call_id: `call_mock_${index}`,
      name: item.name,
      arguments: pieces(item.arguments).join(''),
    }
  return {
    id: `rs_mock_${index}`,
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: pieces(item.summary).join('') }],
  }
}

/** The Response a reply ends with (or answers whole), with `status` and what goes with it. */
export function responseOf(
  reply: ResponsesReply,
  body: Record<string, unknown>,
  status: string = reply.final === 'none' || reply.final === undefined ? 'completed' : reply.final,
): Record<string, unknown> {
  const usage = reply.usage === undefined ? DEFAULT_USAGE : reply.usage
  return {
    id: RESPONSE_ID,
    object: 'response',
    created_at: CREATED_AT,
    status,
    error: status === 'failed' ? { code: 'server_error', message: 'mock failure' } : null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    model: body.model,
    output: status === 'in_progress' ? [] : outputOf(reply),
    usage:
      usage === null || status === 'in_progress'
        ? null
        : {
            input_tokens: usage.input_tokens,
            input_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
            output_tokens: usage.output_tokens,
            output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
            total_tokens: usage.input_tokens + usage.output_tokens,
          },
    // A field Trellis does not model, which must reach the client and the report unchanged.
    vendor_extra: { kept: true },
  }
}

/** The events a streamed reply sends, extra events included, numbered from 0, in order. */
export function responsesEventsOf(reply: ResponsesReply, body: Record<string, unknown>): MockEvent[] {
  const generated: Record<string, unknown>[] = []
  const add = (data: Record<string, unknown>) => generated.push(data)
  const inProgress = responseOf(reply, body, 'in_progress')
  add({ type: 'response.created', response: inProgress })
  add({ type: 'response.in_progress', response: inProgress })
  ;(reply.items ?? DEFAULT_ITEMS).forEach((item, output_index) => {
    const done = doneItem(item, output_index)
    const item_id = done.id
    if (item.type === 'message') {
      add({ type: 'response.output_item.added', output_index, item: { ...done, status: 'in_progress', content: [] } })
      const part = { type: 'output_text', text: '', annotations: [], logprobs: [] }
      add({ type: 'response.content_part.added', item_id, output_index, content_index: 0, part })
      for (const delta of pieces(item.text))
        add({ type: 'response.output_text.delta', item_id, output_index, content_index: 0, delta, logprobs: [] })
      const text = pieces(item.text).join('')
      add({ type: 'response.output_text.done', item_id, output_index, content_index: 0, text, logprobs: [] })
      add({
        type: 'response.content_part.done',
        item_id,
        output_index,
        content_index: 0,
        part: { ...part, text },
      })
    } else if (item.type === 'function_call') {
      add({ type: 'response.output_item.added', output_index, item: { ...done, status: 'in_progress', arguments: '' } })
      for (const delta of pieces(item.arguments))
        add({ type: 'response.function_call_arguments.delta', item_id, output_index, delta })
      const args = pieces(item.arguments).join('')
      add({ type: 'response.function_call_arguments.done', item_id, output_index, name: item.name, arguments: args })
    } else {
      add({ type: 'response.output_item.added', output_index, item: { ...done, summary: [] } })
      const part = { type: 'summary_text', text: '' }
      add({ type: 'response.reasoning_summary_part.added', item_id, output_index, summary_index: 0, part })
      for (const delta of pieces(item.summary))
        add({ type: 'response.reasoning_summary_text.delta', item_id, output_index, summary_index: 0, delta })
      const text = pieces(item.summary).join('')
      add({ type: 'response.reasoning_summary_text.done', item_id, output_index, summary_index: 0, text })
      add({
        type: 'response.reasoning_summary_part.done',
        item_id,
        output_index,
        summary_index: 0,
        part: { ...part, text },
      })
    }
    add({ type: 'response.output_item.done', output_index, item: done })
  })
  const final = reply.final ?? 'completed'
  if (final !== 'none') add({ type: `response.${final}`, response: responseOf(reply, body, final) })
  const events: Record<string, unknown>[] = []
  generated.forEach((data, at) => {
    for (const extra of reply.extraEvents ?? []) if (extra.at === at) events.push(extra.event.data)
    events.push(data)
  })
  return events.map((data, sequence_number) => ({
    event: String(data.type),
    data: { ...data, sequence_number },
  }))
}

/** One event as OpenAI writes it. */
export function sseOf(event: MockEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`
}

async function startMockResponses(): Promise<MockResponses> {
  const requests: RecordedResponsesRequest[] = []
  const server = await startScriptedServer<ResponsesReply>({}, (socket, request, reply) =>
    answer(socket, request, reply, requests),
  )
  return { baseUrl: `http://127.0.0.1:${server.port}/v1`, requests, script: server.script, stop: server.stop }
}

/**
 * One mock for a whole test file: started before its tests, stopped after them, and before each
 * test emptied of requests and scripted back to `{}`. Its fields are valid inside tests.
 */
export function useMockResponses(): MockResponses {
  let mock: MockResponses | undefined
  beforeAll(async () => {
    mock = await startMockResponses()
  })
  afterAll(async () => {
    await mock?.stop()
  })
  beforeEach(() => {
    started().requests.length = 0
    started().script({})
  })
  const started = () => {
    if (!mock) throw new Error('useMockResponses(): the mock starts in beforeAll; use its fields inside tests')
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
  reply: ResponsesReply,
  requests: RecordedResponsesRequest[],
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
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
  const wait = async (ms: number) => {
    const every = reply.commentEveryMs
    if (!every) return sleep(ms)
    for (let waited = 0; waited < ms && !gone(); waited += every) {
      await sleep(Math.min(every, ms - waited))
      send(': keep-alive\n\n')
    }
  }

  if (reply.headerDelayMs) await sleep(reply.headerDelayMs)
  if (gone()) return
  const status = reply.status ?? 200
  if (status !== 200 || !body.stream) {
    const payload =
      status !== 200
        ? (reply.errorBody ?? { error: { message: `mock error ${status}`, type: 'mock', param: null, code: null } })
        : reply.body !== undefined
          ? reply.body
          : responseOf(reply, body)
    const text = Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload))
    writeHead(socket, status, {
      'content-type': 'application/json',
      'content-length': String(text.length),
      ...reply.headers,
    })
    sent.push(text)
    socket.write(text)
    return complete()
  }

  writeHead(socket, 200, {
    'content-type': reply.contentType ?? 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'transfer-encoding': 'chunked',
    ...reply.headers,
  })
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
    for (const [at, event] of responsesEventsOf(reply, body).entries()) {
      if (gone()) return
      if (at === reply.failAfterEvents) {
        await sleep(5)
        socket.destroy()
        return
      }
      if (at === reply.stallAfterEvents) {
        while (!gone()) await wait(reply.commentEveryMs ?? 20)
        return
      }
      if (at === reply.errorEvent?.at) {
        const { code = 'server_error', message = 'mock error event', nested } = reply.errorEvent
        const fields = { code, message, param: null }
        const data = nested
          ? { type: 'error', error: { type: nested, ...fields }, sequence_number: at }
          : { type: 'error', ...fields, sequence_number: at }
        write(sseOf({ event: 'error', data }))
        break
      }
      if (at > 0 && reply.eventDelayMs) await wait(reply.eventDelayMs)
      write(sseOf(event))
    }
  }
  if (gone()) return
  endChunks(socket)
  complete()
}
