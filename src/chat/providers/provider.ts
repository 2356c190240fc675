import { storable } from '../../db/storable-text'

/**
 * The contract between the chat route and whatever produces completions.
 *
 * Requests and responses are plain JSON objects in the OpenAI Chat Completions wire
 * format (with DeepSeek's additions). Providers must preserve fields they do not model,
 * so the types are open records; their precise shapes are the TypeBox schemas in
 * `../model.ts` (`ChatCompletionRequest`, `ChatCompletionResponse`, `ChatCompletionChunkSchema`).
 */
export type JsonObject = { [key: string]: unknown }

/**
 * A request the route has validated against `ChatCompletionRequest`, with `model` already
 * rewritten to the provider's upstream model.
 */
export type ChatRequest = JsonObject & {
  model: string
  messages: JsonObject[]
  stream?: boolean
  [CLIENT_HEADERS]?: Headers
}
/**
 * The client's request headers, set by the chat routes on every {@link ChatRequest} they hand the registry (the
 * translated requests of `/v1/messages` and `/v1/responses` too), for a provider that answers by them (script's
 * `match: { header: … }`). A symbol key: `JSON.stringify` leaves it out, so it never travels upstream, and the
 * registry's `{ ...request, model }` keeps it.
 */
export const CLIENT_HEADERS: unique symbol = Symbol('trellis.clientHeaders')

/** The client's request headers, when the route set them (see {@link CLIENT_HEADERS}). */
export function clientHeaders(request: ChatRequest): Headers | undefined {
  return request[CLIENT_HEADERS]
}

/** `object: "chat.completion"` */
export type ChatCompletion = JsonObject & { id: string; object: 'chat.completion'; choices: JsonObject[] }
/** `object: "chat.completion.chunk"`; the usage chunk of `include_usage` has `choices: []`. */
export type ChatCompletionChunk = JsonObject & { id: string; object: 'chat.completion.chunk'; choices: JsonObject[] }

/**
 * What a stream tells the route about itself, for the usage ledger, the token limits and the
 * metrics: filled in by the provider as the stream goes (and by the registry: which entry served).
 */
export type StreamReport = {
  /** The upstream's (or echo's) usage, once it is known: OpenAI's `usage` object. */
  usage?: JsonObject
  /** The first choice's `finish_reason`, once it is known. */
  finishReason?: string
  /** Content events handed over so far (about one token each): what was sent when a stream is cut short. */
  events: number
  /** The registry entry that served the stream. */
  provider?: string
  upstreamModel?: string
}

