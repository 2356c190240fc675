import type { ProviderConfig } from '../config'
import type { BatchingProvider, ChatCompletion, ChatCompletionChunk, ChatRequest, JsonObject } from './provider'
import { SseDataDecoder } from './sse-decoder'
import { connectionError, streamError, timeoutError, upstreamHttpError, type TimeoutPhase } from './upstream-error'

/** Settings of one OpenAI-compatible upstream; retries are the registry's business, not the provider's. */
export type OpenAIProviderOptions = Omit<ProviderConfig, 'maxRetries' | 'retryBaseMs' | 'retryMaxMs'> & {
  /** The provider's name in `CHAT_PROVIDERS`; error messages use it instead of the URL. */
  name: string
  fetch?: typeof fetch
  clock?: () => Date
}

/**
 * A relay to any server speaking OpenAI's `POST /chat/completions`: OpenAI, DeepSeek, vLLM,
 * Ollama, llama.cpp, OpenRouter or another Trellis. Requests go upstream as they came, unknown
 * fields included, with only `model` rewritten; chunks and completions come back as the upstream
 * sent them. Streams are relayed chunk by chunk as they are read, never buffered.
 *
 * @example
 * const deepseek = openaiProvider({ ...PROVIDER_DEFAULTS, name: 'deepseek', baseUrl: 'https://api.deepseek.com/v1', apiKey })
 */
export function openaiProvider(options: OpenAIProviderOptions): BatchingProvider {
  return new OpenAICompatibleProvider(options)
}

class OpenAICompatibleProvider implements BatchingProvider {
  readonly name: string
  readonly #options: OpenAIProviderOptions
  readonly #url: string
  readonly #fetch: typeof fetch
  readonly #clock: () => Date
  readonly #streamHeaders: Record<string, string>
  readonly #jsonHeaders: Record<string, string>

  constructor(options: OpenAIProviderOptions) {
    this.name = `openai:${options.name}`
    this.#options = options
    this.#url = `${options.baseUrl}/chat/completions`
    this.#fetch = options.fetch ?? fetch
    this.#clock = options.clock ?? (() => new Date())
    const common: Record<string, string> = { 'content-type': 'application/json' }
    if (options.apiKey) common.authorization = `Bearer ${options.apiKey}`
    this.#streamHeaders = { ...common, accept: 'text/event-stream', ...options.headers }
    this.#jsonHeaders = { ...common, accept: 'application/json', ...options.headers }
  }

