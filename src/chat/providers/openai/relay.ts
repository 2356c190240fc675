import {
  ScanMemo,
  HAS_CHOICES,
  HAS_ERROR,
  HAS_FINISH,
  HAS_USAGE,
  HAS_USAGE_NULL,
  NOT_PROVEN,
  parseJsonObject,
  reportsError,
  scanJsonObject,
  type MemberRange,
} from '../event-scan'
import { bytesAt } from '../json-bytes'
import { type ChunkTranslator, noteChunk, type JsonObject, type StreamReport } from '../provider'
import { concat } from '../../sse/bytes'
import { DEFAULT_MAX_EVENT_BYTES } from '../../../config/chat'
import { EventTooLarge, SseDataDecoder } from '../../sse/decoder'

/** What one upstream read gave the relay. */
export type RelayedEvents = {
  /** Whole events, each `data: <one-line JSON object>\n\n`, ready to send as they are; may be empty. */
  bytes: Uint8Array
  /** `data: [DONE]` arrived, and ends `bytes`; nothing after it is read. */
  done: boolean
  /**
   * An event that stops the stream: its data is not a JSON object, it reports an error, or it grew past the limit
   * unfinished.
   */
  refused?: { notAnObject: string } | { error: unknown } | { tooLarge: number }
}

/**
 * How large an unfinished event may grow on the verbatim path. Each read re-scans what was held
 * back, so a larger event would cost time in the square of its size (a 16 MB event once took
 * 9.4 s); past this, the stream moves to the decoder, which buffers fragments in linear time.
 */
const VERBATIM_PENDING_LIMIT = 64 * 1024

const EMPTY = new Uint8Array(0)
const LF = 0x0a
const COLON = 0x3a
const DATA_PREFIX = [0x64, 0x61, 0x74, 0x61, 0x3a, 0x20] // `data: `
const DONE = [0x5b, 0x44, 0x4f, 0x4e, 0x45, 0x5d] // `[DONE]`
const encoder = new TextEncoder()
const utf8 = new TextDecoder()

/**
 * Turns an upstream's event stream into the events Trellis sends, forwarding bytes untouched
 * wherever it can.
 *
 * OpenAI-compatible upstreams write every event as `data: <compact JSON>\n\n`. While the stream
 * keeps to that form, each event's JSON is validated in place ({@link scanJsonObject}) and the
 * read's bytes go out as they came, without decoding, parsing or re-encoding: a read of whole
 * events is sent as the same bytes, and fields, number spellings and escapes stay exactly as the
 * upstream wrote them. Comment lines and stray blank lines are dropped; Trellis sends its own
 * keep-alives.
 *
 * Anything else (CRLF line ends, a byte-order mark, `event:` or `id:` fields, data split over
 * several lines, JSON the scan cannot prove valid) moves the rest of the stream to the full
 * WHATWG decoder ({@link SseDataDecoder}), where each event is parsed and re-serialised to one
 * line. Both paths refuse the same events: data that is not a JSON object, and an in-band
 * `{"error":…}` without `choices`.
 */
export class SseEventRelay {
  /** The start of an event that the last read did not complete. */
  #pending: Uint8Array | undefined
  /** Set once the stream left the verbatim form; it then decodes everything that follows. */
  #decoder: SseDataDecoder | undefined
  /** No read has been scanned yet, so a byte-order mark may still open the stream. */
  #atStreamStart = true
  readonly #maxEventBytes: number
  /** The envelope this stream's events share, proven once (see ScanMemo). */
  readonly #memo = new ScanMemo()
  /** Where the last scanned event's `,"usage":null` member is, for cutting it out. */
  readonly #usageNull: MemberRange = { start: 0, end: 0 }
  readonly #report: StreamReport
  readonly #stripUsage: boolean
  /** Offered each event before it is scanned, and given what is forwarded before a claimed one (see streamTranslated). */
  readonly #translator: ChunkTranslator | undefined

  /**
   * `maxEventBytes`: most an unfinished event may hold back before the stream is refused
   * (`CHAT_MAX_EVENT_BYTES`). `report` learns the stream's usage, finish reason and content events;
   * with `stripUsage`, the usage chunk (no choices) is not sent: the usage was asked for upstream
   * for the ledger, not by the client.
   */
  constructor(
    options: { maxEventBytes?: number; report?: StreamReport; stripUsage?: boolean; translator?: ChunkTranslator } = {},
  ) {
    this.#maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES
    this.#report = options.report ?? { events: 0 }
    this.#stripUsage = options.stripUsage ?? false
    this.#translator = options.translator
  }

