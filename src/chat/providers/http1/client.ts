import type { Socket, SocketHandler, TLSOptions } from 'bun'
import { checkServerIdentity, type PeerCertificate } from 'node:tls'
import { ChunkedDecoder } from './chunked'
import { headEnd, MAX_HEAD_BYTES, parseHead, ResponseHeadError, type ResponseHead } from './head'

/** The part of `fetch` the `openai` provider uses; the global `fetch` is one. */
export type UpstreamFetch = (url: string, init: UpstreamRequestInit) => Promise<Response>
export type UpstreamRequestInit = { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal }

export type Http1FetchOptions = {
  /** Extra TLS settings for https upstreams (tests pass their own CA); certificates are always verified. */
  tls?: TLSOptions
  /** How long an unused connection stays pooled (to within half a second). Below the 5 s that Node-based servers keep one open. */
  idleSeconds?: number
}

/**
 * A minimal HTTP/1.1 client over Bun's TCP sockets, with the same contract as `fetch` for what the
 * `openai` provider sends: one request with a string body, and a response whose body streams.
 *
 * Why not Bun's `fetch`: its response body allocates a fresh 256 KB buffer for nearly every read
 * (`#getInternalBuffer` in Bun's stream internals), because a read that fills part of the buffer
 * leaves less than a whole buffer free. A chat stream is read once per token, so a relayed stream
 * cost about 20 µs and 256 KB of garbage per upstream read; that was the largest single cost of
 * relaying in the profiles (BENCHMARKS.md). Here each read hands on the bytes the socket gave.
 *
 * What it does: http and https (certificates verified), keep-alive connections pooled per origin,
 * `Content-Length`, chunked and close-delimited bodies, interim 1xx responses skipped, gzip,
 * deflate and br bodies decoded (it asks for `identity`, so they are rare), backpressure (a body
 * nobody reads pauses its socket), and `AbortSignal`. What it leaves to `fetch`: proxies (see
 * {@link defaultUpstreamFetch}), redirects (an API upstream does not redirect POSTs), HTTP/2.
 */
export function createHttp1Fetch(options: Http1FetchOptions = {}): UpstreamFetch & { closeIdle(): void } {
  const pool = new ConnectionPool(options.tls, options.idleSeconds ?? 4)
  const fetch = (url: string, init: UpstreamRequestInit) => request(pool, url, init)
  return Object.assign(fetch, { closeIdle: () => pool.closeIdle() })
}

async function request(pool: ConnectionPool, url: string, init: UpstreamRequestInit): Promise<Response> {
  const target = targetOf(url)
  const payload = encodeRequest(target, init)
  const signal = init.signal
  signal?.throwIfAborted()
  const connection = pool.idle(target.origin) ?? (await pool.connect(target, signal))
  return new Promise<Response>((resolve, reject) => new Exchange(connection, payload, signal, resolve, reject))
}

type Target = { origin: string; tls: boolean; hostname: string; port: number; hostHeader: string; path: string }

/** Parsed once per URL: a provider posts to the same one every time. */
const targets = new Map<string, Target>()

function targetOf(url: string): Target {
  let target = targets.get(url)
  if (target) return target
  const parsed = new URL(url)
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError(`Only http and https URLs are supported, got '${url}'`)
  const tls = parsed.protocol === 'https:'
  const hostname = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname
  target = { origin: parsed.origin, tls, hostname, port: Number(parsed.port || (tls ? 443 : 80)), hostHeader: parsed.host, path: `${parsed.pathname}${parsed.search}` }
  if (targets.size < 256) targets.set(url, target)
  return target
}

const encoder = new TextEncoder()
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const HEADER_VALUE = /^[^\r\n\0]*$/

