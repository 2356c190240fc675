import { DEFAULT_MAX_EVENT_BYTES } from '../../config/chat'
import { bytesEqualAt } from './json-bytes'
import { EventTooLarge, SseDataDecoder } from '../sse/decoder'
import { eventTooLarge } from './upstream-error'
import type { EventReader, EventStep } from './upstream-call'

/*
 * Event streams of named events, `event: <type>\ndata: <one-line JSON>\n\n`, cut into whole events
 * on bytes: the form of Anthropic's Messages API and of OpenAI's Responses API. Each provider's
 * {@link EventSink} decides what an event means; the framing is shared.
 */

/**
 * What is done with each whole event of a named-event stream (see {@link EventFraming}). Both add
 * what they send to `out` and return a step only to end the read there (the stream's end, or its
 * failure).
 */
export interface EventSink {
  /**
   * An event in the usual form, `buffer[start, end)` = `event: <type>\ndata: <json>\n\n`: its
   * type is `buffer[start + 7, typeEnd)`, its data `buffer[dataStart, end - 2)`, as bytes.
   */
  event(
    buffer: Uint8Array,
    start: number,
    typeEnd: number,
    dataStart: number,
    end: number,
    out: EventOutput,
  ): EventStep | undefined
  /** An event of a stream that left that form, decoded: its data. */
  decoded(data: string, out: EventOutput): EventStep | undefined
}

const LF = 0x0a
const CR = 0x0d
const COLON = 0x3a
const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0))
const EVENT_PREFIX = ascii('event: ')
const DATA_PREFIX = ascii('data: ')

/**
 * A named-event stream cut into whole events, read by read, without decoding it: each read hands
 * its sink the events it completes, and an event split across reads waits for its end (copied,
 * and at most `maxEventBytes` of it). Comments are dropped.
 *
 * Anthropic and OpenAI's Responses API write every event as `event: <type>\ndata: <one-line
 * JSON>\n\n`. Anything else (CRLF
 * or CR line ends, a byte-order mark, `id:` fields, data over several lines, a comment inside an
 * event) moves the rest of the stream to the WHATWG decoder, whose events reach the sink decoded.
 */
export class EventFraming implements EventReader {
  /** The start of an event that earlier reads did not complete. */
  #pending: Uint8Array[] = []
  #pendingSize = 0
  /** Set once the stream left the usual form. */
  #decoder: SseDataDecoder | undefined
  /** An event boundary has passed: a byte-order mark would now be an ordinary character. */
  #midStream = false

  constructor(
    readonly provider: string,
    readonly sink: EventSink,
    readonly maxEventBytes = DEFAULT_MAX_EVENT_BYTES,
  ) {}