  push(read: Uint8Array): RelayedEvents {
    if (this.#decoder) return this.#decoded(() => this.#decoder!.push(read), [], read)
    const pending = this.#pending
    this.#pending = undefined
    if (pending && pending.length + read.length > VERBATIM_PENDING_LIMIT) {
      // A large event in the making: hand it and the rest of the stream to the decoder.
      this.#decoder = this.#newDecoder(true)
      return this.#decoded(() => [...this.#decoder!.push(pending), ...this.#decoder!.push(read)], [], EMPTY)
    }
    const buffer = pending ? concat(pending, read) : read
    const relayed = this.#scan(buffer)
    this.#atStreamStart = false
    return relayed
  }

  /** The upstream body ended. An event without its closing blank line is dropped, as the standard says. */
  end(): RelayedEvents {
    if (!this.#decoder) {
      if (!this.#pending) return { bytes: EMPTY, done: false }
      this.#decoder = this.#newDecoder(true)
      const pending = this.#pending
      this.#pending = undefined
      return this.#decoded(() => [...this.#decoder!.push(pending), ...this.#decoder!.end()], [], pending)
    }
    return this.#decoded(() => this.#decoder!.end(), [], EMPTY)
  }

  #newDecoder(midStream: boolean): SseDataDecoder {
    return new SseDataDecoder({ midStream, maxEventChars: this.#maxEventBytes })
  }

  /**
   * The decoder's events re-serialised after the verbatim `ranges` of `buffer`; an event past the limit refuses the
   * stream.
   */
  #decoded(decode: () => string[], ranges: number[], buffer: Uint8Array): RelayedEvents {
    let data: string[]
    try {
      data = decode()
    } catch (error) {
      if (!(error instanceof EventTooLarge)) throw error
      // The events the read finished before the one that grew too large still go out, before the error.
      const before = reencode(error.completed, ranges, buffer, this.#report, this.#stripUsage)
      return before.done || before.refused ? before : { ...before, refused: { tooLarge: this.#maxEventBytes } }
    }
    return reencode(data, ranges, buffer, this.#report, this.#stripUsage)
  }

  #scan(buffer: Uint8Array): RelayedEvents {
    /** Ranges of `buffer` to send, as start/end pairs. */
    const ranges: number[] = []
    let runStart = 0
    let at = 0
    const cut = () => {
      if (at > runStart) ranges.push(runStart, at)
    }
    while (at < buffer.length) {
      const first = buffer[at]
      if (first === LF || first === COLON) {
        // A blank line between events, or a comment line: neither is sent.
        const lineEnd = first === LF ? at : buffer.indexOf(LF, at)
        if (lineEnd === -1) break
        cut()
        at = runStart = lineEnd + 1
        continue
      }
      if (!bytesAt(buffer, at, DATA_PREFIX)) {
        // A read may end inside `data: `; wait for the rest before deciding.
        if (buffer.length - at < DATA_PREFIX.length && bytesAt(buffer, at, DATA_PREFIX.slice(0, buffer.length - at)))
          break
        return this.#leaveVerbatim(buffer, ranges, runStart, at)
      }
      const dataStart = at + DATA_PREFIX.length
      const lineEnd = buffer.indexOf(LF, dataStart)
      if (lineEnd === -1 || lineEnd + 1 === buffer.length) break
      if (buffer[lineEnd + 1] !== LF) return this.#leaveVerbatim(buffer, ranges, runStart, at)
      if (lineEnd - dataStart === DONE.length && bytesAt(buffer, dataStart, DONE)) {
        at = lineEnd + 2
        cut()
        return { bytes: gather(buffer, ranges), done: true }
      }
      const translator = this.#translator
      if (translator !== undefined) {
        // What this read forwarded before the event reaches the translator first, in order.
        if (at > runStart || ranges.length > 0) {
          cut()
          translator.events(gather(buffer, ranges))
          ranges.length = 0
          runStart = at
        }
        if (translator.claim(buffer, dataStart, lineEnd)) {
          // Proven and taken: a chunk with choices, no usage and no finish reason.
          this.#report.events++
          at = runStart = lineEnd + 2
          continue
        }
      }
      const flags = scanJsonObject(buffer, dataStart, lineEnd, this.#memo, this.#usageNull)
      if (flags === NOT_PROVEN) return this.#leaveVerbatim(buffer, ranges, runStart, at)
      if (flags & HAS_ERROR && !(flags & HAS_CHOICES)) {
        cut()
        const error = (JSON.parse(utf8.decode(buffer.subarray(dataStart, lineEnd))) as { error: unknown }).error
        return { bytes: gather(buffer, ranges), done: false, refused: { error } }
      }
      if (flags & (HAS_USAGE | HAS_FINISH) && (translator === undefined || this.#stripUsage)) {
        // Once or twice a stream: parsed for what it reports, and the usage chunk left out if asked (a translator
        // reads it for itself).
        const chunk = JSON.parse(utf8.decode(buffer.subarray(dataStart, lineEnd))) as JsonObject
        noteChunk(this.#report, chunk)
        if (this.#stripUsage && isUsageChunk(chunk)) {
          cut()
          at = runStart = lineEnd + 2
          continue
        }
      } else if (flags & HAS_CHOICES) this.#report.events++
      if (flags & HAS_USAGE_NULL && this.#stripUsage) {
        // `"usage":null` in every chunk is what asking for usage adds; a client that did not ask never saw it.
        ranges.push(runStart, this.#usageNull.start)
        runStart = this.#usageNull.end
      }
      at = lineEnd + 2
    }
    cut()
    // Copied, so that a partial event does not keep the whole read buffer alive.
    if (at < buffer.length) this.#pending = buffer.slice(at)
    if (this.#pending && this.#pending.length > this.#maxEventBytes) {
      this.#pending = undefined
      return { bytes: gather(buffer, ranges), done: false, refused: { tooLarge: this.#maxEventBytes } }
    }
    return { bytes: gather(buffer, ranges), done: false }
  }

  /** From `at` (the start of an event) on, the stream is decoded and re-serialised. */
  #leaveVerbatim(buffer: Uint8Array, ranges: number[], runStart: number, at: number): RelayedEvents {
    if (at > runStart) ranges.push(runStart, at)
    this.#decoder = this.#newDecoder(!(this.#atStreamStart && at === 0))
    return this.#decoded(() => this.#decoder!.push(buffer.subarray(at)), ranges, buffer)
  }
}

/** The chunk that `stream_options.include_usage` adds at the end: usage, and no choices. */
const isUsageChunk = (chunk: JsonObject) =>
  Array.isArray(chunk.choices) && chunk.choices.length === 0 && chunk.usage != null

/** Sends decoded events the slow way, after the verbatim `ranges` of `buffer`. */
function reencode(
  data: string[],
  ranges: number[],
  buffer: Uint8Array,
  report: StreamReport,
  stripUsage: boolean,
): RelayedEvents {
  let text = ''
  let done = false
  let refused: RelayedEvents['refused']
  for (const each of data) {
    if (each === '[DONE]') {
      text += 'data: [DONE]\n\n'
      done = true
      break
    }
    const chunk = parseJsonObject(each)
    if (!chunk) refused = { notAnObject: each }
    else if (reportsError(chunk)) refused = { error: chunk.error }
    if (refused) break
    noteChunk(report, chunk!)
    if (stripUsage && isUsageChunk(chunk!)) continue
    if (stripUsage && chunk!.usage === null) delete chunk!.usage
    text += `data: ${JSON.stringify(chunk)}\n\n`
  }
  const verbatim = gather(buffer, ranges)
  const bytes =
    text.length === 0 ? verbatim : verbatim.length === 0 ? encoder.encode(text) : concat(verbatim, encoder.encode(text))
  return refused ? { bytes, done, refused } : { bytes, done }
}

/** The bytes of `ranges`: the buffer itself or a view of it for one range, a copy for several. */
function gather(buffer: Uint8Array, ranges: number[]): Uint8Array {
  if (ranges.length === 0) return EMPTY
  if (ranges.length === 2)
    return ranges[0] === 0 && ranges[1] === buffer.length ? buffer : buffer.subarray(ranges[0], ranges[1])
  let size = 0
  for (let k = 0; k < ranges.length; k += 2) size += ranges[k + 1] - ranges[k]
  const out = new Uint8Array(size)
  let offset = 0
  for (let k = 0; k < ranges.length; k += 2) {
    out.set(buffer.subarray(ranges[k], ranges[k + 1]), offset)
    offset += ranges[k + 1] - ranges[k]
  }
  return out
}
