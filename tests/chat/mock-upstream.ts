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
import { createServer, type AddressInfo, type Socket } from 'node:net'

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

  // Raw TCP rather than Bun.serve or node:http: only a socket we own can break a response
  // mid-stream the way a crashing upstream does (Bun.serve ends the chunked body cleanly when its
  // stream errors), and show a client disconnect after the request body was read (Bun's
  // node:http reports neither).
  const server = createServer((socket) => {
    sockets.add(socket)
    let received = Buffer.alloc(0)
    let answering = false
    // Keep-alive like a real upstream: requests on one connection are answered in turn.
    const next = () => {
      if (answering) return
      const request = parseRequest(received)
      if (!request) return
      received = received.subarray(request.size)
      answering = true
      const reply = queue.length > 1 ? queue.shift()! : queue[0]
      void answer(socket, request, reply, requests).then(() => {
        answering = false
        next()
      })
    }
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    socket.on('data', (data: Buffer) => {
      received = Buffer.concat([received, data])
      next()
    })
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

type ParsedRequest = { path: string; headers: Headers; body: Record<string, unknown>; size: number }

/** A complete HTTP/1.1 request (head and Content-Length body) from the bytes so far, or undefined. */
function parseRequest(bytes: Buffer): ParsedRequest | undefined {
  const headEnd = bytes.indexOf('\r\n\r\n')
  if (headEnd === -1) return undefined
  const [requestLine, ...lines] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n')
  const headers = new Headers()
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim())
  }
  const length = Number(headers.get('content-length') ?? 0)
  const body = bytes.subarray(headEnd + 4)
  if (body.length < length) return undefined
  return {
    path: requestLine.split(' ')[1] ?? '',
    headers,
    body: JSON.parse(body.subarray(0, length).toString('utf8')) as Record<string, unknown>,
    size: headEnd + 4 + length,
  }
}

async function answer(socket: Socket, request: ParsedRequest, reply: MockReply, requests: RecordedRequest[]): Promise<void> {
  let markAborted = () => {}
  const recorded: RecordedRequest = {
    path: request.path,
    headers: request.headers,
    body: request.body,
    aborted: new Promise<void>((resolve) => (markAborted = resolve)),
    wasAborted: false,
    completed: false,
  }
  socket.on('close', () => {
    if (recorded.completed) return
    recorded.wasAborted = true
    markAborted()
  })
  requests.push(recorded)
  const gone = () => recorded.wasAborted || socket.destroyed
  const head = (status: number, headers: Record<string, string>) => {
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`)
    socket.write(`HTTP/1.1 ${status} Mock\r\n${lines.join('')}\r\n`)
  }
  const send = (data: string | Uint8Array) => {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data
    if (!gone() && bytes.length > 0) socket.write(Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]))
  }
  const end = () => {
    recorded.completed = true
  }

  if (reply.headerDelayMs) await sleep(reply.headerDelayMs)
  if (gone()) return
  const status = reply.status ?? 200
  if (status !== 200 || !request.body.stream) {
    const payload =
      status !== 200
        ? (reply.errorBody ?? { error: { message: `mock error ${status}`, type: 'mock', param: null, code: null } })
        : completionOf(reply, request.body)
    const text = reply.rawBody ? Buffer.from(reply.rawBody) : Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload))
    head(status, { 'content-type': 'application/json', 'content-length': String(text.length), ...reply.headers })
    socket.write(text)
    return end()
  }

  head(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'transfer-encoding': 'chunked', ...reply.headers })
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
    for (const [i, event] of eventsOf(reply, request.body).entries()) {
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
  socket.write('0\r\n\r\n')
  end()
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
