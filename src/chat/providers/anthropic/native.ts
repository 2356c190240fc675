import { DEFAULT_MAX_EVENT_BYTES } from '../../../config/chat'
import { NOT_PROVEN, parseJsonObject, scanJsonObject } from '../../../json/scan'
import { EventTooLarge, SseDataDecoder } from '../../sse/decoder'
import { isObject, ProviderError, type JsonObject, type MessagesRequest, type NativeMessages, type StreamReport } from '../provider'
import { streamError } from '../upstream-error'
import { anthropicEventError, eventTooLarge } from './errors'
import { joinBytes, type AnthropicTransport, type EventReader, type EventStep } from './transport'
import { finishReasonOf, mergeUsage, usageOf } from './usage'

/**
 * Fields of a Messages request that only matter to generating an answer: `count_tokens` refuses
 * them ("Extra inputs are not permitted"), so a request counted as it would be sent drops them.
 */
const GENERATION_ONLY = ['max_tokens', 'stream', 'stop_sequences', 'temperature', 'top_p', 'top_k', 'metadata', 'service_tier']

/**
 * Anthropic's Messages API spoken natively (see `NativeMessages`): the client's request goes
 * upstream as it came, unknown fields included, with only `stream` set to what is asked of it.
 */
export function nativeMessages(transport: AnthropicTransport): NativeMessages {
  return {
    async complete(request, signal, report) {
      const body = request.stream === true ? { ...request, stream: false } : request
      const message = await transport.json('/messages', body, signal)
      if (report) {
        if (isObject(message.usage)) report.usage = usageOf(message.usage)
        const finish = finishReasonOf(message.stop_reason)
        if (finish) report.finishReason = finish
      }
      return message
    },

    streamEvents(request, signal, report) {
      const { name, maxEventBytes } = transport.options
      const errorOf = (data: string) => anthropicEventError(name, request.model, data, transport.clock())
      return transport.events({ ...request, stream: true }, signal, new NativeEvents(name, report ?? { events: 0 }, errorOf, maxEventBytes))
    },

    async countTokens(request: MessagesRequest, signal: AbortSignal) {
      const body: JsonObject = { ...request }
      for (const field of GENERATION_ONLY) delete body[field]
      const answer = await transport.json('/messages/count_tokens', body, signal)
      if (typeof answer.input_tokens !== 'number') throw streamError(transport.options.name, 'answered a token count without input_tokens.', JSON.stringify(answer).slice(0, 500))
      return answer as { input_tokens: number }
    },
  }
}

const LF = 0x0a
const CR = 0x0d
const COLON = 0x3a
const EVENT_PREFIX = 'event: '
const DATA_PREFIX = 'data: '
const utf8 = new TextDecoder()
const encoder = new TextEncoder()

/**
 * The upstream's events forwarded byte for byte, as whole `event: <type>\ndata: <json>\n\n`
 * events: each read hands over the events it completes, and an event split across reads waits for
 * its end. Pings and comments are dropped (the route sends its own keep-alives); an `error` event
 * ends the stream as a {@link ProviderError}; `message_stop` ends it whole.
 *
 * Anthropic writes every event in that form. Anything else (CRLF or CR line ends, a byte-order
 * mark, `id:` fields, data over several lines, a comment inside an event) moves the rest of the
 * stream to the WHATWG decoder, and each event is written out again in that form.
 */
class NativeEvents implements EventReader {
  /** The start of an event that earlier reads did not complete. */
  #pending: Uint8Array[] = []
  #pendingSize = 0
  /** Set once the stream left the usual form. */
  #decoder: SseDataDecoder | undefined
  /** An event boundary has passed: a byte-order mark would now be an ordinary character. */
  #midStream = false
  readonly #usage: JsonObject = {}

  constructor(
    readonly provider: string,
    readonly report: StreamReport,
    readonly errorOf: (data: string) => ProviderError,
    readonly maxEventBytes = DEFAULT_MAX_EVENT_BYTES,
  ) {}

  push(read: Uint8Array): EventStep {
    if (this.#decoder) return this.#decoded(() => this.#decoder!.push(read), [])
    const bom = !this.#midStream && this.#pendingSize === 0 && read[0] === 0xef
    if (bom || read.includes(CR)) return this.#leave(this.#takePending(read), 0, [])
    const out: Uint8Array[] = []
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
      if (at >= buffer.length) return { bytes: joinBytes(out), done: false }
      const end = blankLineAt(buffer, at)
      if (end === -1) return this.#hold(buffer.subarray(at), out)
      const step = this.#event(buffer, at, end + 1, out)
      if (step) return step
      at = end + 1
    }
  }

