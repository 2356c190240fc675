import { EventFraming, type EventOutput, type EventSink } from '../event-framing'
import { NOT_PROVEN, parseJsonObject, ScanMemo, scanJsonObject } from '../event-scan'
import { bytesEqualAt } from '../json-bytes'
import { isObject, type NativeResponses, type ProviderError, type ResponsesReport } from '../provider'
import { streamError } from '../upstream-error'
import type { EventStep } from '../upstream-call'
import { namedEventText } from '../../sse/encode'
import { noteResponse, reportsResponsesError, responsesError } from './responses-report'
import type { OpenAITransport } from './transport'

/**
 * OpenAI's Responses API spoken natively (see `NativeResponses`), for upstreams that serve
 * `POST /responses` themselves (OpenAI, Azure, vLLM…): the client's request goes upstream as it
 * came, unknown fields included, with only `stream` set to what is asked of it (the route has
 * already rewritten `model`), and the answer comes back as the upstream wrote it.
 */
export function nativeResponses(transport: OpenAITransport): NativeResponses {
  const { name } = transport.options
  return {
    async complete(request, signal, report) {
      const body = request.stream ? { ...request, stream: false } : request
      const answer = await transport.json('/responses', body, signal)
      if (reportsResponsesError(answer))
        throw responsesError(name, request.model, JSON.stringify(answer), transport.clock())
      if (report) noteResponse(report, answer)
      return answer
    },

    streamEvents(request, signal, report) {
      const errorOf = (data: string) => responsesError(name, request.model, data, transport.clock())
      const sink = new ResponsesEvents(name, report ?? { events: 0 }, errorOf)
      return transport.events(
        '/responses',
        { ...request, stream: true },
        signal,
        new EventFraming(name, sink, transport.options.maxEventBytes),
        'response.completed',
      )
    },
  }
}

const utf8 = new TextDecoder()
const encoder = new TextEncoder()
const EVENT_PREFIX_LENGTH = 'event: '.length
const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0))
const DELTA_SUFFIX = ascii('.delta')
const DELTA_KEY = ascii('delta')
const ERROR = ascii('error')
const KEEPALIVE = ascii('keepalive')
const COMPLETED = ascii('response.completed')
const INCOMPLETE = ascii('response.incomplete')
const FAILED = ascii('response.failed')
/** The Response's status each terminal event stands for. */
const TERMINAL_STATUS: Record<string, string> = {
  'response.completed': 'completed',
  'response.incomplete': 'incomplete',
  'response.failed': 'failed',
}

/** What an event's type asks of the relay. */
const FORWARD = 0
const DELTA = 1
const DROP = 2
const FAIL = 3
const TERMINAL = 4

/**
 * What the native stream does with each whole event (cut by {@link EventFraming}): forwarded byte
 * for byte, whatever its type, including the many Trellis does not model (built-in tools'
 * `response.web_search_call.searching`, `response.output_text.annotation.added`…), once its data
 * is proven a JSON object. Most events are deltas, so an event's type is told from its bytes, and a
 * delta costs a count and the in-place check of its JSON; only the terminal event, once a stream,
 * is parsed, for the report. `keepalive` events are dropped (the route sends its own keep-alives);
 * an `error` event ends the stream as a {@link ProviderError}; `response.completed`,
 * `response.incomplete` and `response.failed` end it whole. Events of a stream that left the usual
 * form are written out again in that form.
 */
class ResponsesEvents implements EventSink {
  /**
   * What a stream's deltas share, up to their `delta`: the event's type, its item and indexes, the
   * same for every delta of a part (see ScanMemo).
   */
  readonly #deltas = new ScanMemo(DELTA_KEY)

  constructor(
    readonly provider: string,
    readonly report: ResponsesReport,
    readonly errorOf: (data: string) => ProviderError,
  ) {}

