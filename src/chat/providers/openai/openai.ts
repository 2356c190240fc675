import { DEFAULT_MAX_RESPONSE_BYTES } from '../../../config/chat'
import { parseJsonObject, reportsError } from '../event-scan'
import {
  isObject,
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatProvider,
  type ChatRequest,
  type Embeddings,
  type JsonObject,
  type StreamReport,
} from '../provider'
import { SseDataDecoder } from '../../sse/decoder'
import { type RelayedEvents, SseEventRelay } from './relay'
import type { UpstreamFetch } from '../upstream-fetch'
import type { ProviderOptions } from '../kind'
import { streamError, upstreamHttpError } from '../upstream-error'
import { ERROR_BODY_LIMIT, type EventStep, postJson, readText, streamEvents, UpstreamCall } from '../upstream-call'

/**
 * Settings of one OpenAI-compatible upstream. Retries are the registry's business, not the provider's;
 * `retryMaxMs` also caps the `Retry-After` that an upstream's 429 or 503 passes on to our client.
 */
export type OpenAIProviderOptions = ProviderOptions

/**
 * A relay to any server speaking OpenAI's `POST /chat/completions`: OpenAI, DeepSeek, vLLM,
 * Ollama, llama.cpp, OpenRouter or another Trellis. Requests go upstream as they came, unknown
 * fields included, with only `model` rewritten; chunks and completions come back as the upstream
 * sent them, streamed events byte for byte. Streams are relayed as they are read, never buffered.
 * `POST /embeddings` is relayed the same way, whole.
 *
 * @example
 * const deepseek = openaiProvider({ ...PROVIDER_DEFAULTS, name: 'deepseek', baseUrl: 'https://api.deepseek.com/v1', apiKey })
 */
export function openaiProvider(
  options: OpenAIProviderOptions,
): ChatProvider & Required<Pick<ChatProvider, 'streamEvents' | 'embeddings'>> {
  return new OpenAICompatibleProvider(options)
}

class OpenAICompatibleProvider implements ChatProvider {
  readonly name: string
  readonly #options: OpenAIProviderOptions
  readonly #url: string
  readonly #embeddingsUrl: string
  readonly #fetch: UpstreamFetch
  readonly #clock: () => Date
  readonly #streamHeaders: Record<string, string>
  readonly #jsonHeaders: Record<string, string>

  constructor(options: OpenAIProviderOptions) {
    this.name = `openai:${options.name}`
    this.#options = options
    this.#url = `${options.baseUrl}/chat/completions`
    this.#embeddingsUrl = `${options.baseUrl}/embeddings`
    this.#fetch = options.fetch ?? fetch
    this.#clock = options.clock ?? (() => new Date())
    // Identity: a compressed event stream would hold events back until a compression block fills.
    const common: Record<string, string> = { 'content-type': 'application/json', 'accept-encoding': 'identity' }
    if (options.apiKey) common.authorization = `Bearer ${options.apiKey}`
    this.#streamHeaders = { ...common, accept: 'text/event-stream', ...options.headers }
    this.#jsonHeaders = { ...common, accept: 'application/json', ...options.headers }
  }

  async complete(request: ChatRequest, signal: AbortSignal): Promise<ChatCompletion> {
    const completion = await this.#post(this.#url, request.stream ? { ...request, stream: false } : request, signal)
    if (reportsError(completion)) throw inBandError(this.#options.name, completion.error)
    return completion as ChatCompletion
  }

  /**
   * `POST /embeddings` upstream: the request as the route passed it (only `model` rewritten), and
   * the answer as the upstream sent it, once it is known to be a JSON object and not an in-band error.
   */
  readonly embeddings: Embeddings = {
    create: async (request, signal) => {
      const answer = await this.#post(this.#embeddingsUrl, request, signal)
      if (answer.error !== undefined && answer.data === undefined) throw inBandError(this.#options.name, answer.error)
      return answer
    },
  }

  /**
   * One whole JSON answer: `body` POSTed, the answer read under the response cap and the request
   * timeout, and parsed; an HTTP error mapped as every upstream error is (upstream-error.ts).
   */
  async #post(url: string, body: JsonObject & { model: string }, signal: AbortSignal): Promise<JsonObject> {
    const call = new UpstreamCall(this.#options.name, signal)
    try {
      call.watch('request', this.#options.requestTimeoutMs)
      const response = await postJson(this.#fetch, url, call, body, this.#jsonHeaders)
      if (!response.ok) throw this.#httpError(body, response, (await readText(call, response, ERROR_BODY_LIMIT)) ?? '')
      const limit = this.#options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
      const text = await readText(call, response, limit)
      call.complete()
      if (text === undefined)
        throw streamError(
          this.#options.name,
          `answered with a body larger than this gateway's limit of ${limit} bytes (CHAT_MAX_RESPONSE_BYTES).`,
        )
      const answer = parseJsonObject(text)
      if (!answer) throw streamError(this.#options.name, 'answered with a body that is not a JSON object.')
      return answer
    } finally {
      call.end()
    }
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
    const { name, connectTimeoutMs, firstTokenTimeoutMs, idleTimeoutMs } = this.#options
    // Usage is always asked for (the ledger and the token limits need it); the chunk that carries
    // it reaches the client only if the client asked too.
    const options = isObject(request.stream_options) ? request.stream_options : {}
    const relay = new SseEventRelay({
      maxEventBytes: this.#options.maxEventBytes,
      report,
      stripUsage: options.include_usage !== true,
    })
    const step = (relayed: RelayedEvents): EventStep =>
      relayed.refused ? { ...relayed, error: refusal(name, relayed.refused) } : relayed
    return streamEvents(
      name,
      signal,
      {
        fetch: this.#fetch,
        url: this.#url,
        body: { ...request, stream: true, stream_options: { ...options, include_usage: true } },
        headers: this.#streamHeaders,
        connectTimeoutMs,
        firstTokenTimeoutMs,
        idleTimeoutMs,
        httpError: (response, text) => this.#httpError(request, response, text),
        lastEvent: '[DONE]',
      },
      { push: (read) => step(relay.push(read)), end: () => step(relay.end()) },
    )
  }

  #httpError(request: { model: string }, response: Response, text: string) {
    const { name, retryMaxMs } = this.#options
    return upstreamHttpError(
      name,
      request.model,
      response.status,
      text,
      response.headers.get('retry-after'),
      this.#clock(),
      retryMaxMs / 1000,
    )
  }
}

/** The error for an event that stopped the relay (see `RelayedEvents.refused`). */
function refusal(provider: string, refused: NonNullable<RelayedEvents['refused']>) {
  if ('error' in refused) return inBandError(provider, refused.error)
  if ('tooLarge' in refused)
    return streamError(
      provider,
      `sent an event larger than this gateway's limit of ${refused.tooLarge} bytes (CHAT_MAX_EVENT_BYTES).`,
    )
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