  end(): EventStep {
    if (this.#decoder) return this.#decoded(() => this.#decoder!.end(), [])
    // An event without its closing blank line is dropped, as the standard says.
    this.#pending = []
    this.#pendingSize = 0
    return { bytes: joinBytes([]), done: false }
  }

  /**
   * One whole event, `buffer[start, end)` ending in its blank line: added to `out`, dropped, or
   * the end of the stream. Returns the step when the stream ends or leaves the usual form here.
   */
  #event(buffer: Uint8Array, start: number, end: number, out: Uint8Array[]): EventStep | undefined {
    this.#midStream = true
    const firstLineEnd = buffer.indexOf(LF, start)
    if (buffer[start] === COLON && firstLineEnd === end - 2) return undefined
    const dataStart = firstLineEnd + 1 + DATA_PREFIX.length
    const shaped =
      startsWith(buffer, start, EVENT_PREFIX) && startsWith(buffer, firstLineEnd + 1, DATA_PREFIX) && buffer.indexOf(LF, firstLineEnd + 1) === end - 2
    if (!shaped) return this.#leave(buffer, start, out)
    const type = utf8.decode(buffer.subarray(start + EVENT_PREFIX.length, firstLineEnd))
    const verdict = this.#note(type, () => utf8.decode(buffer.subarray(dataStart, end - 2)))
    if (verdict === 'drop') return undefined
    if (verdict instanceof ProviderError) return { bytes: joinBytes(out), done: false, error: verdict }
    // Forwarded untouched, so checked first, as the openai relay checks its events: the client's
    // SDK would fail on data that is not JSON with an error that names no one.
    if (!isJsonObjectAt(buffer, dataStart, end - 2)) return { bytes: joinBytes(out), done: false, error: notAnObject(this.provider, type, utf8.decode(buffer.subarray(dataStart, end - 2))) }
    out.push(buffer.subarray(start, end))
    return verdict === 'stop' ? { bytes: joinBytes(out), done: true } : undefined
  }

  /** What an event of `type` tells the report, and whether it is sent, dropped, ends the stream or fails it. */
  #note(type: string, data: () => string): 'send' | 'drop' | 'stop' | ProviderError {
    switch (type) {
      case 'ping':
        return 'drop'
      case 'error':
        return this.errorOf(data())
      case 'content_block_delta':
        this.report.events++
        return 'send'
      case 'message_start':
      case 'message_delta': {
        const event = parseJsonObject(data())
        if (!event) return notAnObject(this.provider, type, data())
        mergeUsage(this.#usage, type === 'message_start' ? (isObject(event.message) ? event.message.usage : undefined) : event.usage)
        this.report.usage = usageOf(this.#usage)
        const finish = finishReasonOf(isObject(event.delta) ? event.delta.stop_reason : undefined)
        if (finish) this.report.finishReason = finish
        return 'send'
      }
      case 'message_stop':
        return 'stop'
      default:
        return 'send'
    }
  }

  /** Keeps the start of an unfinished event for the next read, unless it has grown past the limit. */
  #hold(piece: Uint8Array, out: Uint8Array[] = []): EventStep {
    // Copied, so that a partial event does not keep the whole read buffer alive.
    this.#pending.push(piece.slice())
    this.#pendingSize += piece.length
    if (this.#pendingSize <= this.maxEventBytes) return { bytes: joinBytes(out), done: false }
    this.#pending = []
    this.#pendingSize = 0
    return { bytes: joinBytes(out), done: false, error: eventTooLarge(this.provider, this.maxEventBytes) }
  }

  /** The unfinished event and `read` as one buffer. */
  #takePending(read: Uint8Array): Uint8Array {
    if (this.#pendingSize === 0) return read
    const buffer = joinBytes([...this.#pending, read])
    this.#pending = []
    this.#pendingSize = 0
    return buffer
  }

  /** From `start` (an event's start) on, the stream is decoded and each event written out again. */
  #leave(buffer: Uint8Array, start: number, out: Uint8Array[]): EventStep {
    this.#decoder = new SseDataDecoder({ midStream: this.#midStream || start > 0, maxEventChars: this.maxEventBytes })
    return this.#decoded(() => this.#decoder!.push(buffer.subarray(start)), out)
  }

  #decoded(decode: () => string[], out: Uint8Array[]): EventStep {
    let events: string[]
    try {
      events = decode()
    } catch (error) {
      if (!(error instanceof EventTooLarge)) throw error
      return { bytes: joinBytes(out), done: false, error: eventTooLarge(this.provider, this.maxEventBytes) }
    }
    for (const data of events) {
      const event = parseJsonObject(data)
      if (!event || typeof event.type !== 'string') return { bytes: joinBytes(out), done: false, error: streamError(this.provider, 'sent an event that is not a typed JSON object.', data.slice(0, 500)) }
      const verdict = this.#note(event.type, () => data)
      if (verdict === 'drop') continue
      if (verdict instanceof ProviderError) return { bytes: joinBytes(out), done: false, error: verdict }
      // Data over several lines is JSON with line breaks between tokens: one line again.
      const line = data.includes('\n') ? JSON.stringify(event) : data
      out.push(encoder.encode(`event: ${event.type}\ndata: ${line}\n\n`))
      if (verdict === 'stop') return { bytes: joinBytes(out), done: true }
    }
    return { bytes: joinBytes(out), done: false }
  }
}

function notAnObject(provider: string, type: string, data: string): ProviderError {
  return streamError(provider, `sent a ${type.slice(0, 64)} event that is not a JSON object.`, data.slice(0, 500))
}

/** `buffer[start, end)` is a JSON object: proven by the in-place scan, or, where it cannot prove it, by parsing. */
function isJsonObjectAt(buffer: Uint8Array, start: number, end: number): boolean {
  return scanJsonObject(buffer, start, end) !== NOT_PROVEN || parseJsonObject(utf8.decode(buffer.subarray(start, end))) !== undefined
}

/** Where the blank line that ends the event starting at `from` ends (its second LF), or -1. */
function blankLineAt(buffer: Uint8Array, from: number): number {
  for (let at = buffer.indexOf(LF, from); at !== -1 && at + 1 < buffer.length; at = buffer.indexOf(LF, at + 1)) {
    if (buffer[at + 1] === LF) return at + 1
  }
  return -1
}

function startsWith(buffer: Uint8Array, at: number, prefix: string): boolean {
  if (at + prefix.length > buffer.length) return false
  for (let k = 0; k < prefix.length; k++) if (buffer[at + k] !== prefix.charCodeAt(k)) return false
  return true
}
