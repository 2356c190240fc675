import type { Database } from '../db/connect'
import type { TokenLimits } from '../db/schema'
import { HttpError } from '../http/errors'
import { QuotaLeases } from './leases'
import { effectiveLimits, type Limits } from '../config/limits'
import { QuotaStore, type QuotaKey, type QuotaShape } from './quota-store'

/**
 * Whose limits a request counts against: a verified token, as authentication establishes it. Only
 * what governance reads, so that it sits below authentication instead of importing it.
 */
export type LimitHolder = { tokenId: string; limits: TokenLimits }

const PER_MINUTE: QuotaShape = { kind: 'bucket', refillSeconds: 60 }
const COUNTER: QuotaShape = { kind: 'counter' }

/**
 * A 429: in the plant store's contract `{error: 429, message}`, under the chat routes OpenAI's
 * `rate_limit_exceeded` with `type` `requests` or `tokens`, or `insufficient_quota` once the
 * month's budget is spent. Always with `Retry-After`. A spent budget also says `x-should-retry:
 * false`: it renews only with the month, and the OpenAI and Anthropic SDKs, which retry a 429 at
 * once (a few times, within seconds) unless told not to, would only spend requests on it. A rate
 * limit lets them retry: a minute's bucket refills soon.
 */
class RateLimited extends HttpError {
  constructor(
    message: string,
    kind: 'requests' | 'tokens' | 'insufficient_quota',
    retryAfterSeconds: number,
    headers: Record<string, string> = {},
  ) {
    const advice: Record<string, string> = kind === 'insufficient_quota' ? { 'x-should-retry': 'false' } : {}
    super(429, message, {
      headers: { ...headers, ...advice, 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
      code: kind === 'insufficient_quota' ? 'insufficient_quota' : 'rate_limit_exceeded',
      type: kind,
    })
    this.name = 'RateLimited'
  }
}

/** What a chat request was admitted with; settle it with the real usage when the answer ends. */
export type ChatTicket = {
  /** OpenAI's `x-ratelimit-*` headers, for a token with `rpm` or `tpm`; empty otherwise. */
  headers: Record<string, string>
  /** Charges the real usage against the reservation (both ways), and frees the stream slot. Call once. */
  settle(usedTokens: number): Promise<void>
}

/** What a request's `rpm` admission left, for the rate-limit headers of a chat answer. */
type RequestsSeen = { limit: number; remaining: number }
const seenRequests = new WeakMap<Request, RequestsSeen>()

/**
 * Limits and budgets per token, held across replicas by the shared `quotas` table through
 * per-process leases (see leases.ts for the bounds): `rpm` on every authenticated request; `tpm`,
 * `streams` and `budget_tokens` on chat requests, which reserve an estimate of their tokens and
 * settle it with the real usage.
 */
export class Governance {
  readonly #leases: QuotaLeases
  #defaults: Limits
  readonly #clock: () => Date
  readonly #onRefused: (kind: string) => void

  /** `onRefused` is told the kind of every refusal (requests, tokens, insufficient_quota), for the metrics. */
  constructor(db: Database, options: { defaults: Limits; clock?: () => Date; onRefused?: (kind: string) => void }) {
    this.#leases = new QuotaLeases(new QuotaStore(db))
    this.#defaults = options.defaults
    this.#clock = options.clock ?? (() => new Date())
    this.#onRefused = options.onRefused ?? (() => {})
    this.#leases.start()
  }

  /** New defaults (a configuration reload), for requests admitted from now on; those in flight keep theirs. */
  setDefaults(defaults: Limits): void {
    this.#defaults = defaults
  }

