import type { Principal } from '../auth/model'
import type { Governance } from '../governance/service'
import type { Metrics } from '../telemetry/metrics'
import type { InFlight } from '../usage/journal'
import type { UsageLedger } from '../usage/ledger'
import { DEFAULT_MAX_RESPONSE_BYTES } from '../config/chat'
import type { ChatCompletionRequest } from './model'
import { OpenAIError } from '../http/openai-errors'
import { OPENAI_FRAMING, toOpenAIError } from './errors'
import { CLIENT_HEADERS, type ChatRequest, type StreamReport } from './providers/provider'
import type { ModelRegistry, StreamState } from './registry'
import { utf8Length } from '../utf8'
import { openEventStream, type StreamFraming, type StreamOutcome } from './sse/writer'
import { DEFAULT_KEEP_ALIVE_MS } from '../config/chat'
import type { ChatTicket } from '../governance/service'
import type { Pricing } from '../cost/pricing'
import { JSON_MEDIA_TYPE } from '../http/media-type'

/** What one completion is served from, beside the registry. */
export type CompletionDeps = {
  registry: ModelRegistry
  keepAliveMs: number
  maxResponseBytes?: number
  governance?: Governance
  ledger?: UsageLedger
  /** The price table: each request is priced once, at its end, for its row, the metrics and `x-trellis-cost`. */
  pricing?: Pricing
  metrics?: Pick<Metrics, 'chatStarted' | 'chatFinished'>
  /** Told about failures after the first byte, which the client only sees as an error event. */
  onStreamError?: (error: unknown) => void
  shutdownSignal?: AbortSignal
}

/** A completion as it ended, for the ledger and the metrics. */
type FinishedCompletion = {
  model: string
  provider: string | undefined
  streamed: boolean
  status: number
  ttftMs: number | undefined
  durationMs: number
  usage: Tokens
  errorCode: string | undefined
  costMicros: number
}

type Tokens = { prompt: number; completion: number; cached: number; cacheWrite: number; reasoning: number }

/**
 * Reserved for the answer of a request that sets no `max_tokens`: see the README on how far a limit may be overshot.
 */
export const DEFAULT_COMPLETION_RESERVATION = 4_096

/** The context of one request, as the route knows it. */
export type CompletionContext = {
  request: Request
  principal: Principal
  requestId: string | undefined
  setHeaders: (headers: Record<string, string>) => void
}

/**
 * What admission and settlement need to know of a wire format's request: the estimate of its
 * prompt (reserved before it is sent, and charged when a stream cut short never reported usage)
 * and the most it may answer. Module constants, one per format, so admitting a request makes no
 * closures for it.
 */
export type Reservable<R> = {
  promptEstimate(request: R): number
  answerTokens(request: R): number
}

/**
 * One chat completion from admission to settlement, whatever its wire format (OpenAI's here,
 * Anthropic's in messages/): the token's limits (429s), then the real usage charged against the
 * reservation, one ledger row, and the metrics, whether the answer finished, failed or was cut
 * off. The route runs the registry in between with {@link abort}'s signal and {@link report}.
 */
export class CompletionRun<R> {
  readonly report: StreamReport = { events: 0 }
  readonly abort = new AbortController()
  readonly #deps: CompletionDeps
  readonly #context: CompletionContext
  readonly #format: Reservable<R>
  readonly #request: R
  readonly #model: string
  readonly #streamed: boolean
  readonly #ticket: ChatTicket | undefined
  readonly #links: AbortLinks
  /** Its journal entry, while in flight (see src/usage/journal.ts). */
  readonly #entry: InFlight | undefined
  readonly #requestId: string
  readonly #started = performance.now()
  #ttftMs: number | undefined
  #finished = false
  /** What the request cost, in micro-dollars, once it has finished. */
  costMicros = 0

  /**
   * Admits the request, reserving its tokens, or rejects with the 429 that refuses it. A `then`
   * rather than an async frame: this is on the path of every chat request.
   */
  static admit<R>(
    deps: CompletionDeps,
    context: CompletionContext,
    format: Reservable<R>,
    request: R,
    model: string,
    streamed: boolean,
  ): Promise<CompletionRun<R>> {
    const governance = deps.governance
    if (!governance)
      return Promise.resolve(new CompletionRun(deps, context, format, request, model, streamed, undefined))
    const prompt = format.promptEstimate(request)
    const completion = format.answerTokens(request)
    const cost = { candidates: () => deps.registry.pricedAs(model), prompt, completion }
    return governance
      .admitChat(context.principal, context.request, prompt + completion, cost)
      .then((ticket) => new CompletionRun(deps, context, format, request, model, streamed, ticket))
  }