export interface ChatProvider {
  /** Registry name, e.g. `echo`, `openai:deepseek` or `anthropic:claude`. */
  readonly name: string
  /** Answers the whole completion at once (`stream` false or absent). */
  complete(request: ChatRequest, signal: AbortSignal): Promise<ChatCompletion>
  /**
   * Yields chunks as they arrive. The iterator must stop promptly and release the
   * upstream connection when `signal` aborts (client disconnect, shutdown).
   */
  stream(request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatCompletionChunk>
  /**
   * Optional: the same stream as the bytes the route sends, each item one or more whole
   * `data: <one-line JSON>\n\n` events in order, as soon as they are ready. The last item may
   * end with `data: [DONE]\n\n`, which ends the stream there; otherwise the route adds it. A
   * relay implements this to forward an upstream's bytes without parsing and re-serialising
   * every chunk; without it, the registry encodes {@link stream}'s chunks.
   */
  streamEvents?(request: ChatRequest, signal: AbortSignal, report?: StreamReport): AsyncIterable<Uint8Array>
  /**
   * Optional: {@link streamEvents} made into other bytes by `translator` as each read completes its
   * events (the Responses route's translation), each item `translator.take()` of one read. A relay
   * offers each event to {@link ChunkTranslator.claim} before checking it, so that a chunk the
   * translator proves itself is read once; every other event is checked as for
   * {@link streamEvents} and handed to {@link ChunkTranslator.events}, in order. A failure of the
   * translator is thrown after the bytes it made before it.
   */
  streamTranslated?(request: ChatRequest, signal: AbortSignal, translator: ChunkTranslator): AsyncIterable<Uint8Array>
  /**
   * Optional: the provider speaks Anthropic's Messages API natively. `POST /v1/messages` then
   * hands it the client's Messages request as it came (only `model` rewritten), so fields Trellis
   * does not model pass through unchanged; other providers are reached through the OpenAI form.
   */
  readonly messages?: NativeMessages
  /**
   * Optional: the provider speaks OpenAI's Responses API natively (an `openai` provider with
   * `"responses": "native"`). `POST /v1/responses` then hands it the client's request as it came
   * (only `model` rewritten) and relays its answer or events byte for byte; other providers are
   * reached through the Chat Completions form (src/chat/responses/).
   */
  readonly responses?: NativeResponses
  /** Optional: `POST /v1/embeddings` for this provider's models (src/chat/embeddings/). */
  readonly embeddings?: Embeddings
}

/** What a route makes of a stream's events instead of sending them (see {@link ChatProvider.streamTranslated}). */
export interface ChunkTranslator {
  /**
   * A chunk event's JSON, `bytes[start, end)`, offered before the relay checks it: true when the
   * translator proved it (at least as strictly as the relay's check) and took it, so the relay
   * neither checks nor hands it on.
   */
  claim(bytes: Uint8Array, start: number, end: number): boolean
  /** Whole checked events, as {@link ChatProvider.streamEvents} hands them over. */
  events(bytes: Uint8Array): void
  /**
   * The stream's last event (`[DONE]`) is in, and was given: what ends the translation, when it can
   * be made at once, goes into the same {@link take}. Called once, before that take.
   */
  finish(): void
  /** What the events given since the last take made (empty for nothing). */
  take(): Uint8Array
  /** Set when the translator failed: what to throw once the bytes it made before are out. */
  readonly failure: { error: unknown } | undefined
}

/** A Responses request as the client sent it, after validation, with `model` rewritten to the upstream model. */
export type ResponsesRequest = JsonObject & { model: string; stream?: boolean }

/**
 * What a native Responses answer tells its route besides the {@link StreamReport}: the final
 * `response` object (of `response.completed`, `response.incomplete` or `response.failed`, or the
 * whole answer), which `store` keeps.
 */
export type ResponsesReport = StreamReport & { response?: JsonObject }

/**
 * OpenAI's Responses API spoken natively (see {@link ChatProvider.responses}). Both methods fill
 * `report` as {@link NativeMessages} does: `usage` in OpenAI's Chat Completions shape
 * (`prompt_tokens`, `completion_tokens`, `prompt_tokens_details.cached_tokens`,
 * `completion_tokens_details.reasoning_tokens`), `finishReason`, and one `events` per content delta.
 */
export interface NativeResponses {
  /** The whole `response` object (`stream` false or absent). */
  complete(request: ResponsesRequest, signal: AbortSignal, report?: ResponsesReport): Promise<JsonObject>
  /**
   * The upstream's event stream as the bytes to send: whole `event: <type>\ndata: <json>\n\n`
   * events, byte for byte, in order, as soon as each read completes them, ending after the terminal
   * `response.completed`, `response.incomplete` or `response.failed`. An in-stream `error` event is
   * thrown as a {@link ProviderError} instead of forwarded, so that the route can retry before the
   * first byte and write its own error event after it.
   */
  streamEvents(request: ResponsesRequest, signal: AbortSignal, report?: ResponsesReport): AsyncIterable<Uint8Array>
}

/** An embeddings request after validation, `model` rewritten, `input` a list of strings or of token lists. */
export type EmbeddingsRequest = JsonObject & { model: string; input: string[] | number[][] }

/** `POST /embeddings` of a provider: OpenAI's whole answer (`object: "list"`, `data`, `usage`). */
export interface Embeddings {
  create(request: EmbeddingsRequest, signal: AbortSignal): Promise<JsonObject>
}

/** A Messages request as the client sent it, after validation, with `model` rewritten to the upstream model. */
export type MessagesRequest = JsonObject & {
  model: string
  messages: JsonObject[]
  max_tokens: number
  stream?: boolean
}

/**
 * Anthropic's Messages API spoken natively (see {@link ChatProvider.messages}). Both methods fill
 * `report` as the OpenAI methods do: `usage` in OpenAI's shape (`prompt_tokens` counts cached and
 * cache-written input too, `prompt_tokens_details.cached_tokens` the cache reads), `finishReason`
 * as OpenAI names it, and one `events` per content delta.
 */
/**
 * Headers of the client's own request that a native provider passes on: `anthropic-beta`, which
 * turns on the API features a client was written for (Claude Code and the SDK's beta helpers
 * send it); without it such a request fails upstream or silently loses the feature.
 */
export type PassedHeaders = { anthropicBeta?: string }

export interface NativeMessages {
  /** The whole `message` object (`stream` false or absent). */
  complete(
    request: MessagesRequest,
    signal: AbortSignal,
    report?: StreamReport,
    passed?: PassedHeaders,
  ): Promise<JsonObject>
  /**
   * The upstream's event stream as the bytes to send: whole `event: <type>\ndata: <json>\n\n`
   * events in order, as soon as each read completes them, ending after `message_stop`. An in-stream
   * `error` event is thrown as a {@link ProviderError} instead of forwarded, so that the route can
   * retry before the first byte and write its own error event after it.
   */
  streamEvents(
    request: MessagesRequest,
    signal: AbortSignal,
    report?: StreamReport,
    passed?: PassedHeaders,
  ): AsyncIterable<Uint8Array>
  /** `POST /v1/messages/count_tokens` upstream, for the same request: its `{ input_tokens }`. */
  countTokens(request: MessagesRequest, signal: AbortSignal, passed?: PassedHeaders): Promise<{ input_tokens: number }>
}

/**
 * A failure the route turns into an OpenAI-shaped error (`{error:{message,type,param,code}}`).
 * `retryable` tells the registry it may try again or fall back to the next provider,
 * which it only does before the first byte has reached the client.
 */
export class ProviderError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly options: {
      type?: string
      code?: string | null
      param?: string | null
      retryable?: boolean
      /** Seconds, from an upstream `Retry-After` or our own back-off advice. */
      retryAfter?: number
      /**
       * What went wrong upstream, for the server log only: a TLS or socket error, or what an upstream
       * said about our credentials. The client gets `message`, which never carries it.
       */
      detail?: string
    } = {},
  ) {
    super(message)
    this.name = 'ProviderError'
  }
}

/** What a parsed chunk tells the report: its usage, its finish reason, one more content event. */
export function noteChunk(report: StreamReport, chunk: JsonObject): void {
  if (isObject(chunk.usage)) report.usage = chunk.usage
  const choices = chunk.choices
  if (Array.isArray(choices) && choices.length > 0) {
    report.events++
    const finish = (choices[0] as { finish_reason?: unknown }).finish_reason
    // The reason goes to the ledger and the metrics: an upstream's odd value is kept only when short and storable.
    if (typeof finish === 'string')
      report.finishReason = finish.length <= 64 && storable(finish) ? finish : 'unrecognized'
  }
}

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
