import { StreamCut } from './cut'
import { OpenAIError } from '../../http/openai-errors'
import { watchSilence } from './keep-alive'
import { DEFAULT_KEEP_ALIVE_MS } from '../../config/chat'

/*
 * Server-sent events. The framing is the wire format's (see {@link StreamFraming}): by default
 * exactly as OpenAI clients parse them: every event is `data: <one-line JSON>\n\n` (see
 * encode.ts), the stream ends with `data: [DONE]\n\n`, and waiting is filled with
 * `: keep-alive\n\n` comments. `/v1/messages` brings Anthropic's (ping events, no end marker).
 * Everything is written as bytes, because Deno rejects string chunks.
 *
 * Elysia's generator streaming is not used: an error thrown after its first yield never
 * reaches onError, and the protocol needs a different answer before and after the first byte.
 */

const encoder = new TextEncoder()
/** OpenAI's wait filler and end marker, for its framing (see `OPENAI_FRAMING` in ../errors.ts). */
export const KEEP_ALIVE = encoder.encode(': keep-alive\n\n')
export const DONE = encoder.encode('data: [DONE]\n\n')

/**
 * What a wire format writes besides its items: the bytes that fill a wait, the bytes that end a
 * stream whose items ran out (an item ending with them ends the stream at once; none: the last
 * item ends it), and the event that reports a failure after the first byte. Constants made once
 * per format, so that a stream's writes stay pre-encoded bytes.
 */
export type StreamFraming = {
  keepAlive: Uint8Array
  done: Uint8Array | undefined
  errorEvent(error: unknown, requestId: string | undefined): Uint8Array
}

/** The headers of every event stream. Compression is never applied: it would hold bytes back. */
const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
}

/**
 * How a stream ended: `done` with `[DONE]`; `failed` with an error event (after the first byte) or,
 * with `beforeFirstByte`, as an HTTP error; `cancelled` when the client went away.
 */
export type StreamOutcome =
  | { ended: 'done' }
  | { ended: 'failed'; error: unknown; beforeFirstByte: boolean }
  | { ended: 'cancelled' }

const DONE_OUTCOME: StreamOutcome = { ended: 'done' }
const CANCELLED: StreamOutcome = { ended: 'cancelled' }

export type EventStreamOptions = {
  /** Set to true the moment the first byte is handed to the client; the registry stops retrying then. */
  state: { committed: boolean }
  /** Aborted when the client goes away, so the provider releases its upstream. */
  abort: AbortController
  keepAliveMs?: number
  /** Told about failures after the first byte, which the client only sees as an error event. */
  onStreamError?: (error: unknown) => void
  /** Named in the error event of a failure of ours or an upstream's, as in the log line about it. */
  requestId?: string
  /** Called once when the stream ends: finished, failed (before the first byte or after), or cancelled. */
  onClose?: (outcome: StreamOutcome) => void
  /**
   * Most bytes the stream may send (`CHAT_MAX_RESPONSE_BYTES`). An item that would pass it is not
   * sent: the stream ends with a `response_too_large` error event instead (a few hundred bytes past
   * the cap), so that no provider, echo or relay, can make one response unbounded.
   */
  maxBytes?: number
  /** The wire format's keep-alive, end and error event. */
  framing: StreamFraming
  /**
   * Bytes written last, after `onClose` has run, when the stream ends with its end or an error event (a client that
   * left gets nothing): what only the end knows, such as the request's cost (an SSE comment, which clients ignore).
   */
  trailer?: () => Uint8Array
}

/**
 * Turns a provider's events (see `ModelRegistry.streamEvents`) into an SSE `Response`, deciding
 * first whether the response can still be an HTTP error: it waits for the first item until the
 * first keep-alive is due. A failure in that window is thrown (the route answers with a JSON
 * error and a status); once a keep-alive or an item is sent, the response is committed as a
 * 200 stream and later failures become a `data: {"error":…}` event followed by close, without
 * `[DONE]`.
 *
 * Each item (one or more whole events, for a relay what one upstream read completed) is one
 * write. An item that ends with `data: [DONE]` ends the stream at once, so a relay that reads the
 * last events and the upstream's `[DONE]` together sends them and closes in one step; otherwise
 * `[DONE]` follows when the items run out. Items are pulled, so a slow client slows the provider
 * instead of queueing chunks. Keep-alives come from a shared sweep (`keep-alive.ts`): a silent stream
 * sends one every 1 to 1.25 intervals.
 */
export function openEventStream(events: AsyncIterable<Uint8Array>, options: EventStreamOptions): Promise<Response> {
  return new EventStream(events[Symbol.asyncIterator](), options).open()
}

/**
 * One stream's state. A class rather than closures: it is its own underlying source for the
 * response's ReadableStream and its own keep-alive watcher, so holding thousands of streams
 * costs one object each instead of a dozen functions and their scopes.
 */
class EventStream implements UnderlyingDefaultSource<Uint8Array> {
  /** For the keep-alive sweep (see keep-alive.ts). */
  lastActiveAt = performance.now()
  readonly #iterator: AsyncIterator<Uint8Array>
  readonly #options: EventStreamOptions
  readonly #unwatch: () => void
  readonly #framing: StreamFraming
  #pending: Promise<IteratorResult<Uint8Array>> | undefined
  /** Until the response is committed, silence resolves the wait for the first item. */
  #resolveFirst: ((result: undefined) => void) | undefined
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined
  #first: IteratorResult<Uint8Array> | undefined
  #committed = false
  #closed = false
  #sent = 0

