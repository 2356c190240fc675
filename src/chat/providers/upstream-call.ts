import { readLimited } from '../../http/body'
import type { JsonObject } from './provider'
import type { UpstreamFetch } from './upstream-fetch'
import { connectionError, streamError, timeoutError, type TimeoutPhase } from './upstream-error'

/*
 * What every relay provider does around one upstream request, whatever the wire format: the
 * call's lifetime (abort and watchdog), the POST itself, and bodies read whole under a limit.
 */

/** What is read of an upstream's error answer: its message, never a whole page. */
export const ERROR_BODY_LIMIT = 64 * 1024
const utf8 = new TextDecoder()

/**
 * One upstream request's lifetime: its own AbortController, tied to the caller's signal and to a
 * watchdog timer, so a client disconnect or a timeout cancels the fetch and its body at once.
 *
 * The watchdog is a deadline, not a timer per wait: a stream re-arms it before every read, and a
 * fresh `setTimeout` per read was a measurable share of a relayed stream's CPU. One timer stays
 * armed; when it fires early (the deadline moved on) it re-arms for what is left, and when it fires
 * with nothing being watched it lapses until the next {@link watch}.
 */
export class UpstreamCall {
  readonly #controller = new AbortController()
  readonly #provider: string
  readonly #caller: AbortSignal
  readonly #onCallerAbort = () => this.#controller.abort(this.#caller.reason)
  readonly #onTimer = () => this.#check()
  #timer: ReturnType<typeof setTimeout> | undefined
  /** When the armed timer fires (performance.now() time), if one is armed. */
  #timerAt = 0
  /** The watched wait: its phase, the limit named in the error, and when it runs out. */
  #watched: { phase: TimeoutPhase; reportedMs: number; deadline: number } | undefined
  #expired: { phase: TimeoutPhase; ms: number } | undefined
  #finished = false

