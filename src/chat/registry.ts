import { ECHO_PROVIDER, type ChatConfig } from '../config/chat'
import type { ModelList } from './model'
import { PROVIDER_KINDS } from './providers'
import { encodeEvent } from './sse/encode'
import { FallbackStream, type OpenedStream } from './fallback-stream'
import { abortableSleep, backoffMs, type RetryPolicy, type Sleep } from './retry'
import type { UpstreamFetch } from './providers/upstream-fetch'
import {
  ProviderError,
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatProvider,
  type ChatRequest,
  isObject,
  noteChunk,
  type StreamReport,
} from './providers/provider'

/** One attempt of a public model: a provider and the model name it is sent as. */
export type RouteEntry = { provider: ChatProvider; model: string; retry: RetryPolicy }

/** Tells the registry whether the client has already received a byte of the response. */
export type StreamState = { committed: boolean }

/** Told about every failed attempt, for the metrics: `retry` (the same entry again) or `fallback` (the next entry). */
export type AttemptObserver = (event: {
  provider: string
  error: unknown
  next: 'retry' | 'fallback' | 'give up'
}) => void

/** What {@link buildRegistry} needs from outside. */
export type RegistryDeps = {
  /** Builds the offline `echo` provider (`createEchoProvider` in src/chat/providers/echo/echo.ts). */
  echo: (options: { tokenDelayMs: number }) => ChatProvider
  /** Used for every upstream request; tests and benchmarks may pass their own. */
  fetch?: UpstreamFetch
  /** Current time, for `Retry-After` given as an HTTP date. */
  clock?: () => Date
  sleep?: Sleep
  /** A number in [0, 1) for back-off jitter; `Math.random` unless a test fixes it. */
  random?: () => number
  /** Told about every failed attempt (metrics). */
  observe?: AttemptObserver
}

/** The kind of a provider whose configuration names none: the first plug-in. */
const DEFAULT_KIND = Object.keys(PROVIDER_KINDS)[0]!

const NO_RETRY: RetryPolicy = { maxRetries: 0, retryBaseMs: 0, retryMaxMs: 0 }

/**
 * Maps public model names to ordered lists of (provider, upstream model) and runs a request
 * through them: retrying a provider with back-off on retryable failures, then falling back to
 * the next entry. Both happen only while nothing has reached the client.
 *
 * @example
 * const registry = buildRegistry(parseChatConfig(process.env, PROVIDER_KINDS), { echo: createEchoProvider })
 * for await (const events of registry.streamEvents(request, signal, state)) write(events)
 */
export class ModelRegistry {
  readonly #routes: Map<string, RouteEntry[]>
  readonly #sleep: Sleep
  readonly #random: () => number
  readonly #observe: AttemptObserver | undefined

  constructor(
    routes: Map<string, RouteEntry[]>,
    sleep: Sleep = abortableSleep,
    random: () => number = Math.random,
    observe?: AttemptObserver,
  ) {
    this.#routes = routes
    this.#sleep = sleep
    this.#random = random
    this.#observe = observe
  }