  constructor(iterator: AsyncIterator<Uint8Array>, options: EventStreamOptions) {
    this.#iterator = iterator
    this.#options = options
    this.#framing = options.framing
    this.#unwatch = watchSilence(options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS, this)
  }

  async open(): Promise<Response> {
    const pending = this.#iterator.next()
    this.#pending = pending
    // A stream cancelled while an item is awaited would otherwise leave an unhandled rejection.
    pending.catch(() => {})
    try {
      this.#first = await new Promise<IteratorResult<Uint8Array> | undefined>((resolve, reject) => {
        this.#resolveFirst = resolve
        pending.then(resolve, reject)
      })
    } catch (error) {
      this.#options.abort.abort()
      this.#close({ ended: 'failed', error, beforeFirstByte: !(error instanceof StreamCut) })
      if (!(error instanceof StreamCut)) throw error
      // A cut before the first event still answers 200 and its headers: then the body breaks.
      this.#options.state.committed = true
      return new Response(new ReadableStream({ start: (controller) => controller.error() }), {
        status: 200,
        headers: SSE_HEADERS,
      })
    }
    this.#resolveFirst = undefined
    this.#committed = true
    this.#options.state.committed = true
    return new Response(new ReadableStream<Uint8Array>(this), { status: 200, headers: SSE_HEADERS })
  }

  onSilence(): void {
    if (!this.#committed) return this.#resolveFirst?.(undefined)
    if (this.#closed) return
    try {
      this.#write(this.#framing.keepAlive)
    } catch {
      // The consumer went away without cancel() reaching us: stop like a cancel would.
      this.#stop(CANCELLED)
    }
  }

  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.#controller = controller
    if (this.#first) return this.#writeResult(this.#first)
    this.#write(this.#framing.keepAlive)
  }

  /** Not an async method: a `then` per item instead of an async frame per item, for held streams. */
  pull(): Promise<void> | undefined {
    if (this.#closed) return
    const next = this.#pending && !this.#first ? this.#pending : this.#iterator.next()
    this.#pending = undefined
    this.#first = undefined
    return next.then(this.#onItem, this.#onFailure)
  }

  readonly #onItem = (result: IteratorResult<Uint8Array>): Promise<void> | undefined => {
    if (this.#closed) return
    // A pull that enqueues nothing is not called again, so an empty item must not end one.
    if (!result.done && result.value.length === 0) return this.#iterator.next().then(this.#onItem, this.#onFailure)
    try {
      this.#writeResult(result)
    } catch (error) {
      this.#fail(error)
    }
  }

  readonly #onFailure = (error: unknown): void => this.#fail(error)

  cancel(): void {
    this.#stop(CANCELLED)
  }

  #write(bytes: Uint8Array): void {
    this.#controller!.enqueue(bytes)
    this.#sent += bytes.length
    this.lastActiveAt = performance.now()
  }

  /** Writes an item (an item ending with the framing's end, `[DONE]`, ends the stream), or the end and closes. */
  #writeResult(result: IteratorResult<Uint8Array>): void {
    const done = this.#framing.done
    if (!result.done) {
      if (result.value.length === 0) return
      const limit = this.#options.maxBytes
      if (limit !== undefined && this.#sent + result.value.length + (done?.length ?? 0) > limit)
        return this.#fail(tooLarge(limit))
      this.#write(result.value)
      if (done === undefined || !endsWith(result.value, done)) return
      this.#close(DONE_OUTCOME)
      this.#end()
      // The provider has nothing more to say; let it release what it holds.
      this.#iterator.return?.().catch(() => {})
      return
    }
    this.#close(DONE_OUTCOME)
    if (done !== undefined) this.#controller!.enqueue(done)
    this.#end()
  }

  /** Closes the response, its trailer written first. */
  #end(): void {
    if (this.#options.trailer) this.#controller!.enqueue(this.#options.trailer())
    this.#controller!.close()
  }

  #fail(error: unknown): void {
    if (this.#closed) return
    if (error instanceof StreamCut) {
      // Without a reason: Bun prints an Error a response body fails with as if it were a crash.
      this.#controller!.error()
      return this.#stop({ ended: 'failed', error, beforeFirstByte: false })
    }
    this.#options.onStreamError?.(error)
    this.#controller!.enqueue(this.#framing.errorEvent(error, this.#options.requestId))
    this.#stop({ ended: 'failed', error, beforeFirstByte: false })
    this.#end()
  }

  #close(outcome: StreamOutcome): void {
    if (this.#closed) return
    this.#closed = true
    this.#unwatch()
    this.#options.onClose?.(outcome)
  }

  #stop(outcome: StreamOutcome): void {
    this.#close(outcome)
    this.#options.abort.abort()
    this.#iterator.return?.().catch(() => {})
  }
}

/** The error that ends a response past its byte cap (shared with formats that hold bytes back before sending them). */
export function tooLarge(limit: number): OpenAIError {
  return new OpenAIError({
    status: 400,
    message: `The response reached this server's limit of ${limit} bytes and was cut off; ask for less (lower 'n', 'top_logprobs' or 'max_tokens').`,
    param: null,
    code: 'response_too_large',
  })
}

/** Whether `bytes` end with `end` (the `data: [DONE]\n\n` event). */
function endsWith(bytes: Uint8Array, end: Uint8Array): boolean {
  if (bytes.length < end.length) return false
  const offset = bytes.length - end.length
  for (let i = 0; i < end.length; i++) if (bytes[offset + i] !== end[i]) return false
  return true
}
