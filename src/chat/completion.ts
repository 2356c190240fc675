import type { Principal } from '../auth/model'
import type { Governance } from '../governance/service'
import type { Metrics } from '../telemetry/metrics'
import type { UsageLedger } from '../db/usage-ledger'
import { DEFAULT_MAX_RESPONSE_BYTES } from '../config/chat'
import type { ChatCompletionRequest } from './model'
import { OpenAIError } from '../http/openai-errors'
import { toOpenAIError } from './error-mapping'
import type { ChatRequest, StreamReport } from './providers/provider'
import type { ModelRegistry } from './service'
import { utf8Length } from './providers/echo/tokenizer'
import { openEventStream, type StreamOutcome } from './sse/writer'
import { DEFAULT_KEEP_ALIVE_MS } from '../config/chat'
import { JSON_MEDIA_TYPE } from '../http/media-type'

/** What one completion is served from, beside the registry. */
export type CompletionDeps = {
  registry: ModelRegistry
  keepAliveMs: number
  maxResponseBytes?: number
  governance?: Governance
  ledger?: UsageLedger
  metrics?: Pick<Metrics, 'chatStarted' | 'chatFinished'>
  /** Told about failures after the first byte, which the client only sees as an error event. */
  onStreamError?: (error: unknown) => void
  shutdownSignal?: AbortSignal
}

/** A completion as it ended, for the ledger and the metrics. */
export type FinishedCompletion = {
  model: string
  provider: string | undefined
  streamed: boolean
  status: number
  ttftMs: number | undefined
  durationMs: number
  usage: Tokens
  errorCode: string | undefined
}

type Tokens = { prompt: number; completion: number; cached: number; reasoning: number }

/** Reserved for the answer of a request that sets no `max_tokens`: see the README on how far a limit may be overshot. */
export const DEFAULT_COMPLETION_RESERVATION = 4_096

/**
 * One chat completion from admission to settlement: the token's model allow-list and limits
 * (429s), the registry (retries, fallback, streaming), then the real usage charged against the
 * reservation, one ledger row, and the metrics, whether the answer finished, failed or was cut off.
 */
export async function serveCompletion(
  deps: CompletionDeps,
  context: { request: Request; principal: Principal; requestId: string | undefined; setHeaders: (headers: Record<string, string>) => void },
  parsed: ChatCompletionRequest,
): Promise<Response> {
  const { request, principal, requestId } = context
  const ticket = deps.governance ? await deps.governance.admitChat(principal, request, reservationOf(parsed)) : undefined
  if (ticket) context.setHeaders(ticket.headers)
  deps.metrics?.chatStarted()
  const started = performance.now()
  const body: ChatRequest = { ...parsed, stream: parsed.stream === true }
  const report: StreamReport = { events: 0 }
  const abort = new AbortController()
  const links = new AbortLinks(abort, request.signal, deps.shutdownSignal)
  let ttftMs: number | undefined
  let finished = false

  const finish = (status: number, errorCode: string | undefined, whole = true) => {
    if (finished) return
    finished = true
    links.release()
    const usage = tokensOf(report, parsed, whole)
    void ticket?.settle(usage.prompt + usage.completion).catch(() => {})
    const done: FinishedCompletion = {
      model: parsed.model,
      provider: report.provider,
      streamed: body.stream === true,
      status,
      ttftMs,
      durationMs: performance.now() - started,
      usage,
      errorCode,
    }
    deps.ledger?.record({
      at: new Date(),
      request_id: requestId ?? crypto.randomUUID(),
      token_id: principal.tokenId,
      owner: principal.owner,
      model: parsed.model,
      provider: report.provider ?? null,
      upstream_model: report.upstreamModel ?? null,
      streamed: done.streamed,
      status,
      finish_reason: report.finishReason ?? null,
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      cached_tokens: usage.cached,
      reasoning_tokens: usage.reasoning,
      ttft_ms: ttftMs ?? null,
      duration_ms: done.durationMs,
      error_code: errorCode ?? null,
    })
    deps.metrics?.chatFinished(done)
  }

  if (!body.stream) {
    try {
      const completion = await deps.registry.complete(body, abort.signal, report)
      finish(200, undefined)
      return Response.json(completion, { headers: { 'content-type': JSON_MEDIA_TYPE } })
    } catch (error) {
      const failure = toOpenAIError(error)
      finish(request.signal.aborted ? 499 : failure.status, request.signal.aborted ? 'client_aborted' : (failure.code ?? undefined))
      throw error
    }
  }
  const state = { committed: false }
  const response = await openEventStream(deps.registry.streamEvents(body, abort.signal, state, report), {
    state,
    abort,
    keepAliveMs: deps.keepAliveMs || DEFAULT_KEEP_ALIVE_MS,
    maxBytes: deps.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    requestId,
    onStreamError: deps.onStreamError,
    onClose: (outcome) => finish(...statusOf(outcome, request), outcome.ended === 'done'),
  })
  ttftMs = performance.now() - started
  return response
}

/** The status and error code a stream's end is recorded with: 200 for any stream that began, the error's status for one refused before it did. */
function statusOf(outcome: StreamOutcome, request: Request): [number, string | undefined] {
  if (outcome.ended === 'done') return [200, undefined]
  if (outcome.ended === 'cancelled') return [200, 'client_aborted']
  const failure = toOpenAIError(outcome.error)
  if (outcome.beforeFirstByte) return request.signal.aborted ? [499, 'client_aborted'] : [failure.status, failure.code ?? undefined]
  return [200, failure.code ?? 'stream_failed']
}

/**
 * The tokens a completion used: the usage its provider reported. For a stream that did not end
 * whole, what was sent: the prompt (as reported, or estimated) and one token per content event
 * handed over, since the usage of the whole answer was never delivered.
 */
function tokensOf(report: StreamReport, request: ChatCompletionRequest, whole: boolean): Tokens {
  const usage = report.usage
  const details = (key: string, field: string) => number((usage?.[key] as Record<string, unknown> | undefined)?.[field])
  const prompt = usage ? number(usage.prompt_tokens) : promptEstimate(request)
  const cached = details('prompt_tokens_details', 'cached_tokens') || number(usage?.prompt_cache_hit_tokens)
  if (!whole || !usage) return { prompt, completion: report.events, cached, reasoning: 0 }
  return { prompt, completion: number(usage.completion_tokens), cached, reasoning: details('completion_tokens_details', 'reasoning_tokens') }
}

const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0)

/**
 * What a request may use, reserved against `tpm` and the budget before it is sent: the prompt's
 * estimate plus what it may answer (`max_completion_tokens` or `max_tokens`, else
 * {@link DEFAULT_COMPLETION_RESERVATION}), for each of its `n` choices.
 */
export function reservationOf(request: ChatCompletionRequest): number {
  const answer = request.max_completion_tokens ?? request.max_tokens ?? DEFAULT_COMPLETION_RESERVATION
  return promptEstimate(request) + answer * (request.n ?? 1)
}

/** A prompt's tokens, estimated from its text: a token is about three bytes of UTF-8 or more in the languages models see. */
function promptEstimate(request: ChatCompletionRequest): number {
  let bytes = 0
  for (const message of request.messages) bytes += utf8Length(typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? ''))
  if (request.tools) bytes += utf8Length(JSON.stringify(request.tools))
  return Math.max(1, Math.ceil(bytes / 3))
}


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
    else this.#abort.abort(new OpenAIError({ status: 503, message: 'The server is shutting down; retry the request.', retryAfter: 1 }))
  }

  release(): void {
    this.#client.removeEventListener('abort', this)
    this.#shutdown?.removeEventListener('abort', this)
  }
}
