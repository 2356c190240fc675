import { reportsError } from '../event-scan'
import {
  isObject,
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatProvider,
  type ChatRequest,
  type ChunkTranslator,
  type Embeddings,
  type JsonObject,
  type NativeResponses,
  type StreamReport,
} from '../provider'
import { SseDataDecoder } from '../../sse/decoder'
import { type RelayedEvents, SseEventRelay } from './relay'
import { nativeResponses } from './responses'
import { eventTooLarge, streamError } from '../upstream-error'
import type { EventStep } from '../upstream-call'
import { OpenAITransport, type OpenAIProviderOptions } from './transport'

export type { OpenAIProviderOptions } from './transport'

/**
 * A relay to any server speaking OpenAI's `POST /chat/completions`: OpenAI, DeepSeek, vLLM,
 * Ollama, llama.cpp, OpenRouter or another Trellis. Requests go upstream as they came, unknown
 * fields included, with only `model` rewritten; chunks and completions come back as the upstream
 * sent them, streamed events byte for byte. Streams are relayed as they are read, never buffered.
 * With `responses: "native"`, the provider also relays OpenAI's Responses API
 * ({@link ChatProvider.responses}) to the upstream's `POST /responses`. `POST /embeddings` is relayed
 * whole.
 *
 * @example
 * const deepseek = openaiProvider({ ...PROVIDER_DEFAULTS, name: 'deepseek', baseUrl: 'https://api.deepseek.com/v1', apiKey })
 */
export function openaiProvider(
  options: OpenAIProviderOptions,
): ChatProvider & Required<Pick<ChatProvider, 'streamEvents' | 'streamTranslated' | 'embeddings'>> {
  return new OpenAICompatibleProvider(options)
}

class OpenAICompatibleProvider implements ChatProvider {
  readonly name: string
  /** Present only with `responses: "native"`: without it the Responses route translates to Chat Completions. */
  declare readonly responses?: NativeResponses
  readonly #transport: OpenAITransport

  constructor(options: OpenAIProviderOptions) {
    this.name = `openai:${options.name}`
    this.#transport = new OpenAITransport(options)
    if (options.responses === 'native') this.responses = nativeResponses(this.#transport)
  }

  async complete(request: ChatRequest, signal: AbortSignal): Promise<ChatCompletion> {
    const body = request.stream ? { ...request, stream: false } : request
    const completion = await this.#transport.json('/chat/completions', body, signal)
    if (reportsError(completion)) throw inBandError(this.#transport.options.name, completion.error)
    return completion as ChatCompletion
  }

  /**
   * `POST /embeddings` upstream: the request as the route passed it (only `model` rewritten), and
   * the answer as the upstream sent it, once it is known to be a JSON object and not an in-band error.
   */
  readonly embeddings: Embeddings = {
    create: async (request, signal) => {
      const answer = await this.#transport.json('/embeddings', request, signal)
      if (answer.error !== undefined && answer.data === undefined)
        throw inBandError(this.#transport.options.name, answer.error)
      return answer
    },
  }

  /** The chunks of {@link streamEvents}, parsed; for callers that want objects rather than bytes. */
  async *stream(request: ChatRequest, signal: AbortSignal): AsyncGenerator<ChatCompletionChunk> {
    const decoder = new SseDataDecoder()
    for await (const events of this.streamEvents(request, signal)) {
      for (const data of decoder.push(events)) if (data !== '[DONE]') yield JSON.parse(data) as ChatCompletionChunk
    }
  }

  /**
   * The upstream's events as the bytes to send, handed over read by read as soon as each read
   * is scanned: nothing waits for more data, and a burst of events costs one step. Events in
   * OpenAI's own form (`data: <compact JSON>\n\n`) go out exactly as they came; see
   * {@link SseEventRelay}. The last item ends with the upstream's `data: [DONE]`, so the route can
   * send it and close in the same step.
   */
  streamEvents(request: ChatRequest, signal: AbortSignal, report?: StreamReport): AsyncGenerator<Uint8Array> {
    return this.#events(request, signal, report, undefined)
  }

  /**
   * {@link streamEvents} through `translator`: each chunk event is offered to it before the relay
   * scans it, and the events the relay forwards are handed to it in order; each read's item is
   * what it made of them (see `ChatProvider.streamTranslated`).
   */
  streamTranslated(request: ChatRequest, signal: AbortSignal, translator: ChunkTranslator): AsyncGenerator<Uint8Array> {
    return this.#events(request, signal, undefined, translator)
  }

  #events(
    request: ChatRequest,
    signal: AbortSignal,
    report: StreamReport | undefined,
    translator: ChunkTranslator | undefined,
  ): AsyncGenerator<Uint8Array> {
    const { name, maxEventBytes } = this.#transport.options
    // Usage is always asked for (the ledger and the token limits need it); the chunk that carries
    // it reaches the client only if the client asked too.
    const options = isObject(request.stream_options) ? request.stream_options : {}
    const relay = new SseEventRelay({ maxEventBytes, report, stripUsage: options.include_usage !== true, translator })
    const step = (relayed: RelayedEvents): EventStep =>
      relayed.refused ? { ...relayed, error: refusal(name, relayed.refused) } : relayed
    const through = (relayed: RelayedEvents): EventStep => {
      if (!translator) return step(relayed)
      translator.events(relayed.bytes)
      if (relayed.done) translator.finish()
      // The translator's failure comes first: it was made by events before whatever the relay refused.
      const error = translator.failure?.error ?? (relayed.refused ? refusal(name, relayed.refused) : undefined)
      const bytes = translator.take()
      return error === undefined ? { bytes, done: relayed.done } : { bytes, done: relayed.done, error }
    }
    return this.#transport.events(
      '/chat/completions',
      { ...request, stream: true, stream_options: { ...options, include_usage: true } },
      signal,
      { push: (read) => through(relay.push(read)), end: () => through(relay.end()) },
      '[DONE]',
    )
  }
}

/** The error for an event that stopped the relay (see `RelayedEvents.refused`). */
function refusal(provider: string, refused: NonNullable<RelayedEvents['refused']>) {
  if ('error' in refused) return inBandError(provider, refused.error)
  if ('tooLarge' in refused) return eventTooLarge(provider, refused.tooLarge)
  return streamError(provider, 'sent an event that is not a JSON object.', refused.notAnObject.slice(0, 500))
}

/** OpenRouter and others report failures inside a 200 stream as `{"error":{...}}`. */
function inBandError(provider: string, error: unknown) {
  const message =
    typeof error === 'string'
      ? error
      : typeof error === 'object' && error !== null && typeof (error as JsonObject).message === 'string'
        ? ((error as JsonObject).message as string)
        : JSON.stringify(error)
  return streamError(provider, 'reported an error mid-answer.', message)
}