  limitsOf(principal: LimitHolder): Limits {
    return effectiveLimits(principal.limits, this.#defaults)
  }

  /** One request against `rpm`; throws {@link RateLimited} past it. */
  async admitRequest(principal: LimitHolder, request: Request): Promise<void> {
    const rpm = this.limitsOf(principal).rpm
    if (rpm === undefined) return
    const taken = await this.#leases.take(key(principal, 'rpm'), PER_MINUTE, rpm, 1)
    seenRequests.set(request, { limit: rpm, remaining: taken.remaining })
    if (!taken.ok) {
      this.#onRefused('requests')
      throw new RateLimited(
        `Rate limit reached for requests: this token may make ${rpm} requests per minute.`,
        'requests',
        secondsToRefill(taken.shortBy, rpm),
        requestHeaders(rpm, taken.remaining),
      )
    }
  }

  /**
   * A chat request that may use up to `estimate` tokens: checked against the month's budget, `tpm`
   * and `streams`, in that order; throws {@link RateLimited}. What was taken before a refusal is
   * given back.
   */
  async admitChat(principal: LimitHolder, request: Request, estimate: number): Promise<ChatTicket> {
    const limits = this.limitsOf(principal)
    const undo: (() => void)[] = []
    const headers: Record<string, string> = {}
    const seen = seenRequests.get(request)
    if (seen) Object.assign(headers, requestHeaders(seen.limit, seen.remaining))
    try {
      if (limits.budget_tokens !== undefined) {
        const budgetKey = key(principal, 'budget', monthOf(this.#clock()))
        const taken = await this.#leases.take(budgetKey, COUNTER, limits.budget_tokens, estimate)
        if (!taken.ok) {
          throw new RateLimited(
            `You exceeded this token's monthly budget of ${limits.budget_tokens} tokens; it renews at the start of next month (UTC).`,
            'insufficient_quota',
            secondsToNextMonth(this.#clock()),
          )
        }
        undo.push(() => this.#leases.giveBack(budgetKey, COUNTER, limits.budget_tokens!, estimate))
      }
      if (limits.tpm !== undefined) {
        const tpm = limits.tpm
        const taken = await this.#leases.take(key(principal, 'tpm'), PER_MINUTE, tpm, Math.min(estimate, tpm))
        Object.assign(headers, tokenHeaders(tpm, taken.remaining))
        if (!taken.ok) {
          throw new RateLimited(
            `Rate limit reached for tokens: this token may use ${tpm} tokens per minute, and this request may use up to ${estimate}.`,
            'tokens',
            secondsToRefill(taken.shortBy, tpm),
            headers,
          )
        }
        undo.push(() => this.#leases.giveBack(key(principal, 'tpm'), PER_MINUTE, tpm, Math.min(estimate, tpm)))
      }
      if (limits.streams !== undefined) {
        const taken = await this.#leases.take(key(principal, 'streams'), COUNTER, limits.streams, 1)
        if (!taken.ok)
          throw new RateLimited(
            `Too many chat requests in flight: this token may have ${limits.streams} at once.`,
            'requests',
            1,
            headers,
          )
      }
    } catch (error) {
      for (const give of undo) give()
      if (error instanceof RateLimited) this.#onRefused(error.extra.type ?? 'requests')
      throw error
    }
    let settled = false
    return {
      headers,
      settle: async (used) => {
        if (settled) return
        settled = true
        if (limits.streams !== undefined) this.#leases.giveBack(key(principal, 'streams'), COUNTER, limits.streams, 1)
        // The reservation against the real usage: the difference is given back, or charged.
        if (limits.budget_tokens !== undefined)
          await this.#settle(
            key(principal, 'budget', monthOf(this.#clock())),
            COUNTER,
            limits.budget_tokens,
            estimate,
            used,
          )
        if (limits.tpm !== undefined)
          await this.#settle(key(principal, 'tpm'), PER_MINUTE, limits.tpm, Math.min(estimate, limits.tpm), used)
      },
    }
  }

  async #settle(quota: QuotaKey, shape: QuotaShape, limit: number, reserved: number, used: number): Promise<void> {
    if (used < reserved) this.#leases.giveBack(quota, shape, limit, reserved - used)
    else if (used > reserved) await this.#leases.charge(quota, shape, limit, used - reserved)
  }

  /** Returns what this process holds to the shared pool (on shutdown). */
  stop(): Promise<void> {
    return this.#leases.stop()
  }
}

function key(principal: LimitHolder, kind: string, period = ''): QuotaKey {
  return { tokenId: principal.tokenId, kind, period }
}

/** `2026-11` for a date in November 2026, UTC. */
function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7)
}

function secondsToNextMonth(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)
  return (next - now.getTime()) / 1000
}

/** How long a per-minute bucket takes to refill `units`. */
function secondsToRefill(units: number, perMinute: number): number {
  return (units * 60) / perMinute
}

function requestHeaders(limit: number, remaining: number): Record<string, string> {
  return {
    'x-ratelimit-limit-requests': String(limit),
    'x-ratelimit-remaining-requests': String(Math.floor(remaining)),
    'x-ratelimit-reset-requests': duration(secondsToRefill(limit - remaining, limit)),
  }
}

function tokenHeaders(limit: number, remaining: number): Record<string, string> {
  return {
    'x-ratelimit-limit-tokens': String(limit),
    'x-ratelimit-remaining-tokens': String(Math.floor(remaining)),
    'x-ratelimit-reset-tokens': duration(secondsToRefill(limit - remaining, limit)),
  }
}

/** OpenAI's spelling of a wait: `0s`, `120ms`, `17s`, `6m0s`. */
function duration(seconds: number): string {
  if (seconds <= 0) return '0s'
  if (seconds < 1) return `${Math.ceil(seconds * 1000)}ms`
  const whole = Math.ceil(seconds)
  return whole < 60 ? `${whole}s` : `${Math.floor(whole / 60)}m${whole % 60}s`
}