function encodeRequest(target: Target, init: UpstreamRequestInit): Uint8Array {
  const body = init.body === undefined ? undefined : encoder.encode(init.body)
  let head = `${init.method} ${target.path} HTTP/1.1\r\nhost: ${target.hostHeader}\r\n`
  let acceptEncoding = false
  let userAgent = false
  for (const name in init.headers) {
    const value = init.headers[name]
    if (!HEADER_NAME.test(name) || !HEADER_VALUE.test(value)) throw new TypeError(`Invalid request header '${name}'`)
    const lower = name.toLowerCase()
    if (lower === 'host' || lower === 'content-length' || lower === 'transfer-encoding' || lower === 'connection') continue
    if (lower === 'accept-encoding') acceptEncoding = true
    if (lower === 'user-agent') userAgent = true
    head += `${name}: ${value}\r\n`
  }
  // Identity: a compressed event stream would have to be inflated before it could be relayed.
  if (!acceptEncoding) head += 'accept-encoding: identity\r\n'
  if (!userAgent) head += 'user-agent: trellis\r\n'
  if (body) head += `content-length: ${body.length}\r\n`
  const headBytes = encoder.encode(`${head}\r\n`)
  if (!body) return headBytes
  const bytes = new Uint8Array(headBytes.length + body.length)
  bytes.set(headBytes)
  bytes.set(body, headBytes.length)
  return bytes
}

/** One socket to one origin, serving one exchange at a time. */
class Connection {
  socket: Socket<Connection> | undefined
  exchange: Exchange | undefined
  closed = false
  /** When it last went back to the pool (performance.now()). */
  idleSince = 0
  /** Settles when a TLS connection's certificate has been checked. */
  #verifying: { resolve: () => void; reject: (error: Error) => void } | undefined

  constructor(
    readonly origin: string,
    readonly pool: ConnectionPool,
    readonly hostname: string,
  ) {}

