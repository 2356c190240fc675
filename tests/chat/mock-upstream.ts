/**
 * An OpenAI-compatible upstream for relay tests and benchmarks: a real HTTP/1.1 server (raw TCP
 * on port 0) whose answers are scripted per request. It records every request it receives and
 * whether the client went away before the answer was complete.
 *
 * @example
 * const upstream = await startMockUpstream()
 * upstream.script({ status: 429, headers: { 'retry-after': '1' } }, { chunks: 3 })
 * // first request gets the 429, the second (and every later one) three content chunks
 */
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

/** One scripted answer. Everything is optional; `{}` streams {@link DEFAULT_CHUNKS} content chunks. */
export type MockReply = {
  /** HTTP status; anything but 200 answers with `errorBody` as JSON. */
  status?: number
  headers?: Record<string, string>
  errorBody?: unknown
  /** Content pieces to stream, or how many to generate (`piece(i)`). */
  chunks?: number | string[]
  /** Wait before sending response headers. */
  headerDelayMs?: number
  /** Wait after the headers before the first event. */
  firstChunkDelayMs?: number
  /** Wait before each later event. */
  chunkDelayMs?: number
  /** Break the connection (no `[DONE]`) after this many content chunks. */
  failAfterChunks?: number
  /** Stop sending, but keep the connection open, after this many content chunks. */
  stallAfterChunks?: number
  /** Send `: keep-alive` comments at this interval during every wait between events, and while stalled. */
  commentEveryMs?: number
  /** Send these exact byte pieces as the body instead of generated events (parser tests). */
  rawPieces?: (string | Uint8Array)[]
  /** A non-streamed answer (or an error) sent as exactly these bytes, with `headers` (e.g. a gzip body). */
  rawBody?: Uint8Array
  /** Omit the final `data: [DONE]`. */
  omitDone?: boolean
}

type RecordedRequest = HangUp & {
  path: string
  headers: Headers
  body: Record<string, unknown>
}

export type MockUpstream = {
  /** The base URL to configure, ending in `/v1`. */
  baseUrl: string
  port: number
  requests: RecordedRequest[]
  /** Queues answers for the next requests; the last one keeps answering after the queue runs out. */
  script(...replies: MockReply[]): void
  stop(): Promise<void>
}

const DEFAULT_CHUNKS = 3

/** The content of generated chunk `i`: ASCII, accents and a 4-byte emoji, so UTF-8 splits are exercised. */
export function piece(i: number): string {
  return i % 3 === 0 ? `tok${i} ` : i % 3 === 1 ? `é${i}` : `🌱${i}\n`
}

/** The content pieces a reply streams. */
export function piecesOf(reply: MockReply): string[] {
  const chunks = reply.chunks ?? DEFAULT_CHUNKS
  return typeof chunks === 'number' ? Array.from({ length: chunks }, (_, i) => piece(i)) : chunks
}

const CHUNK_ID = 'chatcmpl-mock'
const CREATED = 1_700_000_000

/** The exact JSON events (without `data: `) a streaming reply sends, including role, finish and usage chunks. */
export function eventsOf(reply: MockReply, body: Record<string, unknown>): Record<string, unknown>[] {
  const model = String(body.model)
  const base = { id: CHUNK_ID, object: 'chat.completion.chunk', created: CREATED, model, system_fingerprint: 'fp_mock' }
  const choice = (delta: Record<string, unknown>, finish: string | null) => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finish,
  })
  const pieces = piecesOf(reply)
  const events: Record<string, unknown>[] = [
    { ...base, choices: [choice({ role: 'assistant', content: '', refusal: null }, null)] },
  ]
  pieces.forEach((content, i) => events.push({ ...base, choices: [choice({ content }, null)], obfuscation: `x${i}` }))
  events.push({ ...base, choices: [choice({}, 'stop')] })
  const options = body.stream_options as { include_usage?: boolean } | undefined
  if (options?.include_usage) {
    events.push({
      ...base,
      choices: [],
      usage: {
        prompt_tokens: 5,
        completion_tokens: pieces.length,
        total_tokens: 5 + pieces.length,
        vendor_extra: { kept: true },
      },
    })
  }
  return events
}

/** The non-streaming completion a 200 reply sends. */
export function completionOf(reply: MockReply, body: Record<string, unknown>): Record<string, unknown> {
  const content = piecesOf(reply).join('')
  return {
    id: CHUNK_ID,
    object: 'chat.completion',
    created: CREATED,
    model: String(body.model),
    system_fingerprint: 'fp_mock',
    choices: [
      { index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' },
    ],
    usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8, vendor_extra: { kept: true } },
    service_tier: 'default',
  }
}

export async function startMockUpstream(): Promise<MockUpstream> {
  const requests: RecordedRequest[] = []
  // Parsed before answering: a body that is not JSON throws where it arrives, before anything is recorded.
  const server = await startScriptedServer<MockReply>({}, (socket, request, reply) =>
    answer(socket, request, JSON.parse(request.text) as Record<string, unknown>, reply, requests),
  )
  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    port: server.port,
    requests,
    script: server.script,
    stop: server.stop,
  }
}

async function answer(
  socket: Socket,
  request: ScriptedRequest,
  body: Record<string, unknown>,
  reply: MockReply,
  requests: RecordedRequest[],
): Promise<void> {
  const { recorded, gone, complete } = watchHangUp(socket, { path: request.path, headers: request.headers, body })
  requests.push(recorded)
  const send = (data: string | Uint8Array) => {
    if (!gone()) writeChunk(socket, typeof data === 'string' ? Buffer.from(data) : data)
  }

  if (reply.headerDelayMs) await sleep(reply.headerDelayMs)
  if (gone()) return
  const status = reply.status ?? 200
  if (status !== 200 || !body.stream) {
    const payload =
      status !== 200
        ? (reply.errorBody ?? { error: { message: `mock error ${status}`, type: 'mock', param: null, code: null } })
        : completionOf(reply, body)
    const text = reply.rawBody
      ? Buffer.from(reply.rawBody)
      : Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload))
    writeHead(socket, status, {
      'content-type': 'application/json',
      'content-length': String(text.length),
      ...reply.headers,
    })
    socket.write(text)
    return complete()
  }

  writeHead(socket, 200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'transfer-encoding': 'chunked',
    ...reply.headers,
  })
  const waitWithComments = async (ms: number) => {
    const every = reply.commentEveryMs
    if (!every) return sleep(ms)
    for (let waited = 0; waited < ms && !gone(); waited += every) {
      await sleep(Math.min(every, ms - waited))
      send(': keep-alive\n\n')
    }
  }
  if (reply.rawPieces) {
    for (const raw of reply.rawPieces) {
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs)
      send(raw)
    }
  } else {
    if (reply.firstChunkDelayMs) await waitWithComments(reply.firstChunkDelayMs)
    for (const [i, event] of eventsOf(reply, body).entries()) {
      const contentIndex = i - 1
      if (contentIndex === reply.failAfterChunks) {
        await sleep(5)
        socket.destroy()
        return
      }
      if (contentIndex === reply.stallAfterChunks) {
        while (!gone()) await waitWithComments(reply.commentEveryMs ?? 20)
        return
      }
      if (i > 0 && reply.chunkDelayMs) await waitWithComments(reply.chunkDelayMs)
      if (gone()) return
      send(`data: ${JSON.stringify(event)}\n\n`)
    }
    if (!reply.omitDone) send('data: [DONE]\n\n')
  }
  if (gone()) return
  endChunks(socket)
  complete()
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