  /** Public model names, in configuration order, for `GET /models`. */
  list(): string[] {
    return [...this.#routes.keys()]
  }

  /**
   * The provider of that name (`echo`, or a name under `providers:`) that serves some model, e.g. a script provider
   * whose scenario a test swaps (`setScenario`). A reload builds a new registry, with new providers: look it up again.
   */
  provider(name: string): ChatProvider | undefined {
    for (const entries of this.#routes.values())
      for (const entry of entries) if (entry.provider.name === name) return entry.provider
    return undefined
  }

  /** Whether `name` is a public model; with `serving`, one that has an entry `serving` accepts. */
  has(name: string, serving?: (entry: RouteEntry) => boolean): boolean {
    const entries = this.#routes.get(name)
    return entries !== undefined && (serving === undefined || entries.some(serving))
  }

  /**
   * What may serve `model`, for pricing it before it is sent (a money budget's reservation): the public name and each
   * of its entries' provider and upstream model, since a retry or a fallback may serve it from any of them.
   */
  pricedAs(model: string): { model: string; provider?: string; upstreamModel?: string }[] {
    const entries = this.#routes.get(model) ?? []
    return [
      { model },
      ...entries.map((entry) => ({ model, provider: entry.provider.name, upstreamModel: entry.model })),
    ]
  }

  /**
   * A non-streaming completion. Nothing reaches the client before it returns, so it may always retry
   * and fall back. `report` learns which entry served it, and its usage.
   */
  complete(request: ChatRequest, signal: AbortSignal, report?: StreamReport): Promise<ChatCompletion> {
    return this.completeWith(
      request.model,
      signal,
      async (entry) => {
        const completion = await entry.provider.complete({ ...request, model: entry.model }, signal)
        if (report) {
          if (isObject(completion.usage)) report.usage = completion.usage
          const finish = (completion.choices[0] as { finish_reason?: unknown } | undefined)?.finish_reason
          if (typeof finish === 'string') report.finishReason = finish
        }
        return completion
      },
      report,
    )
  }

  /**
   * Any whole answer under the registry's rules: `call` is made for each entry of `model` in turn,
   * retried and then falling back on retryable failures. The wire format is the caller's business
   * (`/v1/messages` answers in Anthropic's); `report` learns which entry served. With `serving`,
   * only the entries it accepts are tried (`/v1/embeddings` skips providers that have none).
   */
  async completeWith<T>(
    model: string,
    signal: AbortSignal,
    call: (entry: RouteEntry) => Promise<T>,
    report?: StreamReport,
    serving?: (entry: RouteEntry) => boolean,
  ): Promise<T> {
    let lastError: unknown
    // Only the entries that may serve this call: the last of them is where a failure gives up.
    const entries = serving ? this.#entries(model).filter(serving) : this.#entries(model)
    for (const entry of entries) {
      for (let attempt = 0; ; attempt++) {
        if (report) noteServingEntry(report, entry)
        try {
          return await call(entry)
        } catch (error) {
          lastError = error
          const next = await this.#afterFailure(error, entry, attempt, signal, false, entry === entries.at(-1))
          if (next === 'retry') continue
          break
        }
      }
    }
    throw lastError
  }

  /**
   * Streams chunks of the first entry that produces one. Failures before that chunk are retried
   * or fall back while `state.committed` is false; once a chunk has been yielded, or the route has
   * written anything (keep-alives included), failures are thrown from the iterator as they are.
   */
  stream(request: ChatRequest, signal: AbortSignal, state: StreamState): AsyncIterableIterator<ChatCompletionChunk> {
    return this.streamWith(request.model, signal, state, (entry) =>
      entry.provider.stream({ ...request, model: entry.model }, signal),
    )
  }

  /**
   * {@link stream} as the bytes the route sends: each item is one or more whole events, as the
   * provider produced them (for a relay, what one upstream read completed). Same retry,
   * fallback and commit rules.
   */
  streamEvents(
    request: ChatRequest,
    signal: AbortSignal,
    state: StreamState,
    report?: StreamReport,
  ): AsyncIterableIterator<Uint8Array> {
    return this.streamWith(
      request.model,
      signal,
      state,
      (entry) => eventsOf(entry.provider, { ...request, model: entry.model }, signal, report),
      report,
    )
  }

  /**
   * Any stream under the registry's rules: `start` opens one entry's stream, and the first entry
   * whose first item arrives serves it (see {@link stream}). The items are the caller's business:
   * `/v1/messages` streams Anthropic's events, natively or translated from OpenAI chunks.
   */
  streamWith<T>(
    model: string,
    signal: AbortSignal,
    state: StreamState,
    start: (entry: RouteEntry) => AsyncIterable<T>,
    report?: StreamReport,
  ): AsyncIterableIterator<T> {
    return new FallbackStream(() => this.#open(model, signal, state, start, report))
  }

  /** The iterator of the first entry whose first item arrives, with that item; retries and falls back before it. */
  async #open<T>(
    model: string,
    signal: AbortSignal,
    state: StreamState,
    start: (entry: RouteEntry) => AsyncIterable<T>,
    report?: StreamReport,
  ): Promise<OpenedStream<T>> {
    let lastError: unknown
    const entries = this.#entries(model)
    for (const entry of entries) {
      for (let attempt = 0; ; attempt++) {
        if (report) noteServingEntry(report, entry)
        const iterator = start(entry)[Symbol.asyncIterator]()
        try {
          return { iterator, first: await iterator.next() }
        } catch (error) {
          lastError = error
          const next = await this.#afterFailure(
            error,
            entry,
            attempt,
            signal,
            state.committed,
            entry === entries.at(-1),
          )
          if (next === 'retry') continue
          break
        }
      }
    }
    throw lastError
  }

  #entries(model: string): RouteEntry[] {
    const entries = this.#routes.get(model)
    if (!entries) throw modelNotFound(model)
    return entries
  }