  event(
    buffer: Uint8Array,
    start: number,
    typeEnd: number,
    dataStart: number,
    end: number,
    out: EventOutput,
  ): EventStep | undefined {
    const dataEnd = end - 2
    const kind = kindOfBytes(buffer, start + EVENT_PREFIX_LENGTH, typeEnd)
    if (kind === DELTA || kind === FORWARD) {
      // Forwarded untouched, so checked first, as the chat relay checks its events: the client's
      // SDK would fail on data that is not JSON with an error that names no one.
      if (
        scanJsonObject(buffer, dataStart, dataEnd, kind === DELTA ? this.#deltas : undefined) === NOT_PROVEN &&
        !parseJsonObject(utf8.decode(buffer.subarray(dataStart, dataEnd)))
      )
        return this.#fail(out, this.#notAnObject(buffer, start, typeEnd, dataStart, dataEnd))
      if (kind === DELTA) this.report.events++
      out.forward(buffer, start, end)
      return undefined
    }
    if (kind === DROP) return undefined
    const data = utf8.decode(buffer.subarray(dataStart, dataEnd))
    if (kind === FAIL) return this.#fail(out, this.errorOf(data))
    const event = parseJsonObject(data)
    if (!event) return this.#fail(out, this.#notAnObject(buffer, start, typeEnd, dataStart, dataEnd))
    this.#noteTerminal(utf8.decode(buffer.subarray(start + EVENT_PREFIX_LENGTH, typeEnd)), event)
    out.forward(buffer, start, end)
    return { bytes: out.bytes(), done: true }
  }

  decoded(data: string, out: EventOutput): EventStep | undefined {
    const event = parseJsonObject(data)
    const type = event?.type
    // The type becomes an `event:` line again: a line break in it would forge the lines after it.
    if (!event || typeof type !== 'string' || /[\r\n]/.test(type)) {
      if (event && type === undefined && event.error !== undefined) return this.#fail(out, this.errorOf(data))
      return this.#fail(
        out,
        streamError(this.provider, 'sent an event that is not a typed JSON object.', data.slice(0, 500)),
      )
    }
    const kind = kindOf(type)
    if (kind === DROP) return undefined
    if (kind === FAIL) return this.#fail(out, this.errorOf(data))
    if (kind === DELTA) this.report.events++
    // Data over several lines is JSON with line breaks between tokens: one line again.
    const line = data.includes('\n') ? JSON.stringify(event) : data
    out.push(encoder.encode(namedEventText(type, line)))
    if (kind !== TERMINAL) return undefined
    this.#noteTerminal(type, event)
    return { bytes: out.bytes(), done: true }
  }

  /** The final Response of a terminal event, for the ledger and for `store`. */
  #noteTerminal(type: string, event: Record<string, unknown>): void {
    if (isObject(event.response)) noteResponse(this.report, event.response, TERMINAL_STATUS[type])
  }

  #fail(out: EventOutput, error: ProviderError): EventStep {
    return { bytes: out.bytes(), done: false, error }
  }

  #notAnObject(buffer: Uint8Array, start: number, typeEnd: number, dataStart: number, dataEnd: number) {
    const type = utf8.decode(buffer.subarray(start + EVENT_PREFIX_LENGTH, typeEnd)).slice(0, 64)
    const data = utf8.decode(buffer.subarray(dataStart, dataEnd))
    return streamError(this.provider, `sent a ${type} event that is not a JSON object.`, data.slice(0, 500))
  }
}

/** What the event type `bytes[start, end)` asks of the relay, told from its bytes without decoding them. */
function kindOfBytes(bytes: Uint8Array, start: number, end: number): number {
  const length = end - start
  if (length > DELTA_SUFFIX.length && bytesEqualAt(bytes, end - DELTA_SUFFIX.length, DELTA_SUFFIX)) return DELTA
  if (length === ERROR.length) return bytesEqualAt(bytes, start, ERROR) ? FAIL : FORWARD
  if (length === KEEPALIVE.length) return bytesEqualAt(bytes, start, KEEPALIVE) ? DROP : FORWARD
  if (length === COMPLETED.length) return bytesEqualAt(bytes, start, COMPLETED) ? TERMINAL : FORWARD
  if (length === INCOMPLETE.length) return bytesEqualAt(bytes, start, INCOMPLETE) ? TERMINAL : FORWARD
  if (length === FAILED.length) return bytesEqualAt(bytes, start, FAILED) ? TERMINAL : FORWARD
  return FORWARD
}

/** The same for a decoded type. */
function kindOf(type: string): number {
  if (type.length > DELTA_SUFFIX.length && type.endsWith('.delta')) return DELTA
  if (type === 'error') return FAIL
  if (type === 'keepalive') return DROP
  return Object.hasOwn(TERMINAL_STATUS, type) ? TERMINAL : FORWARD
}
