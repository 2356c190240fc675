import { unref } from '../../../runtimes/timers'
import { concat } from '../bytes'
import { ChunkedDecoder } from './chunked'
import type { Connection } from './connection'
import { headEnd, MAX_HEAD_BYTES, parseHead, ResponseHeadError, type ResponseHead } from './head'

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
export class Exchange implements UnderlyingDefaultSource<Uint8Array> {
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
      const { data: decoded, rest } = this.#chunked.push(bytes)
      data = decoded
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
