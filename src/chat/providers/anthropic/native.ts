import { NOT_PROVEN, parseJsonObject, scanJsonObject } from '../event-scan'
import {
  isObject,
  ProviderError,
  type JsonObject,
  type MessagesRequest,
  type NativeMessages,
  type PassedHeaders,
  type StreamReport,
} from '../provider'
import { streamError } from '../upstream-error'
import { namedEventText } from '../../sse/encode'
import { anthropicEventError } from './errors'
import { EventFraming, type EventOutput, type EventSink } from '../event-framing'
import type { EventStep } from '../upstream-call'
import type { AnthropicTransport } from './transport'
import { finishReasonOf, mergeUsage, usageOf } from './usage'

/**
 * Fields of a Messages request that only matter to generating an answer: `count_tokens` refuses
 * them ("Extra inputs are not permitted"), so a request counted as it would be sent drops them.
 */
const GENERATION_ONLY = [
  'max_tokens',
  'stream',
  'stop_sequences',
  'temperature',
  'top_p',
  'top_k',
  'metadata',
  'service_tier',
]

/**
 * Anthropic's Messages API spoken natively (see `NativeMessages`): the client's request goes
 * upstream as it came, unknown fields included, with only `stream` set to what is asked of it.
 */
export function nativeMessages(transport: AnthropicTransport): NativeMessages {
  return {
    async complete(request, signal, report, passed) {
      const body = request.stream === true ? { ...request, stream: false } : request
      const message = await transport.json('/messages', body, signal, passed)
      if (report) {
        if (isObject(message.usage)) report.usage = usageOf(message.usage)
        const finish = finishReasonOf(message.stop_reason)
        if (finish) report.finishReason = finish
      }
      return message
    },

    streamEvents(request, signal, report, passed) {
      const { name, maxEventBytes } = transport.options
      const errorOf = (data: string) => anthropicEventError(name, request.model, data, transport.clock())
      return transport.events(
        { ...request, stream: true },
        signal,
        new EventFraming(name, new NativeEvents(name, report ?? { events: 0 }, errorOf), maxEventBytes),
        passed,
      )
    },

    async countTokens(request: MessagesRequest, signal: AbortSignal, passed?: PassedHeaders) {
      const body: JsonObject = { ...request }
      for (const field of GENERATION_ONLY) delete body[field]
      const answer = await transport.json('/messages/count_tokens', body, signal, passed)
      if (typeof answer.input_tokens !== 'number')
        throw streamError(
          transport.options.name,
          'answered a token count without input_tokens.',
          JSON.stringify(answer).slice(0, 500),
        )
      return answer as { input_tokens: number }
    },
  }
}

const utf8 = new TextDecoder()
const encoder = new TextEncoder()
const EVENT_PREFIX_LENGTH = 'event: '.length

/**
 * What the native stream does with each whole event (cut by {@link EventFraming}): forwarded byte
 * for byte, as Anthropic wrote it. Pings are dropped (the route sends its own keep-alives); an
 * `error` event ends the stream as a {@link ProviderError}; `message_stop` ends it whole. Events
 * of a stream that left Anthropic's usual form are written out again in that form.
 */
class NativeEvents implements EventSink {
  readonly #usage: JsonObject = {}

  constructor(
    readonly provider: string,
    readonly report: StreamReport,
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
    const type = utf8.decode(buffer.subarray(start + EVENT_PREFIX_LENGTH, typeEnd))
    const verdict = this.#note(type, () => utf8.decode(buffer.subarray(dataStart, end - 2)))
    if (verdict === 'drop') return undefined
    if (verdict instanceof ProviderError) return { bytes: out.bytes(), done: false, error: verdict }
    // Forwarded untouched, so checked first, as the openai relay checks its events: the client's
    // SDK would fail on data that is not JSON with an error that names no one.
    if (!isJsonObjectAt(buffer, dataStart, end - 2))
      return {
        bytes: out.bytes(),
        done: false,
        error: notAnObject(this.provider, type, utf8.decode(buffer.subarray(dataStart, end - 2))),
      }
    out.forward(buffer, start, end)
    return verdict === 'stop' ? { bytes: out.bytes(), done: true } : undefined
  }

  decoded(data: string, out: EventOutput): EventStep | undefined {
    const event = parseJsonObject(data)
    // The type becomes an `event:` line again: a line break in it would forge the lines after it.
    if (!event || typeof event.type !== 'string' || /[\r\n]/.test(event.type))
      return {
        bytes: out.bytes(),
        done: false,
        error: streamError(this.provider, 'sent an event that is not a typed JSON object.', data.slice(0, 500)),
      }
    const verdict = this.#note(event.type, () => data)
    if (verdict === 'drop') return undefined
    if (verdict instanceof ProviderError) return { bytes: out.bytes(), done: false, error: verdict }
    // Data over several lines is JSON with line breaks between tokens: one line again.
    const line = data.includes('\n') ? JSON.stringify(event) : data
    out.push(encoder.encode(namedEventText(event.type, line)))
    return verdict === 'stop' ? { bytes: out.bytes(), done: true } : undefined
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
        mergeUsage(
          this.#usage,
          type === 'message_start' ? (isObject(event.message) ? event.message.usage : undefined) : event.usage,
        )
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
}

function notAnObject(provider: string, type: string, data: string): ProviderError {
  return streamError(provider, `sent a ${type.slice(0, 64)} event that is not a JSON object.`, data.slice(0, 500))
}

/** `buffer[start, end)` is a JSON object: proven by the in-place scan, or, where it cannot prove it, by parsing. */
function isJsonObjectAt(buffer: Uint8Array, start: number, end: number): boolean {
  return (
    scanJsonObject(buffer, start, end) !== NOT_PROVEN ||
    parseJsonObject(utf8.decode(buffer.subarray(start, end))) !== undefined
  )
}