  verified(): Promise<void> {
    return new Promise((resolve, reject) => (this.#verifying = { resolve, reject }))
  }

  /**
   * Bun's TCP sockets complete a TLS handshake whatever the certificate, even with
   * `rejectUnauthorized: true` (checked under Bun 1.3.14: a self-signed certificate connects and
   * reports `authorized: true`). So the two checks Node's `tls.connect` makes are made here: the
   * chain's verification result, and the certificate's names against the host.
   */
  onHandshake(socket: Socket<Connection>, success: boolean, error: Error | null): void {
    const verifying = this.#verifying
    this.#verifying = undefined
    let problem: Error | undefined
    try {
      const certificate = socket.getPeerCertificate() as PeerCertificate | undefined
      // A failed handshake (plain HTTP on the port, no common TLS version) has no error and no certificate.
      if (error) problem = error
      else if (!success || !certificate) problem = new Error('TLS handshake failed')
      else problem = checkServerIdentity(this.hostname, certificate)
    } catch (thrown) {
      problem = thrown instanceof Error ? thrown : new Error(String(thrown))
    }
    if (!problem) return verifying?.resolve()
    this.closed = true
    socket.terminate()
    verifying?.reject(problem)
  }

  onClose(error: Error | undefined): void {
    this.#verifying?.reject(error ?? new Error('the connection closed during the TLS handshake'))
    this.#verifying = undefined
    this.exchange?.onClose(error)
  }

  destroy(): void {
    this.closed = true
    this.socket?.terminate()
  }
}

const HANDLERS: SocketHandler<Connection, 'uint8array'> = {
  binaryType: 'uint8array',
  // Bytes on a connection with no request in flight can only be garbage: it is not reused.
  data: (socket, bytes) => (socket.data.exchange ? socket.data.exchange.onData(bytes) : socket.data.destroy()),
  drain: (socket) => socket.data.exchange?.onDrain(),
  // The server's FIN: a close-delimited body ends, anything else in flight broke off.
  end: (socket) => closed(socket.data, undefined),
  close: (socket, error) => closed(socket.data, error),
  error: (socket, error) => closed(socket.data, error),
  open: (socket) => {
    socket.data.socket = socket
    // Given up on (aborted) while it was connecting.
    if (socket.data.closed) socket.terminate()
  },
  connectError: () => {},
  handshake: (socket, success, error) => socket.data.onHandshake(socket, success, error),
}

function closed(connection: Connection, error: Error | undefined): void {
  if (connection.closed && !connection.exchange) return
  connection.closed = true
  connection.pool.forget(connection)
  connection.onClose(error)
  connection.socket?.terminate()
}

class ConnectionPool {
  readonly #idle = new Map<string, Connection[]>()
  #idleCount = 0
  #sweeper: ReturnType<typeof setInterval> | undefined
  readonly #idleMs: number

  constructor(
    readonly tls: TLSOptions | undefined,
    idleSeconds: number,
  ) {
    this.#idleMs = idleSeconds * 1000
  }

  /** The most recently used idle connection to `origin`, if one is still open. */
  idle(origin: string): Connection | undefined {
    const list = this.#idle.get(origin)
    while (list && list.length > 0) {
      const connection = list.pop()!
      this.#idleCount--
      if (connection.closed) continue
      connection.socket!.ref()
      return connection
    }
    return undefined
  }

  /** A new connection; `signal` abandons the attempt (a blackholed host would otherwise hang until the OS gives up). */
  async connect(target: Target, signal: AbortSignal | undefined): Promise<Connection> {
    const connection = new Connection(target.origin, this, target.hostname)
    const verified = target.tls ? connection.verified() : undefined
    verified?.catch(() => {})
    const connecting = Bun.connect<Connection>({
      hostname: target.hostname,
      port: target.port,
      data: connection,
      socket: HANDLERS as unknown as SocketHandler<Connection>,
      tls: target.tls ? { serverName: target.hostname, ...this.tls, rejectUnauthorized: true } : undefined,
    })
    try {
      connection.socket = signal ? await abandonable(connecting, signal) : await connecting
      if (verified) await (signal ? abandonable(verified, signal) : verified)
    } catch (error) {
      connection.destroy()
      throw error
    }
    connection.socket.setNoDelay(true)
    return connection
  }

  release(connection: Connection): void {
    if (connection.closed) return
    let list = this.#idle.get(connection.origin)
    if (!list) this.#idle.set(connection.origin, (list = []))
    if (list.length >= MAX_IDLE_PER_ORIGIN) return connection.destroy()
    list.push(connection)
    this.#idleCount++
    connection.idleSince = performance.now()
    // A pooled connection must not keep the process alive.
    connection.socket!.unref()
    this.#sweeper ??= unref(setInterval(() => this.#sweep(), Math.min(500, this.#idleMs / 2)))
  }

  forget(connection: Connection): void {
    const list = this.#idle.get(connection.origin)
    const at = list?.indexOf(connection) ?? -1
    if (at === -1) return
    list!.splice(at, 1)
    this.#idleCount--
  }

  /**
   * Closes connections idle for longer than the limit, before the server would: one that the
   * server closes just as a request is written to it fails that request. One timer for the pool,
   * not one per connection: uSockets' own socket timeouts tick in 4 s steps, too coarse here.
   */
  #sweep(): void {
    const cutoff = performance.now() - this.#idleMs
    for (const list of this.#idle.values()) {
      // Oldest first: a list is in the order connections were released.
      while (list.length > 0 && list[0].idleSince <= cutoff) {
        this.#idleCount--
        list.shift()!.destroy()
      }
    }
    if (this.#idleCount === 0) {
      clearInterval(this.#sweeper)
      this.#sweeper = undefined
    }
  }

  closeIdle(): void {
    for (const list of this.#idle.values()) for (const connection of list.splice(0)) connection.destroy()
    this.#idleCount = 0
    clearInterval(this.#sweeper)
    this.#sweeper = undefined
  }
}

function unref<T>(timer: T): T {
  ;(timer as { unref?: () => void }).unref?.()
  return timer
}

const MAX_IDLE_PER_ORIGIN = 256
/** Queued, unread body bytes past which the socket stops reading (TCP then slows the server). */
const BODY_HIGH_WATER = 64 * 1024
const EMPTY = new Uint8Array(0)
/** How much of a cancelled body is read to keep its connection, and for how long. */
const DISCARD_BYTES = 64 * 1024
const DISCARD_MS = 1000

/**
 * One request and its response on a connection; also the underlying source of the response's
 * body stream, so that an exchange is one object rather than a set of closures.
 */
class Exchange implements UnderlyingDefaultSource<Uint8Array> {
  #phase: 'head' | 'body' | 'done' = 'head'
  #head: Uint8Array = EMPTY
  #unsent: Uint8Array | undefined
  #resolve: ((response: Response) => void) | undefined
  #reject: ((error: unknown) => void) | undefined
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined
  #framing: ResponseHead['framing'] = { kind: 'close' }
  #keepAlive = false
  #left = 0
  #chunked: ChunkedDecoder | undefined
  #paused = false
  /** Set once the reader cancelled: how many more body bytes may be read and thrown away. */
  #discarding: number | undefined
  #discardTimer: ReturnType<typeof setTimeout> | undefined
  readonly #connection: Connection
  readonly #signal: AbortSignal | undefined
  readonly #onAbort = () => this.#fail(this.#signal!.reason)

  constructor(connection: Connection, payload: Uint8Array, signal: AbortSignal | undefined, resolve: (response: Response) => void, reject: (error: unknown) => void) {
    this.#connection = connection
    this.#signal = signal
    this.#resolve = resolve
    this.#reject = reject
    connection.exchange = this
    signal?.addEventListener('abort', this.#onAbort, { once: true })
    if (connection.closed) this.onClose(undefined)
    else this.#send(payload)
  }

  #send(bytes: Uint8Array): void {
    const written = this.#connection.socket!.write(bytes)
    if (written < 0) return // closed: the close handler reports it
    this.#unsent = written < bytes.length ? bytes.subarray(written) : undefined
  }

  onDrain(): void {
    if (this.#unsent) this.#send(this.#unsent)
  }

  onData(bytes: Uint8Array): void {
    try {
      if (this.#phase === 'head') this.#onHeadBytes(bytes)
      else if (this.#phase === 'body') this.#onBodyBytes(bytes)
    } catch (error) {
      this.#fail(error)
    }
  }

  #onHeadBytes(bytes: Uint8Array): void {
    const searchFrom = Math.max(0, this.#head.length - 2)
    const buffer = this.#head.length === 0 ? bytes : concat(this.#head, bytes)
    const end = headEnd(buffer, searchFrom)
    if (!end) {
      if (buffer.length > MAX_HEAD_BYTES) throw new ResponseHeadError('the response head is too large')
      this.#head = buffer
      return
    }
    this.#head = EMPTY
    const head = parseHead(buffer.subarray(0, end.end))
    const rest = buffer.subarray(end.bodyStart)
    if (head.status < 200) {
      if (head.status === 101) throw new ResponseHeadError('the server switched protocols')
      // An interim response (100 Continue, 103 Early Hints): the real one follows.
      if (rest.length > 0) this.#onHeadBytes(rest)
      return
    }
    this.#startBody(head, rest)
    if (this.#phase === 'body' && rest.length > 0) this.#onBodyBytes(rest)
  }

  /** `rest` is what followed the head in the same read. */
  #startBody(head: ResponseHead, rest: Uint8Array): void {
    this.#framing = head.framing
    this.#keepAlive = head.keepAlive
    this.#phase = 'body'
    if (head.framing.kind === 'chunked') this.#chunked = new ChunkedDecoder()
    if (head.framing.kind === 'length') this.#left = head.framing.length
    const nullBody = head.status === 204 || head.status === 205 || head.status === 304
    const stream = nullBody ? null : new ReadableStream<Uint8Array>(this, { highWaterMark: BODY_HIGH_WATER, size: (chunk) => chunk!.length })
    const response = new Response(decoded(stream, head.headers), { status: head.status, statusText: head.statusText, headers: head.headers })
    const resolve = this.#resolve!
    this.#resolve = this.#reject = undefined
    // Bytes after an empty body would be read as the next response's head: not reused then.
    if (head.framing.kind === 'length' && head.framing.length === 0) this.#finish(rest.length === 0)
    // A 205 may still frame a body (RFC 9110 §15.3.6); it is read and dropped, as after a cancel.
    else if (nullBody) this.cancel()
    resolve(response)
  }

  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.#controller = controller
  }

  pull(): void {
    if (!this.#paused) return
    this.#paused = false
    this.#connection.socket!.resume()
  }

  /**
   * The reader gave up on the body. The relay does so as soon as `[DONE]` arrives, often a read
   * before the body's own end (the last chunk) does; closing the connection then would cost every
   * stream a new connection, and on https a new TLS handshake. So a framed body is read on and
   * thrown away for a little while, and the connection returns to the pool if it ends in time.
   */
  cancel(): void {
    if (this.#phase !== 'body' || this.#framing.kind === 'close') return this.#abandon()
    this.#discarding = DISCARD_BYTES
    this.#signal?.removeEventListener('abort', this.#onAbort)
    if (this.#paused) {
      this.#paused = false
      this.#connection.socket!.resume()
    }
    this.#discardTimer = unref(setTimeout(() => this.#abandon(), DISCARD_MS))
  }

  #abandon(): void {
    if (this.#phase === 'done') return
    this.#phase = 'done'
    this.#detach()
    this.#connection.destroy()
  }

  #onBodyBytes(bytes: Uint8Array): void {
    let data: Uint8Array
    let complete = false
    let clean = true
    if (this.#framing.kind === 'length') {
      const take = Math.min(this.#left, bytes.length)
      data = take === bytes.length ? bytes : bytes.subarray(0, take)
      this.#left -= take
      complete = this.#left === 0
      clean = take === bytes.length
    } else if (this.#chunked) {
      const decoded = this.#chunked.push(bytes)
      data = decoded.data
      const rest = decoded.rest
      complete = this.#chunked.done
      clean = rest === undefined || rest.length === 0
    } else {
      data = bytes
    }
    if (data.length > 0) this.#enqueue(data)
    if (complete) this.#finish(clean)
  }

  #enqueue(data: Uint8Array): void {
    if (this.#discarding !== undefined) {
      this.#discarding -= data.length
      if (this.#discarding < 0) this.#abandon()
      return
    }
    const controller = this.#controller!
    controller.enqueue(data)
    if (!this.#paused && controller.desiredSize! <= 0) {
      this.#paused = true
      this.#connection.socket!.pause()
    }
  }

  /** The body is complete; the connection goes back to the pool if it can carry another request. */
  #finish(clean: boolean): void {
    this.#phase = 'done'
    this.#detach()
    if (this.#discarding === undefined) this.#controller?.close()
    if (this.#paused) this.#connection.socket!.resume()
    if (clean && this.#keepAlive && !this.#unsent) this.#connection.pool.release(this.#connection)
    else this.#connection.destroy()
  }

  onClose(error: Error | undefined): void {
    // Bun reports a reset as an ordinary close, so a close-delimited body cut by one looks complete.
    // Nothing here can tell them apart; the relay does, as a stream must end with [DONE], and a
    // non-streaming answer must parse as JSON.
    if (this.#phase === 'body' && this.#framing.kind === 'close' && !error) return this.#finish(false)
    const what = this.#phase === 'head' ? 'the connection closed before a response' : 'the connection closed before the end of the response body'
    this.#fail(error ?? new Error(what))
  }

  #fail(error: unknown): void {
    if (this.#phase === 'done') return
    const reject = this.#reject
    this.#phase = 'done'
    this.#resolve = this.#reject = undefined
    this.#detach()
    this.#connection.destroy()
    if (reject) reject(error)
    else if (this.#discarding === undefined) this.#controller?.error(error)
  }

  #detach(): void {
    clearTimeout(this.#discardTimer)
    this.#signal?.removeEventListener('abort', this.#onAbort)
    if (this.#connection.exchange === this) this.#connection.exchange = undefined
  }
}

const DECODINGS: Record<string, CompressionFormat> = { gzip: 'gzip', 'x-gzip': 'gzip', deflate: 'deflate', br: 'brotli' as CompressionFormat }

/** The body as the server meant it: `Content-Encoding` undone, as `fetch` does. */
function decoded(stream: ReadableStream<Uint8Array> | null, headers: [string, string][]): ReadableStream<Uint8Array> | null {
  const encoding = headers.find(([name]) => name === 'content-encoding')?.[1].toLowerCase()
  if (!stream || !encoding || encoding === 'identity') return stream
  const format = DECODINGS[encoding]
  if (!format) throw new ResponseHeadError(`unsupported Content-Encoding '${encoding}'`)
  return stream.pipeThrough(new DecompressionStream(format) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>)
}

/** `connecting`, unless `signal` aborts first. */
function abandonable<T>(connecting: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted()
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    connecting.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}
