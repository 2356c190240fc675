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
export type ChatRequest = JsonObject & { model: string; messages: JsonObject[]; stream?: boolean }
/** `object: "chat.completion"` */
export type ChatCompletion = JsonObject & { id: string; object: 'chat.completion'; choices: JsonObject[] }
/** `object: "chat.completion.chunk"`; the usage chunk of `include_usage` has `choices: []`. */
export type ChatCompletionChunk = JsonObject & { id: string; object: 'chat.completion.chunk'; choices: JsonObject[] }

export interface ChatProvider {
  /** Registry name, e.g. `echo` or `openai:deepseek`. */
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
  streamEvents?(request: ChatRequest, signal: AbortSignal): AsyncIterable<Uint8Array>
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
