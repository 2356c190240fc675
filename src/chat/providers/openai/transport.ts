import { DEFAULT_MAX_RESPONSE_BYTES } from '../../../config/chat'
import { parseJsonObject } from '../event-scan'
import type { ProviderOptions } from '../kind'
import type { JsonObject, ProviderError } from '../provider'
import { ERROR_BODY_LIMIT, type EventReader, postJson, readText, streamEvents, UpstreamCall } from '../upstream-call'
import { streamError, upstreamHttpError } from '../upstream-error'
import type { UpstreamFetch } from '../upstream-fetch'

/** What `"kind": "openai"` adds to the common provider settings (see ./index.ts). */
type OpenAISettings = {
  /** `native`: `/v1/responses` is relayed to the upstream's own `POST /responses`; `translate` (the default): not. */
  responses?: 'native' | 'translate'
}

/**
 * Settings of one OpenAI-compatible upstream. Retries are the registry's business, not the provider's;
 * `retryMaxMs` also caps the `Retry-After` that an upstream's 429 or 503 passes on to our client.
 */
export type OpenAIProviderOptions = ProviderOptions & OpenAISettings

/**
 * The HTTP side of an `openai` provider, shared by Chat Completions and the native Responses
 * relay: headers, timeouts, abort, the response cap and the mapping of HTTP errors.
 */
export class OpenAITransport {
  readonly options: OpenAIProviderOptions
  readonly clock: () => Date
  readonly #fetch: UpstreamFetch
  readonly #streamHeaders: Record<string, string>
  readonly #jsonHeaders: Record<string, string>

  constructor(options: OpenAIProviderOptions) {
    this.options = options
    this.#fetch = options.fetch ?? fetch
    this.clock = options.clock ?? (() => new Date())
    // Identity: a compressed event stream would hold events back until a compression block fills.
    const common: Record<string, string> = { 'content-type': 'application/json', 'accept-encoding': 'identity' }
    if (options.apiKey) common.authorization = `Bearer ${options.apiKey}`
    this.#streamHeaders = { ...common, accept: 'text/event-stream', ...options.headers }
    this.#jsonHeaders = { ...common, accept: 'application/json', ...options.headers }
  }

  /**
   * POSTs to `${baseUrl}${path}` and returns the JSON object answered, under the request timeout
   * and the response cap (`CHAT_MAX_RESPONSE_BYTES`); what it says is the caller's to judge.
   */
  async json(path: string, body: JsonObject, signal: AbortSignal): Promise<JsonObject> {
    const { name, requestTimeoutMs } = this.options
    const call = new UpstreamCall(name, signal)
    try {
      call.watch('request', requestTimeoutMs)
      const response = await postJson(this.#fetch, this.options.baseUrl + path, call, body, this.#jsonHeaders)
      if (!response.ok)
        throw this.httpError(String(body.model), response, (await readText(call, response, ERROR_BODY_LIMIT)) ?? '')
      const limit = this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
      const text = await readText(call, response, limit)
      call.complete()
      if (text === undefined)
        throw streamError(
          name,
          `answered with a body larger than this gateway's limit of ${limit} bytes (CHAT_MAX_RESPONSE_BYTES).`,
        )
      const answer = parseJsonObject(text)
      if (!answer) throw streamError(name, 'answered with a body that is not a JSON object.', text.slice(0, 500))
      return answer
    } finally {
      call.end()
    }
  }

  /**
   * POSTs a stream request to `${baseUrl}${path}` and hands over what `reader` makes of each read,
   * as soon as the read is made, under the provider's timeouts (see {@link streamEvents}).
   * `lastEvent` names the format's last event, for the error when the upstream closes before it.
   */
  events(
    path: string,
    body: JsonObject,
    signal: AbortSignal,
    reader: EventReader,
    lastEvent: string,
  ): AsyncGenerator<Uint8Array> {
    const { name, connectTimeoutMs, firstTokenTimeoutMs, idleTimeoutMs } = this.options
    return streamEvents(
      name,
      signal,
      {
        fetch: this.#fetch,
        url: this.options.baseUrl + path,
        body,
        headers: this.#streamHeaders,
        connectTimeoutMs,
        firstTokenTimeoutMs,
        idleTimeoutMs,
        httpError: (response, text) => this.httpError(String(body.model), response, text),
        lastEvent,
      },
      reader,
    )
  }

  /** An upstream's non-2xx answer as the error our client sees (see {@link upstreamHttpError}). */
  httpError(model: string, response: Response, text: string): ProviderError {
    const { name, retryMaxMs } = this.options
    return upstreamHttpError(
      name,
      model,
      response.status,
      text,
      response.headers.get('retry-after'),
      this.clock(),
      retryMaxMs / 1000,
    )
  }
}