  push(read: Uint8Array): EventStep {
    if (this.#decoder) return this.#decoded(() => this.#decoder!.push(read), new EventOutput())
    const bom = !this.#midStream && this.#pendingSize === 0 && read[0] === 0xef
    if (bom || read.includes(CR)) return this.#leave(this.#takePending(read), 0, new EventOutput())
    const out = new EventOutput()
    let buffer = read
    let at = 0
    if (this.#pendingSize > 0) {
      const last = this.#pending.at(-1)!
      const end = last[last.length - 1] === LF && read[0] === LF ? 0 : blankLineAt(read, 0)
      if (end === -1) return this.#hold(read)
      buffer = this.#takePending(read)
      const closes = buffer.length - read.length + end + 1
      const step = this.#event(buffer, 0, closes, out)
      if (step) return step
      at = closes
    }
    for (;;) {
      while (buffer[at] === LF) at++
      if (at >= buffer.length) return { bytes: out.bytes(), done: false }
      // The usual form, whole, told apart with two searches for a line end; anything else takes the general way.
      const lineEnd = buffer.indexOf(LF, at)
      if (
        lineEnd !== -1 &&
        buffer[at] === EVENT_PREFIX[0] &&
        bytesEqualAt(buffer, at, EVENT_PREFIX) &&
        bytesEqualAt(buffer, lineEnd + 1, DATA_PREFIX)
      ) {
        const dataStart = lineEnd + 1 + DATA_PREFIX.length
        const dataEnd = buffer.indexOf(LF, dataStart)
        if (dataEnd !== -1 && buffer[dataEnd + 1] === LF) {
          this.#midStream = true
          const step = this.sink.event(buffer, at, lineEnd, dataStart, dataEnd + 2, out)
          if (step) return step
          at = dataEnd + 2
          continue
        }
      }
      const end = blankLineAt(buffer, at)
      if (end === -1) return this.#hold(buffer.subarray(at), out)
      const step = this.#event(buffer, at, end + 1, out)
      if (step) return step
      at = end + 1
    }
  }

  end(): EventStep {
    if (this.#decoder) return this.#decoded(() => this.#decoder!.end(), new EventOutput())
    // An event without its closing blank line is dropped, as the standard says.
    this.#pending = []
    this.#pendingSize = 0
    return { bytes: EMPTY, done: false }
  }

  /**
   * One whole event, `buffer[start, end)` ending in its blank line: a comment is dropped, the usual form goes to the
   * sink.
   */
  #event(buffer: Uint8Array, start: number, end: number, out: EventOutput): EventStep | undefined {
    this.#midStream = true
    const firstLineEnd = buffer.indexOf(LF, start)
    if (buffer[start] === COLON && firstLineEnd === end - 2) return undefined
    const shaped =
      bytesEqualAt(buffer, start, EVENT_PREFIX) &&
      bytesEqualAt(buffer, firstLineEnd + 1, DATA_PREFIX) &&
      buffer.indexOf(LF, firstLineEnd + 1) === end - 2
    if (!shaped) return this.#leave(buffer, start, out)
    return this.sink.event(buffer, start, firstLineEnd, firstLineEnd + 1 + DATA_PREFIX.length, end, out)
  }

  /** Keeps the start of an unfinished event for the next read, unless it has grown past the limit. */
  #hold(piece: Uint8Array, out = new EventOutput()): EventStep {
    // Copied, so that a partial event does not keep the whole read buffer alive.
    this.#pending.push(piece.slice())
    this.#pendingSize += piece.length
    if (this.#pendingSize <= this.maxEventBytes) return { bytes: out.bytes(), done: false }
    this.#pending = []
    this.#pendingSize = 0
    return { bytes: out.bytes(), done: false, error: eventTooLarge(this.provider, this.maxEventBytes) }
  }

  /** The unfinished event and `read` as one buffer. */
  #takePending(read: Uint8Array): Uint8Array {
    if (this.#pendingSize === 0) return read
    const buffer = joinBytes([...this.#pending, read])
    this.#pending = []
    this.#pendingSize = 0
    return buffer
  }

  /** From `start` (an event's start) on, the stream is decoded. */
  #leave(buffer: Uint8Array, start: number, out: EventOutput): EventStep {
    this.#decoder = new SseDataDecoder({ midStream: this.#midStream || start > 0, maxEventChars: this.maxEventBytes })
    return this.#decoded(() => this.#decoder!.push(buffer.subarray(start)), out)
  }

  #decoded(decode: () => string[], out: EventOutput): EventStep {
    let events: string[]
    try {
      events = decode()
    } catch (error) {
      if (!(error instanceof EventTooLarge)) throw error
      // The events the read finished before the one that grew too large still go out, before the error.
      for (const data of error.completed) {
        const step = this.sink.decoded(data, out)
        if (step) return step
      }
      return { bytes: out.bytes(), done: false, error: eventTooLarge(this.provider, this.maxEventBytes) }
    }
    for (const data of events) {
      const step = this.sink.decoded(data, out)
      if (step) return step
    }
    return { bytes: out.bytes(), done: false }
  }
}

/** Where the blank line that ends the event starting at `from` ends (its second LF), or -1. */
function blankLineAt(buffer: Uint8Array, from: number): number {
  for (let at = buffer.indexOf(LF, from); at !== -1 && at + 1 < buffer.length; at = buffer.indexOf(LF, at + 1)) {
    if (buffer[at + 1] === LF) return at + 1
  }
  return -1
}

const EMPTY = new Uint8Array(0)

/** Pieces as one array: the piece itself when there is one, no copy. */
function joinBytes(pieces: Uint8Array[]): Uint8Array {
  if (pieces.length === 0) return EMPTY
  if (pieces.length === 1) return pieces[0]!
  const out = new Uint8Array(pieces.reduce((size, piece) => size + piece.length, 0))
  let offset = 0
  for (const piece of pieces) {
    out.set(piece, offset)
    offset += piece.length
  }
  return out
}

/**
 * What one read hands over, gathered as its events are handled: events forwarded as they came
 * ({@link EventOutput.forward}) and bytes written anew ({@link EventOutput.push}), in order.
 * Events forwarded one after another from the same buffer stay one range of it, so a read of
 * whole events forwarded untouched goes out as the read itself (or one view of it), without a
 * copy or an object per event.
 */
export class EventOutput {
  readonly #pieces: Uint8Array[] = []
  /** The buffer of the range being gathered, if one is. */
  #run: Uint8Array | undefined
  #runStart = 0
  #runEnd = 0

  /** Adds `buffer[start, end)` as it is. */
  forward(buffer: Uint8Array, start: number, end: number): void {
    if (buffer === this.#run && start === this.#runEnd) {
      this.#runEnd = end
      return
    }
    this.#flush()
    this.#run = buffer
    this.#runStart = start
    this.#runEnd = end
  }

  /** Adds bytes of its own. */
  push(piece: Uint8Array): void {
    this.#flush()
    this.#pieces.push(piece)
  }

  /** Everything added, as one array. */
  bytes(): Uint8Array {
    this.#flush()
    return joinBytes(this.#pieces)
  }

  #flush(): void {
    const run = this.#run
    if (run === undefined) return
    this.#pieces.push(
      this.#runStart === 0 && this.#runEnd === run.length ? run : run.subarray(this.#runStart, this.#runEnd),
    )
    this.#run = undefined
  }
}
