import { DEFAULT_MAX_RESPONSE_BYTES } from '../../../config/chat'
import type { UpstreamFetch } from '../upstream-fetch'
import { parseJsonObject } from '../event-scan'
import type { JsonObject, PassedHeaders, ProviderError } from '../provider'
import { ERROR_BODY_LIMIT, type EventReader, postJson, readText, streamEvents, UpstreamCall } from '../upstream-call'
import { streamError } from '../upstream-error'
import type { ProviderOptions } from '../kind'
import { anthropicEventError, anthropicHttpError } from './errors'
import { type AnthropicSettings, DEFAULT_ANTHROPIC_VERSION } from './settings'

/**
 * Settings of one Anthropic upstream. Retries are the registry's business, not the provider's;
 * `retryMaxMs` also caps the `Retry-After` that a 429 passes on to our client.
 */
export type AnthropicProviderOptions = ProviderOptions & AnthropicSettings

/**
 * The HTTP side of an Anthropic provider, shared by its OpenAI face and its native one: headers,
 * timeouts, abort, size limits and error mapping, for whole answers and for event streams.
 */
export class AnthropicTransport {
  readonly options: AnthropicProviderOptions
  readonly clock: () => Date
  readonly #fetch: UpstreamFetch
  readonly #streamHeaders: Record<string, string>
  readonly #jsonHeaders: Record<string, string>

  constructor(options: AnthropicProviderOptions) {
    this.options = options
    this.clock = options.clock ?? (() => new Date())
    this.#fetch = options.fetch ?? fetch
    const common: Record<string, string> = {
      'content-type': 'application/json',
      'anthropic-version': options.anthropicVersion ?? DEFAULT_ANTHROPIC_VERSION,
    }
    if (options.apiKey) common['x-api-key'] = options.apiKey
    // Identity: a compressed event stream would hold events back until a compression block fills.
    this.#streamHeaders = { ...common, accept: 'text/event-stream', 'accept-encoding': 'identity', ...options.headers }
    this.#jsonHeaders = { ...common, accept: 'application/json', ...options.headers }
  }

  /**
   * POSTs to `${baseUrl}${path}` and returns the JSON object answered, under the request timeout and the response cap.
   */
  async json(path: string, body: JsonObject, signal: AbortSignal, passed?: PassedHeaders): Promise<JsonObject> {
    const { name, requestTimeoutMs } = this.options
    const call = new UpstreamCall(name, signal)
    try {
      call.watch('request', requestTimeoutMs)
      const response = await postJson(
        this.#fetch,
        this.options.baseUrl + path,
        call,
        body,
        this.#with(this.#jsonHeaders, passed),
      )
      if (!response.ok)
        throw this.#httpError(String(body.model), response, (await readText(call, response, ERROR_BODY_LIMIT)) ?? '')
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
      // An error in a 200 (a proxy's, or a gateway's that speaks Anthropic) is mapped by its type, not taken for a
      // message.
      if (answer.type === 'error') throw anthropicEventError(name, String(body.model), text, this.clock())
      return answer
    } finally {
      call.end()
    }
  }

  /**
   * POSTs a stream request to `${baseUrl}/messages` and hands over what `reader` makes of each read,
   * as soon as the read is made, under the provider's timeouts (see {@link streamEvents}).
   */
  events(
    body: JsonObject,
    signal: AbortSignal,
    reader: EventReader,
    passed?: PassedHeaders,
  ): AsyncGenerator<Uint8Array> {
    const { name, connectTimeoutMs, firstTokenTimeoutMs, idleTimeoutMs } = this.options
    return streamEvents(
      name,
      signal,
      {
        fetch: this.#fetch,
        url: `${this.options.baseUrl}/messages`,
        body,
        headers: this.#with(this.#streamHeaders, passed),
        connectTimeoutMs,
        firstTokenTimeoutMs,
        idleTimeoutMs,
        httpError: (response, text) => this.#httpError(String(body.model), response, text),
        lastEvent: 'message_stop',
      },
      reader,
    )
  }

  /**
   * `headers` with the client's `anthropic-beta` added to any the provider's configuration sends (Anthropic takes a
   * comma-separated list).
   */
  #with(headers: Record<string, string>, passed: PassedHeaders | undefined): Record<string, string> {
    const beta = passed?.anthropicBeta
    if (!beta) return headers
    const configured = Object.entries(headers).find(([name]) => name.toLowerCase() === 'anthropic-beta')
    if (!configured) return { ...headers, 'anthropic-beta': beta }
    const merged: Record<string, string> = { ...headers }
    delete merged[configured[0]]
    return { ...merged, 'anthropic-beta': `${configured[1]},${beta}` }
  }

  #httpError(model: string, response: Response, text: string): ProviderError {
    const advice = {
      retryAfter: response.headers.get('retry-after'),
      now: this.clock(),
      maxRetryAfterSeconds: this.options.retryMaxMs / 1000,
    }
    return anthropicHttpError(this.options.name, model, response.status, text, advice)
  }
}
