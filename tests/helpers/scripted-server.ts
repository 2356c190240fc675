/**
 * The transport under the mock upstreams (tests/chat/mock-upstream.ts, mock-anthropic.ts): a real
 * HTTP/1.1 server on raw TCP, port 0, that answers each request with the next scripted reply. It
 * owns the sockets, each connection's queue of requests, the request parsing and stop(); what an
 * answer says, and what is recorded about it, is the mock's.
 *
 * Raw TCP rather than Bun.serve or node:http: only a socket we own can break a response
 * mid-stream the way a crashing upstream does (Bun.serve ends the chunked body cleanly when its
 * stream errors), and show a client disconnect after the request body was read (Bun's node:http
 * reports neither).
 *
 * @example
 * const server = await startScriptedServer<Reply>({}, async (socket, request, reply) => {
 *   writeHead(socket, reply.status ?? 200, { 'content-length': '0' })
 * })
 * server.script({ status: 429 }, {})   // the first request gets the 429, every later one `{}`
 */
import { createServer, type AddressInfo, type Socket } from 'node:net'

/** A complete request as it arrived: the head, and the Content-Length body. */
export type ScriptedRequest = {
  path: string
  headers: Headers
  /** The body's bytes. */
  body: Buffer
  /** The body as UTF-8 text. */
  text: string
}

/** Answers one request on `socket` with `reply`; the connection's next request waits for it to settle. */
export type Answer<Reply> = (socket: Socket, request: ScriptedRequest, reply: Reply) => Promise<void>

export type ScriptedServer<Reply> = {
  port: number
  /** Queues answers for the next requests; the last one keeps answering after the queue runs out. */
  script(...replies: Reply[]): void
  /** Breaks every open connection (streams still being answered included) and closes the server. */
  stop(): Promise<void>
}

/** Starts a server whose every request gets `first` until {@link ScriptedServer.script} says otherwise. */
export async function startScriptedServer<Reply>(first: Reply, answer: Answer<Reply>): Promise<ScriptedServer<Reply>> {
  let queue: Reply[] = [first]
  const sockets = new Set<Socket>()
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
      const reply = queue.length > 1 ? queue.shift()! : queue[0]!
      void answer(socket, request, reply).then(() => {
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
  return {
    port: (server.address() as AddressInfo).port,
    script(...replies) {
      queue = replies
    },
    async stop() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** What the mocks record about a client leaving before its answer was whole. */
export type HangUp = {
  /** Resolves when the client disconnects before the answer is complete. */
  aborted: Promise<void>
  /** True once the client disconnected before the answer was complete. */
  wasAborted: boolean
  /** True once the whole answer was sent. */
  completed: boolean
}

/**
 * Adds {@link HangUp}'s fields to `recorded` (the same object, so a test holding it sees them
 * change) for the answer being sent on `socket`. `gone()` says whether sending is still of use;
 * `complete()` marks the answer whole.
 */
export function watchHangUp<Recorded extends object>(
  socket: Socket,
  recorded: Recorded,
): { recorded: Recorded & HangUp; gone: () => boolean; complete: () => void } {
  let markAborted = () => {}
  const watched = Object.assign(recorded, {
    aborted: new Promise<void>((resolve) => (markAborted = resolve)),
    wasAborted: false,
    completed: false,
  })
  const onClose = () => {
    if (watched.completed) return
    watched.wasAborted = true
    markAborted()
  }
  socket.on('close', onClose)
  return {
    recorded: watched,
    gone: () => watched.wasAborted || socket.destroyed,
    // One listener per request on a kept-alive connection would pile up: it goes once the answer is whole.
    complete: () => {
      watched.completed = true
      socket.off('close', onClose)
    },
  }
}

/** Writes a response's status line and headers. */
export function writeHead(socket: Socket, status: number, headers: Record<string, string>): void {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`)
  socket.write(`HTTP/1.1 ${status} Mock\r\n${lines.join('')}\r\n`)
}

/** Writes `bytes` as one chunk of a chunked body; an empty chunk would end the body, so none is written. */
export function writeChunk(socket: Socket, bytes: Uint8Array): void {
  if (bytes.length > 0)
    socket.write(Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]))
}

/** Ends a chunked body. */
export function endChunks(socket: Socket): void {
  socket.write('0\r\n\r\n')
}

type ParsedRequest = ScriptedRequest & { size: number }

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
  const size = headEnd + 4 + length
  if (bytes.length < size) return undefined
  const body = bytes.subarray(headEnd + 4, size)
  return { path: requestLine!.split(' ')[1] ?? '', headers, body, text: body.toString('utf8'), size }
}
