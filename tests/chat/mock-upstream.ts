/**
 * An OpenAI-compatible upstream for relay tests and benchmarks: a real HTTP server (node:http on
 * port 0) whose answers are scripted per request. It records every request it receives and
 * whether the client went away before the answer was complete.
 *
 * @example
 * const upstream = await startMockUpstream()
 * upstream.script({ status: 429, headers: { 'retry-after': '1' } }, { chunks: 3 })
 * // first request gets the 429, the second (and every later one) three content chunks
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

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
  /** Send `: keep-alive` comments at this interval while stalled or waiting for the first chunk. */
  commentEveryMs?: number
  /** Send these exact byte pieces as the body instead of generated events (parser tests). */
  rawPieces?: (string | Uint8Array)[]
  /** Omit the final `data: [DONE]`. */
  omitDone?: boolean
}

export type RecordedRequest = {
  path: string
  headers: Headers
  body: Record<string, unknown>
  /** Resolves when the client disconnects before the answer is complete. */
  aborted: Promise<void>
  /** True once the client disconnected before the answer was complete. */
  wasAborted: boolean
  /** True once the whole answer was sent. */
  completed: boolean
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

export const DEFAULT_CHUNKS = 3

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
  const choice = (delta: Record<string, unknown>, finish: string | null) => ({ index: 0, delta, logprobs: null, finish_reason: finish })
  const pieces = piecesOf(reply)
  const events: Record<string, unknown>[] = [{ ...base, choices: [choice({ role: 'assistant', content: '', refusal: null }, null)] }]
  pieces.forEach((content, i) => events.push({ ...base, choices: [choice({ content }, null)], obfuscation: `x${i}` }))
  events.push({ ...base, choices: [choice({}, 'stop')] })
  const options = body.stream_options as { include_usage?: boolean } | undefined
  if (options?.include_usage) {
    events.push({ ...base, choices: [], usage: { prompt_tokens: 5, completion_tokens: pieces.length, total_tokens: 5 + pieces.length, vendor_extra: { kept: true } } })
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
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8, vendor_extra: { kept: true } },
    service_tier: 'default',
  }
}

export async function startMockUpstream(): Promise<MockUpstream> {
  let queue: MockReply[] = [{}]
  const requests: RecordedRequest[] = []
  const sockets = new Set<Socket>()

  // node:http rather than Bun.serve: only a raw socket can break a response mid-stream the way a
  // crashing upstream does (Bun.serve ends the chunked body cleanly when its stream errors).
  const server = createServer(async (request, response) => {
    const reply = queue.length > 1 ? queue.shift()! : queue[0]
    const body = JSON.parse(await readBody(request)) as Record<string, unknown>
    let markAborted = () => {}
    const recorded: RecordedRequest = {
      path: request.url ?? '',
      headers: new Headers(request.headers as Record<string, string>),
      body,
      aborted: new Promise<void>((resolve) => (markAborted = resolve)),
      wasAborted: false,
      completed: false,
    }
    response.on('close', () => {
      if (recorded.completed || response.writableFinished) return
      recorded.wasAborted = true
      markAborted()
    })
    requests.push(recorded)
    const gone = () => recorded.wasAborted || response.destroyed

    if (reply.headerDelayMs) await sleep(reply.headerDelayMs)
    if (gone()) return
    const status = reply.status ?? 200
    if (status !== 200) {
      const error = reply.errorBody ?? { error: { message: `mock error ${status}`, type: 'mock', param: null, code: null } }
      return finish(response, recorded, status, { 'content-type': 'application/json', ...reply.headers }, JSON.stringify(error))
    }
    if (!body.stream) {
      return finish(response, recorded, 200, { 'content-type': 'application/json', ...reply.headers }, JSON.stringify(completionOf(reply, body)))
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers })
    response.flushHeaders()
    const send = (text: string | Uint8Array) => {
      if (!gone()) response.write(text)
    }
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
          response.socket?.destroy()
          return
        }
        if (contentIndex === reply.stallAfterChunks) {
          while (!gone()) await waitWithComments(reply.commentEveryMs ?? 20)
          return
        }
        if (i > 0 && reply.chunkDelayMs) await sleep(reply.chunkDelayMs)
        if (gone()) return
        send(`data: ${JSON.stringify(event)}\n\n`)
      }
      if (!reply.omitDone) send('data: [DONE]\n\n')
    }
    if (gone()) return
    recorded.completed = true
    response.end()
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    script(...replies) {
      queue = replies
    },
    async stop() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function finish(response: ServerResponse, recorded: RecordedRequest, status: number, headers: Record<string, string>, body: string): void {
  recorded.completed = true
  response.writeHead(status, headers)
  response.end(body)
}

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = []
  for await (const part of request) parts.push(part as Buffer)
  return Buffer.concat(parts).toString('utf8')
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