  /**
   * Rethrows what must reach the client; otherwise waits out the back-off and says what to do next. `last`: no entry
   * follows this one.
   */
  async #afterFailure(
    error: unknown,
    entry: RouteEntry,
    attempt: number,
    signal: AbortSignal,
    committed: boolean,
    last: boolean,
  ): Promise<'retry' | 'next'> {
    const provider = entry.provider.name
    if (signal.aborted || committed || !(error instanceof ProviderError)) {
      if (!signal.aborted) this.#observe?.({ provider, error, next: 'give up' })
      throw error
    }
    if (error.options.retryable && attempt < entry.retry.maxRetries) {
      this.#observe?.({ provider, error, next: 'retry' })
      await this.#sleep(backoffMs(entry.retry, attempt, error.options.retryAfter, this.#random), signal)
      return 'retry'
    }
    // Without another entry to try, the failure reaches the client: it gave up, it did not fall back.
    const givesUp = last || isRequestFault(error)
    this.#observe?.({ provider, error, next: givesUp ? 'give up' : 'fallback' })
    if (isRequestFault(error)) throw error
    return 'next'
  }
}

/**
 * Builds the registry the chat route serves from: one provider instance per configured name
 * (the built-in `echo` included when a model uses it), shared by every model that routes to it.
 */
export function buildRegistry(config: ChatConfig, deps: RegistryDeps): ModelRegistry {
  const instances = new Map<string, { provider: ChatProvider; retry: RetryPolicy }>()
  const instance = (name: string) => {
    let found = instances.get(name)
    if (found) return found
    if (name === ECHO_PROVIDER) {
      found = { provider: deps.echo({ tokenDelayMs: config.echoTokenDelayMs }), retry: NO_RETRY }
    } else {
      const settings = config.providers[name]
      if (!settings) throw new Error(`chat model registry: provider '${name}' is not configured`)
      const { maxRetries, retryBaseMs, retryMaxMs } = settings
      const options = {
        ...settings,
        name,
        fetch: deps.fetch,
        clock: deps.clock,
        maxResponseBytes: config.maxResponseBytes,
        maxEventBytes: config.maxEventBytes,
        providers: config.providers,
      }
      const kind = PROVIDER_KINDS[settings.kind ?? DEFAULT_KIND]!
      found = {
        provider: kind.create(options),
        retry: { maxRetries, retryBaseMs, retryMaxMs },
      }
    }
    instances.set(name, found)
    return found
  }
  const routes = new Map<string, RouteEntry[]>()
  for (const [publicName, entries] of Object.entries(config.models)) {
    routes.set(
      publicName,
      entries.map(({ provider, model }) => ({ ...instance(provider), model })),
    )
  }
  return new ModelRegistry(routes, deps.sleep, deps.random, deps.observe)
}

/** The provider's own event bytes if it has them, else its chunks encoded one event per step. */
function eventsOf(
  provider: ChatProvider,
  request: ChatRequest,
  signal: AbortSignal,
  report?: StreamReport,
): AsyncIterable<Uint8Array> {
  if (provider.streamEvents) return provider.streamEvents(request, signal, report)
  return encodedChunks(provider.stream(request, signal), report)
}

async function* encodedChunks(
  chunks: AsyncIterable<ChatCompletionChunk>,
  report?: StreamReport,
): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    if (report) noteChunk(report, chunk)
    yield encodeEvent(chunk)
  }
}

/** Which entry is serving, for the ledger and the metrics (the last one tried, when all failed). */
function noteServingEntry(report: StreamReport, entry: RouteEntry): void {
  report.provider = entry.provider.name
  report.upstreamModel = entry.model
}

/** A failure caused by the request itself would repeat on every provider, so it is not worth a fallback. */
function isRequestFault(error: ProviderError): boolean {
  return error.status === 400 || error.status === 413 || error.status === 415
}

/**
 * The one 404 for a model name: one the registry does not serve, or one the token may not use
 * (answered word for word alike, so a token cannot tell them apart). OpenAI's wording.
 */
export function modelNotFound(model: string): ProviderError {
  return new ProviderError(404, `The model \`${model}\` does not exist or you do not have access to it.`, {
    type: 'invalid_request_error',
    code: 'model_not_found',
    param: 'model',
  })
}

/** The body of `GET /models`. Model names are Trellis's public names, owned by `trellis`. */
export function modelList(names: string[], created: Date): ModelList {
  const seconds = Math.floor(created.getTime() / 1000)
  return { object: 'list', data: names.map((id) => ({ id, object: 'model', created: seconds, owned_by: 'trellis' })) }
}
