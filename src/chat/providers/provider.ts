import type { ChatCompletionChunkObject, ChatCompletionRequest, ChatCompletionResponse } from '../model'

/**
 * The contract between the chat route and whatever produces completions.
 *
 * Requests and responses are plain JSON objects in the OpenAI Chat Completions wire
 * format (with DeepSeek's additions), typed by the TypeBox schemas in `../model.ts`.
 * Providers must preserve fields they do not model, so every type stays an open record.
 */
export type JsonObject = { [key: string]: unknown }

/** A validated request, with `model` already rewritten to the provider's upstream model. */
export type ChatRequest = ChatCompletionRequest & JsonObject
/** `object: "chat.completion"` */
export type ChatCompletion = ChatCompletionResponse & JsonObject
/** `object: "chat.completion.chunk"`; the usage chunk of `include_usage` has `choices: []`. */
export type ChatCompletionChunk = ChatCompletionChunkObject & JsonObject

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
    } = {},
  ) {
    super(message)
    this.name = 'ProviderError'
  }
}
