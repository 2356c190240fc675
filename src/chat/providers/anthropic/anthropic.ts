import { DEFAULT_ANTHROPIC_MAX_TOKENS } from './settings'
import { parseJsonObject } from '../event-scan'
import { SseDataDecoder } from '../../sse/decoder'
import { encodeEvent } from '../../sse/encode'
import {
  isObject,
  type ProviderError,
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatProvider,
  type ChatRequest,
  type NativeMessages,
  type StreamReport,
} from '../provider'
import { streamError } from '../upstream-error'
import { ChunkTranslator, completionOf, OutOfOrder } from './chunks'
import { anthropicEventError } from './errors'
import { isDeltaEvent, spliceDelta } from './delta-splice'
import { EventFraming, type EventOutput, type EventSink } from '../event-framing'
import { nativeMessages } from './native'
import { toMessagesRequest, type TranslationSettings } from './request'
import type { EventStep } from '../upstream-call'
import { AnthropicTransport, type AnthropicProviderOptions } from './transport'

export type { AnthropicProviderOptions } from './transport'

/**
 * A relay to Anthropic's Messages API (`POST ${baseUrl}/messages`) behind the OpenAI interface:
 * each request is translated to a Messages request (see `toMessagesRequest`), and the answer back,
 * streamed event by event as it arrives (see `ChunkTranslator`). Parameters Anthropic cannot
 * honour are a 400 naming them. The same provider speaks the Messages API natively to
 * `/v1/messages` ({@link ChatProvider.messages}), relaying the upstream's events byte for byte.
 *
 * @example
 * const claude = anthropicProvider({ ...PROVIDER_DEFAULTS, name: 'claude', baseUrl: 'https://api.anthropic.com/v1', apiKey })
 */
export function anthropicProvider(
  options: AnthropicProviderOptions,
): ChatProvider & Required<Pick<ChatProvider, 'streamEvents' | 'messages'>> {
  return new AnthropicProvider(options)
}

class AnthropicProvider implements ChatProvider {
  readonly name: string
  readonly messages: NativeMessages
  readonly #transport: AnthropicTransport
  readonly #settings: TranslationSettings

  constructor(options: AnthropicProviderOptions) {
    this.name = `anthropic:${options.name}`
    this.#transport = new AnthropicTransport(options)
    this.#settings = {
      defaultMaxTokens: options.defaultMaxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
      thinkingBudgetTokens: options.thinkingBudgetTokens,
    }
    this.messages = nativeMessages(this.#transport)
  }

  async complete(request: ChatRequest, signal: AbortSignal): Promise<ChatCompletion> {
    const body = toMessagesRequest(request, this.#settings)
    const message = await this.#transport.json('/messages', body, signal)
    return completionOf(message, this.#transport.clock)
  }

  /** The chunks of {@link streamEvents}, parsed; for callers that want objects rather than bytes. */
  async *stream(request: ChatRequest, signal: AbortSignal): AsyncGenerator<ChatCompletionChunk> {
    const decoder = new SseDataDecoder()
    for await (const events of this.streamEvents(request, signal)) {
      for (const data of decoder.push(events)) if (data !== '[DONE]') yield JSON.parse(data) as ChatCompletionChunk
    }
  }

  /**
   * The answer as OpenAI's events, each upstream read's worth handed over as soon as it is
   * translated; the last item ends with `data: [DONE]`. The usage chunk is sent only when the
   * client asked for it (`stream_options.include_usage`); `report` always gets the usage.
   */
  async *streamEvents(
    request: ChatRequest,
    signal: AbortSignal,
    report: StreamReport = { events: 0 },
  ): AsyncGenerator<Uint8Array> {
    const body = { ...toMessagesRequest(request, this.#settings), stream: true }
    const options = isObject(request.stream_options) ? request.stream_options : {}
    const { name, maxEventBytes } = this.#transport.options
    const translator = new ChunkTranslator(report, this.#transport.clock)
    const errorOf = (data: string) => anthropicEventError(name, request.model, data, this.#transport.clock())
    const reader = new EventFraming(
      name,
      new TranslatedEvents(name, translator, options.include_usage === true, errorOf),
      maxEventBytes,
    )
    yield* this.#transport.events(body, signal, reader)
  }
}

/**
 * Anthropic's events translated as each read completes them, as OpenAI's `data:` events. A delta
 * in Anthropic's compact form is spliced without parsing (delta-splice.ts); every other event is
 * parsed and translated by the {@link ChunkTranslator}, which both ways keep in step.
 */
class TranslatedEvents implements EventSink {
  constructor(
    readonly provider: string,
    readonly translator: ChunkTranslator,
    readonly includeUsage: boolean,
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
    if (
      isDeltaEvent(buffer, start + EVENT_PREFIX_LENGTH, typeEnd) &&
      spliceDelta(buffer, dataStart, end - 2, this.translator, out)
    )
      return undefined
    return this.decoded(utf8.decode(buffer.subarray(dataStart, end - 2)), out)
  }

  decoded(data: string, out: EventOutput): EventStep | undefined {
    const event = parseJsonObject(data)
    if (!event)
      return {
        bytes: out.bytes(),
        done: false,
        error: streamError(this.provider, 'sent an event that is not a JSON object.', data.slice(0, 500)),
      }
    if (event.type === 'error') return { bytes: out.bytes(), done: false, error: this.errorOf(data) }
    let chunks: ChatCompletionChunk[]
    try {
      chunks = this.translator.push(event)
    } catch (error) {
      if (!(error instanceof OutOfOrder)) throw error
      return {
        bytes: out.bytes(),
        done: false,
        error: streamError(this.provider, error.message, data.slice(0, 500)),
      }
    }
    for (const chunk of chunks) {
      if (chunk.choices.length > 0 || this.includeUsage) out.push(encodeEvent(chunk))
    }
    if (!this.translator.done) return undefined
    out.push(DONE)
    return { bytes: out.bytes(), done: true }
  }
}

const EVENT_PREFIX_LENGTH = 'event: '.length
const utf8 = new TextDecoder()
const DONE = new TextEncoder().encode('data: [DONE]\n\n')