  private constructor(
    deps: CompletionDeps,
    context: CompletionContext,
    format: Reservable<R>,
    request: R,
    model: string,
    streamed: boolean,
    ticket: ChatTicket | undefined,
  ) {
    if (ticket) context.setHeaders(ticket.headers)
    deps.metrics?.chatStarted()
    this.#deps = deps
    this.#context = context
    this.#format = format
    this.#request = request
    this.#model = model
    this.#streamed = streamed
    this.#ticket = ticket
    this.#links = new AbortLinks(this.abort, context.request.signal, deps.shutdownSignal)
    this.#requestId = context.requestId ?? crypto.randomUUID()
    this.#entry =
      ticket &&
      deps.ledger?.begin({
        id: crypto.randomUUID(),
        holder: ticket.holder,
        at: new Date(),
        requestId: this.#requestId,
        tokenId: context.principal.tokenId,
        owner: context.principal.owner,
        model,
        streamed,
        budgetPeriod: ticket.budgetPeriod ?? null,
        budgetUsd: ticket.money ?? null,
        promptTokens: format.promptEstimate(request),
        report: this.report,
      })
  }

  /** Settles once: the reservation, the ledger row, the metrics. `whole`: the answer was delivered whole. */
  finish(status: number, errorCode: string | undefined, whole = true): void {
    if (this.#finished) return
    this.#finished = true
    this.#links.release()
    const report = this.report
    const usage = tokensOf(report, whole, this.#format, this.#request)
    // One time for the row and its cost: the price version in effect then prices both the row and the budget.
    const at = new Date()
    const priced = { model: this.#model, provider: report.provider, upstreamModel: report.upstreamModel }
    const cost = this.#deps.pricing?.price(priced, at, usage)
    this.costMicros = cost?.micros ?? 0
    // Priced once: the budget is settled at the row's cost (the same table, time and counts).
    const used = { priced, counts: usage, at, micros: cost?.micros }
    const settlement = this.#ticket?.settle(usage.prompt + usage.completion, used)
    // A whole answer's headers are still to be sent; a stream's left long ago (its cost is its trailer, below).
    if (this.#context.principal.costHeader) this.#context.setHeaders({ [COST_HEADER]: costText(this.costMicros) })
    const done: FinishedCompletion = {
      model: this.#model,
      provider: report.provider,
      streamed: this.#streamed,
      status,
      ttftMs: this.#ttftMs,
      durationMs: performance.now() - this.#started,
      usage,
      errorCode,
      costMicros: this.costMicros,
    }
    const ledger = this.#deps.ledger
    // Without a ledger, governance takes what the request spent off its holdings by itself.
    if (!ledger && settlement) this.#deps.governance?.consumed(settlement)
    ledger?.record(
      {
        at,
        request_id: this.#requestId,
        token_id: this.#context.principal.tokenId,
        owner: this.#context.principal.owner,
        model: this.#model,
        provider: report.provider ?? null,
        upstream_model: report.upstreamModel ?? null,
        streamed: done.streamed,
        status,
        finish_reason: report.finishReason ?? null,
        prompt_tokens: usage.prompt,
        completion_tokens: usage.completion,
        cached_tokens: usage.cached,
        reasoning_tokens: usage.reasoning,
        cache_write_tokens: usage.cacheWrite,
        cost_micros: this.costMicros,
        price_version: cost?.version?.id ?? null,
        ttft_ms: this.#ttftMs ?? null,
        duration_ms: done.durationMs,
        error_code: errorCode ?? null,
      },
      settlement,
      this.#entry,
    )
    this.#deps.metrics?.chatFinished(done)
  }

  /** Settles a whole (non-streamed) answer that failed: 499 when the client left first. */
  failed(error: unknown): void {
    const aborted = this.#context.request.signal.aborted
    const failure = toOpenAIError(error)
    this.finish(aborted ? 499 : failure.status, aborted ? 'client_aborted' : (failure.code ?? undefined))
  }

  /** The event stream of `events` in `framing` (OpenAI's by default), settled when it closes. */
  async stream(
    events: AsyncIterable<Uint8Array>,
    state: StreamState,
    framing: StreamFraming = OPENAI_FRAMING,
  ): Promise<Response> {
    const deps = this.#deps
    const response = await openEventStream(events, {
      state,
      abort: this.abort,
      keepAliveMs: deps.keepAliveMs || DEFAULT_KEEP_ALIVE_MS,
      maxBytes: deps.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      requestId: this.#context.requestId,
      onStreamError: deps.onStreamError,
      onClose: (outcome) => this.finish(...statusOf(outcome, this.#context.request), outcome.ended === 'done'),
      framing,
      trailer: this.#context.principal.costHeader
        ? () => encoder.encode(`: ${COST_HEADER}: ${costText(this.costMicros)}\n\n`)
        : undefined,
    })
    this.#ttftMs = performance.now() - this.#started
    return response
  }
}

/** What a request cost, for a token with `cost_header`: a header on a whole answer, a last SSE comment on a stream. */
const COST_HEADER = 'x-trellis-cost'
const encoder = new TextEncoder()

/** Integer micro-dollars as dollars with 6 decimals, exactly: `1234` → `0.001234`. */
const costText = (micros: number) => `${Math.trunc(micros / 1_000_000)}.${String(micros % 1_000_000).padStart(6, '0')}`

/**
 * What an OpenAI request may use, reserved against `tpm` and the budget before it is sent: the
 * prompt's estimate plus what it may answer (`max_completion_tokens` or `max_tokens`, else
 * {@link DEFAULT_COMPLETION_RESERVATION}), for each of its `n` choices.
 */
const OPENAI_REQUEST: Reservable<ChatCompletionRequest> = {
  promptEstimate,
  answerTokens: (request) =>
    (request.max_completion_tokens ?? request.max_tokens ?? DEFAULT_COMPLETION_RESERVATION) * (request.n ?? 1),
}

/**
 * One OpenAI chat completion from admission to settlement (see {@link CompletionRun}): the
 * registry in between (retries, fallback, streaming).
 */
export async function serveCompletion(
  deps: CompletionDeps,
  context: CompletionContext,
  parsed: ChatCompletionRequest,
): Promise<Response> {
  const run = await CompletionRun.admit(deps, context, OPENAI_REQUEST, parsed, parsed.model, parsed.stream === true)
  const body: ChatRequest = { ...parsed, stream: parsed.stream === true, [CLIENT_HEADERS]: context.request.headers }
  if (!body.stream) {
    try {
      const completion = await deps.registry.complete(body, run.abort.signal, run.report)
      run.finish(200, undefined)
      return Response.json(completion, { headers: { 'content-type': JSON_MEDIA_TYPE } })
    } catch (error) {
      run.failed(error)
      throw error
    }
  }
  const state = { committed: false }
  return run.stream(deps.registry.streamEvents(body, run.abort.signal, state, run.report), state)
}

/**
 * The status and error code a stream's end is recorded with: 200 for any stream that began, the error's status for one
 * refused before it did.
 */
function statusOf(outcome: StreamOutcome, request: Request): [number, string | undefined] {
  if (outcome.ended === 'done') return [200, undefined]
  if (outcome.ended === 'cancelled') return [200, 'client_aborted']
  const failure = toOpenAIError(outcome.error)
  if (outcome.beforeFirstByte)
    return request.signal.aborted ? [499, 'client_aborted'] : [failure.status, failure.code ?? undefined]
  return [200, failure.code ?? 'stream_failed']
}

/**
 * The tokens a completion used: the usage its provider reported. For a stream that did not end
 * whole, what was sent: the prompt (as reported, or estimated) and one token per content event
 * handed over, since the usage of the whole answer was never delivered.
 */
function tokensOf<R>(report: StreamReport, whole: boolean, format: Reservable<R>, request: R): Tokens {
  const usage = report.usage
  const details = (key: string, field: string) =>
    countOrZero((usage?.[key] as Record<string, unknown> | undefined)?.[field])
  const prompt = usage ? countOrZero(usage.prompt_tokens) : format.promptEstimate(request)
  const cached = details('prompt_tokens_details', 'cached_tokens') || countOrZero(usage?.prompt_cache_hit_tokens)
  const cacheWrite = details('prompt_tokens_details', 'cache_write_tokens')
  if (!whole || !usage) return { prompt, completion: report.events, cached, cacheWrite, reasoning: 0 }
  return {
    prompt,
    completion: countOrZero(usage.completion_tokens),
    cached,
    cacheWrite,
    reasoning: details('completion_tokens_details', 'reasoning_tokens'),
  }
}

/** A usage count as reported, or 0 when the upstream left it out or sent something else. */
const countOrZero = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0)

/** A prompt's tokens, estimated from its text (see {@link estimatedTokens}). */
function promptEstimate(request: ChatCompletionRequest): number {
  let bytes = 0
  for (const message of request.messages)
    bytes += utf8Length(typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? ''))
  if (request.tools) bytes += utf8Length(JSON.stringify(request.tools))
  return estimatedTokens(bytes)
}

/**
 * Tokens of a text of `bytes` UTF-8 bytes, estimated: a token is about three bytes or more in the languages models see.
 */
export const estimatedTokens = (bytes: number): number => Math.max(1, Math.ceil(bytes / 3))

/**
 * Aborts `abort` when the client disconnects or the server shuts down. A shutdown aborts
 * with a 503 so that a stream already under way ends with an error event that says so.
 * One object per request, which is its own listener (handleEvent): a held stream keeps no
 * closures for it. `release` detaches the listeners.
 */
class AbortLinks {
  readonly #abort: AbortController
  readonly #client: AbortSignal
  readonly #shutdown: AbortSignal | undefined

  constructor(abort: AbortController, client: AbortSignal, shutdown?: AbortSignal) {
    this.#abort = abort
    this.#client = client
    this.#shutdown = shutdown
    if (client.aborted) this.handleEvent({ target: client })
    else client.addEventListener('abort', this, { once: true })
    if (shutdown?.aborted) this.handleEvent({ target: shutdown })
    else shutdown?.addEventListener('abort', this, { once: true })
  }

  handleEvent(event: { target: EventTarget | null }): void {
    if (event.target === this.#client) this.#abort.abort(this.#client.reason)
    else
      this.#abort.abort(
        new OpenAIError({ status: 503, message: 'The server is shutting down; retry the request.', retryAfter: 1 }),
      )
  }

  release(): void {
    this.#client.removeEventListener('abort', this)
    this.#shutdown?.removeEventListener('abort', this)
  }
}