  async complete(request: ChatRequest, signal: AbortSignal): Promise<ChatCompletion> {
    const body = request.stream ? { ...request, stream: false } : request
    const call = new UpstreamCall(this.#options.name, signal)
    try {
      call.watch('request', this.#options.requestTimeoutMs)
      const response = await this.#post(call, body, this.#jsonHeaders)
      const text = await response.text().catch((error) => {
        throw call.failure(error, true)
      })
      call.complete()
      if (!response.ok) throw this.#httpError(request, response, text)
      const completion = parseObject(text)
      if (!completion) throw streamError(this.#options.name, 'answered with a body that is not a JSON object.')
      if (completion.error !== undefined && completion.choices === undefined) throw inBandError(this.#options.name, completion.error)
      return completion as ChatCompletion
    } finally {
      call.end()
    }
  }

  async *stream(request: ChatRequest, signal: AbortSignal): AsyncGenerator<ChatCompletionChunk> {
    for await (const batch of this.streamBatches(request, signal)) yield* batch
  }

  /**
   * The stream as the upstream delivered it: each batch holds the chunks completed by one network
   * read, handed over as soon as that read is decoded. Nothing waits for more data, so latency is
   * that of chunk-by-chunk relaying, while a burst of chunks costs one step instead of one each.
   */
  async *streamBatches(request: ChatRequest, signal: AbortSignal): AsyncGenerator<ChatCompletionChunk[]> {
    const { name, connectTimeoutMs, firstTokenTimeoutMs, idleTimeoutMs } = this.#options
    const call = new UpstreamCall(name, signal)
    try {
      call.watch('connect', connectTimeoutMs)
      const response = await this.#post(call, { ...request, stream: true }, this.#streamHeaders)
      if (!response.ok) {
        call.watch('first_token', firstTokenTimeoutMs)
        const text = await response.text().catch((error) => {
          throw call.failure(error, true)
        })
        throw this.#httpError(request, response, text)
      }
      if (!response.body) throw streamError(name, 'answered a stream request without a body.')
      if (response.headers.get('content-type')?.includes('application/json')) {
        const text = await response.text().catch((error) => {
          throw call.failure(error, true)
        })
        throw streamError(name, `answered a stream request with JSON instead of an event stream: ${text.slice(0, 200)}`)
      }
      const reader = response.body.getReader()
      const decoder = new SseDataDecoder()
      const firstTokenDeadline = Date.now() + firstTokenTimeoutMs
      let started = false
      for (;;) {
        // Timers run only while we wait on the upstream, never while the consumer holds a batch.
        if (started) call.watch('idle', idleTimeoutMs)
        else call.watch('first_token', Math.max(0, firstTokenDeadline - Date.now()), firstTokenTimeoutMs)
        const read = await reader.read().catch((error) => {
          throw call.failure(error, true)
        })
        call.unwatch()
        const batch: ChatCompletionChunk[] = []
        let failure: Error | undefined
        let done = false
        for (const data of read.done ? decoder.end() : decoder.push(read.value)) {
          if (data === '[DONE]') {
            done = true
            break
          }
          const chunk = parseObject(data)
          if (!chunk) failure = streamError(name, `sent an event that is not a JSON object: ${data.slice(0, 200)}`)
          else if (chunk.error !== undefined && chunk.choices === undefined) failure = inBandError(name, chunk.error)
          if (failure) break
          batch.push(chunk as ChatCompletionChunk)
        }
        if (!done && !failure && read.done) failure = streamError(name, 'closed the stream before [DONE].')
        if (done) call.finish(reader, idleTimeoutMs)
        // Chunks that arrived before a failure still reach the client, in order, before the error.
        if (batch.length > 0) {
          started = true
          yield batch
        }
        if (failure) throw failure
        if (done) return
      }
    } finally {
      call.end()
    }
  }

  async #post(call: UpstreamCall, body: JsonObject, headers: Record<string, string>): Promise<Response> {
    try {
      return await this.#fetch(this.#url, { method: 'POST', headers, body: JSON.stringify(body), signal: call.signal })
    } catch (error) {
      throw call.failure(error)
    }
  }

  #httpError(request: ChatRequest, response: Response, text: string) {
    return upstreamHttpError(this.#options.name, request.model, response.status, text, response.headers.get('retry-after'), this.#clock())
  }
}

/**
 * One upstream request's lifetime: its own AbortController, tied to the caller's signal and to a
 * watchdog timer, so a client disconnect or a timeout cancels the fetch and its body at once.
 *
 * The watchdog is a deadline, not a timer per wait: a stream re-arms it before every read, and a
 * fresh `setTimeout` per read was a measurable share of a relayed stream's CPU. One timer stays
 * armed; when it fires early (the deadline moved on) it re-arms for what is left, and when it fires
 * with nothing being watched it lapses until the next {@link watch}.
 */
class UpstreamCall {
  readonly #controller = new AbortController()
  readonly #provider: string
  readonly #caller: AbortSignal
  readonly #onCallerAbort = () => this.#controller.abort(this.#caller.reason)
  readonly #onTimer = () => this.#check()
  #timer: ReturnType<typeof setTimeout> | undefined
  /** When the armed timer fires (performance.now() time), if one is armed. */
  #timerAt = 0
  /** The watched wait: its phase, the limit named in the error, and when it runs out. */
  #watched: { phase: TimeoutPhase; reportedMs: number; deadline: number } | undefined
  #expired: { phase: TimeoutPhase; ms: number } | undefined
  #finished = false

  constructor(provider: string, caller: AbortSignal) {
    this.#provider = provider
    this.#caller = caller
    if (caller.aborted) this.#controller.abort(caller.reason)
    else caller.addEventListener('abort', this.#onCallerAbort, { once: true })
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  /** Aborts the upstream if `ms` pass before the next {@link unwatch} or {@link watch}; `reportedMs` is the limit named in the error. */
  watch(phase: TimeoutPhase, ms: number, reportedMs = ms): void {
    const deadline = performance.now() + ms
    if (this.#watched) {
      this.#watched.phase = phase
      this.#watched.reportedMs = reportedMs
      this.#watched.deadline = deadline
    } else {
      this.#watched = { phase, reportedMs, deadline }
    }
    // An armed timer that fires before the deadline re-arms itself then; one that fires after it must be replaced.
    if (this.#timer === undefined || this.#timerAt > deadline) this.#arm(ms, deadline)
  }

  unwatch(): void {
    this.#watched = undefined
  }

  #arm(ms: number, at: number): void {
    clearTimeout(this.#timer)
    this.#timerAt = at
    this.#timer = setTimeout(this.#onTimer, Math.max(0, ms))
  }

  /** Stops watching and drops the timer, so nothing keeps this call alive. */
  #disarm(): void {
    this.#watched = undefined
    clearTimeout(this.#timer)
    this.#timer = undefined
  }

  #check(): void {
    this.#timer = undefined
    const watched = this.#watched
    if (!watched) return
    const left = watched.deadline - performance.now()
    if (left > 0) return this.#arm(left, watched.deadline)
    this.#expired = { phase: watched.phase, ms: watched.reportedMs }
    this.#controller.abort(new DOMException(`upstream ${watched.phase} timeout`, 'TimeoutError'))
  }

  /** What to throw for an error from fetch or a body read: the caller's abort, our timeout, or a connection failure. */
  failure(error: unknown, midResponse = false): unknown {
    if (this.#caller.aborted) return this.#caller.reason
    if (this.#expired) return timeoutError(this.#provider, this.#expired.phase, this.#expired.ms)
    return connectionError(this.#provider, error, midResponse)
  }

  /** The whole response has been read; nothing is left to cancel. */
  complete(): void {
    this.#finished = true
    this.#disarm()
  }

  /**
   * The stream is complete. Whatever the upstream still sends after `[DONE]` (normally only the
   * end of the body) is drained in the background so the connection can be reused, bounded by `ms`.
   */
  finish(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number): void {
    this.complete()
    const timer = setTimeout(() => reader.cancel().catch(() => {}), ms)
    const drain = async () => {
      while (!(await reader.read()).done) {}
    }
    drain()
      .catch(() => {})
      .finally(() => clearTimeout(timer))
  }

  /** Releases timers and listeners; aborts the upstream unless the call completed normally. */
  end(): void {
    this.#disarm()
    this.#caller.removeEventListener('abort', this.#onCallerAbort)
    if (!this.#finished) this.#controller.abort()
  }
}

function parseObject(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined
  } catch {
    return undefined
  }
}

/** OpenRouter and others report failures inside a 200 stream as `{"error":{...}}`. */
function inBandError(provider: string, error: unknown) {
  const message =
    typeof error === 'string'
      ? error
      : typeof error === 'object' && error !== null && typeof (error as JsonObject).message === 'string'
        ? ((error as JsonObject).message as string)
        : JSON.stringify(error)
  return streamError(provider, `reported an error: ${message}`)
}