  constructor(provider: string, caller: AbortSignal) {
    this.#provider = provider
    this.#caller = caller
    if (caller.aborted) this.#controller.abort(caller.reason)
    else caller.addEventListener('abort', this.#onCallerAbort, { once: true })
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  /**
   * Aborts the upstream if `ms` pass before the next {@link unwatch} or {@link watch}; `reportedMs` is the limit named
   * in the error.
   */
  watch(phase: TimeoutPhase, ms: number, reportedMs = ms): void {
    const deadline = performance.now() + ms
    if (this.#watched) {
      this.#watched.phase = phase
      this.#watched.reportedMs = reportedMs
      this.#watched.deadline = deadline
    } else {
      this.#watched = { phase, reportedMs, deadline }
    }
    // An armed timer that fires before the deadline re-arms itself then; one that fires after it must be replaced.
    if (this.#timer === undefined || this.#timerAt > deadline) this.#arm(ms, deadline)
  }

  unwatch(): void {
    this.#watched = undefined
  }

  #arm(ms: number, at: number): void {
    clearTimeout(this.#timer)
    this.#timerAt = at
    this.#timer = setTimeout(this.#onTimer, Math.max(0, ms))
  }

  /** Stops watching and drops the timer, so nothing keeps this call alive. */
  #disarm(): void {
    this.#watched = undefined
    clearTimeout(this.#timer)
    this.#timer = undefined
  }

  #check(): void {
    this.#timer = undefined
    const watched = this.#watched
    if (!watched) return
    const left = watched.deadline - performance.now()
    if (left > 0) return this.#arm(left, watched.deadline)
    this.#expired = { phase: watched.phase, ms: watched.reportedMs }
    this.#controller.abort(new DOMException(`upstream ${watched.phase} timeout`, 'TimeoutError'))
  }

  /** What to throw for an error from fetch or a body read: the caller's abort, our timeout, or a connection failure. */
  failure(error: unknown, midResponse = false): unknown {
    if (this.#caller.aborted) return this.#caller.reason
    if (this.#expired) return timeoutError(this.#provider, this.#expired.phase, this.#expired.ms)
    return connectionError(this.#provider, error, midResponse)
  }

  /** The whole response has been read; nothing is left to cancel. */
  complete(): void {
    this.#finished = true
    this.#disarm()
  }

  /**
   * The stream is complete at its format's last event (OpenAI's `[DONE]`, Anthropic's
   * `message_stop`); nothing after it is read. Cancelling the body costs nothing when it has
   * already ended, which is the usual case: the end arrives with that event, and the connection
   * goes back to the pool. An upstream that keeps sending gets its connection closed, rather than
   * a drain that would read on for a body nobody wants.
   */
  finish(reader: ReadableStreamDefaultReader<Uint8Array>): void {
    this.complete()
    reader.cancel().catch(() => {})
  }

  /** Releases timers and listeners; aborts the upstream unless the call completed normally. */
  end(): void {
    this.#disarm()
    this.#caller.removeEventListener('abort', this.#onCallerAbort)
    if (!this.#finished) this.#controller.abort()
  }
}

/** POSTs `body` as JSON on `call`'s signal; a failure to connect becomes the call's {@link UpstreamCall.failure}. */
export async function postJson(
  fetch: UpstreamFetch,
  url: string,
  call: UpstreamCall,
  body: JsonObject,
  headers: Record<string, string>,
): Promise<Response> {
  try {
    return await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: call.signal })
  } catch (error) {
    throw call.failure(error)
  }
}

/** The body as text, read and counted after decoding; undefined past `limit` bytes (nothing more is read). */
export async function readText(call: UpstreamCall, response: Response, limit: number): Promise<string | undefined> {
  if (!response.body) return ''
  const bytes = await readLimited(response.body, limit).catch((error) => {
    throw call.failure(error, true)
  })
  return bytes === undefined ? undefined : utf8.decode(bytes)
}

/**
 * What one read of an event stream gave: bytes ready to hand over, whether the answer is whole, and what to throw after
 * the bytes.
 */
export type EventStep = { bytes: Uint8Array; done: boolean; error?: unknown }

/**
 * Turns an upstream's event stream, read by read, into what the provider hands over (its wire format's framing and
 * checks).
 */
export interface EventReader {
  push(read: Uint8Array): EventStep
  /** The upstream body ended. */
  end(): EventStep
}

/** One streamed request: where it goes, and the limits it runs under. */
export type EventStreamRequest = {
  fetch: UpstreamFetch
  url: string
  body: JsonObject
  headers: Record<string, string>
  connectTimeoutMs: number
  firstTokenTimeoutMs: number
  idleTimeoutMs: number
  /** The error for a non-2xx answer, from its status, headers and (capped) text. */
  httpError(response: Response, text: string): Error
  /** The format's last event, named when the upstream closes before it (`[DONE]`, `message_stop`). */
  lastEvent: string
}

/**
 * POSTs a stream request on `call` and hands over what `reader` makes of each read, as soon as the
 * read is made: nothing waits for more data, and a burst of events costs one step. The first-token
 * limit runs until the reader first has bytes to hand over (a ping or a comment does not count), the
 * idle limit between reads after that; neither runs while the consumer holds a batch. Events that
 * arrived before a failure reach the consumer, in order, before the error is thrown.
 */
export async function* streamEvents(
  provider: string,
  signal: AbortSignal,
  request: EventStreamRequest,
  reader: EventReader,
): AsyncGenerator<Uint8Array> {
  const { connectTimeoutMs, firstTokenTimeoutMs, idleTimeoutMs } = request
  const call = new UpstreamCall(provider, signal)
  try {
    call.watch('connect', connectTimeoutMs)
    const response = await postJson(request.fetch, request.url, call, request.body, request.headers)
    if (!response.ok) {
      call.watch('first_token', firstTokenTimeoutMs)
      throw request.httpError(response, (await readText(call, response, ERROR_BODY_LIMIT)) ?? '')
    }
    if (!response.body) throw streamError(provider, 'answered a stream request without a body.')
    if (response.headers.get('content-type')?.includes('application/json')) {
      const text = (await readText(call, response, ERROR_BODY_LIMIT)) ?? ''
      throw streamError(provider, 'answered a stream request with JSON instead of an event stream.', text.slice(0, 500))
    }
    const upstream = response.body.getReader()
    const firstTokenDeadline = Date.now() + firstTokenTimeoutMs
    let started = false
    for (;;) {
      // Timers run only while we wait on the upstream, never while the consumer holds a batch.
      if (started) call.watch('idle', idleTimeoutMs)
      else call.watch('first_token', Math.max(0, firstTokenDeadline - Date.now()), firstTokenTimeoutMs)
      const read = await upstream.read().catch((error) => {
        throw call.failure(error, true)
      })
      call.unwatch()
      const step = read.done ? reader.end() : reader.push(read.value)
      if (step.done) call.finish(upstream)
      if (step.bytes.length > 0) {
        started = true
        yield step.bytes
      }
      if (step.error) throw step.error
      if (step.done) return
      if (read.done) throw streamError(provider, `closed the stream before ${request.lastEvent}.`)
    }
  } finally {
    call.end()
  }
}
