import { type SQL, sql } from 'drizzle-orm'
import type { Database } from '../db/connect'
import type { TokenLimits } from '../db/schema'
import { RateLimited, requestHeaders, secondsToNextMonth, secondsToRefill, tokenHeaders } from './refusals'
import { unref } from '../timers'
import { HEARTBEAT_MS, HolderLost, type HoldersOptions, QuotaHolders } from './holders'
import { QuotaLeases } from './leases'
import { effectiveLimits, type Limits, microsOf } from '../config/limits'
import {
  type CostEstimate,
  type PriceLookup,
  type ReservedRates,
  reservedMicros,
  reservedRates,
  spentMicros,
  type UsedCost,
  usd,
} from './money'
import { QuotaStore, type QuotaKey, type QuotaShape } from './quota-store'

/**
 * Whose limits a request counts against: a verified token, as authentication establishes it. Only
 * what governance reads, so that it sits below authentication instead of importing it.
 */
export type LimitHolder = { tokenId: string; limits: TokenLimits }

const PER_MINUTE: QuotaShape = { kind: 'bucket', refillSeconds: 60 }
const COUNTER: QuotaShape = { kind: 'counter' }
/** The `quotas` kind of a money budget, counted in integer micro-dollars (`budget` is the token budget's). */
export const BUDGET_USD = 'budget_usd'

/**
 * What a settled request spent from its budgets (tokens, micro-dollars): taken off what its holder holds
 * (`quota_holdings`) in the ledger's batch that writes its row (src/usage/ledger.ts), so that a holder that dies later
 * is not given them back.
 */
export type Settlement = { holder: string; spent: readonly { key: QuotaKey; units: number }[] }

/** The money budget a chat request reserved from: its month, and the rates it reserved at (none: unpriced). */
export type MoneyReservation = { period: string; rates: ReservedRates | undefined }

/** What a chat request was admitted with; settle it with the real usage when the answer ends. */
export type ChatTicket = {
  /** OpenAI's `x-ratelimit-*` headers, for a token with `rpm` or `tpm`; empty otherwise. */
  headers: Record<string, string>
  /** The holder (process) that holds its reservations; the journal entry of the request names it. */
  holder: string
  /** The month of the budget it reserved from (`quotas.period`), when the token has one. */
  budgetPeriod: string | undefined
  /** The money budget it reserved from, when the token has one (`limits.budget_usd`). */
  money: MoneyReservation | undefined
  /**
   * Charges the real usage against the reservations (both ways), and frees the stream slot. Call once, with the
   * tokens used and, for a money budget, what priced them. Returns what the request spent from its budgets, for the
   * ledger's row (or {@link Governance.consumed} without a ledger).
   */
  settle(usedTokens: number, used?: UsedCost): Settlement | undefined
}

/** What a request's `rpm` admission left, for the rate-limit headers of a chat answer. */
type RequestsSeen = { limit: number; remaining: number }
const seenRequests = new WeakMap<Request, RequestsSeen>()

/**
 * Limits and budgets per token, held across replicas by the shared `quotas` table through
 * per-process leases (see leases.ts for the bounds): `rpm` on every authenticated request; `tpm`,
 * `streams`, `budget_tokens` and `budget_usd` on chat requests, which reserve an estimate of their
 * tokens (and of their cost, priced by `prices`) and settle it with the real usage.
 */
export class Governance {
  readonly #leases: QuotaLeases
  readonly #holders: QuotaHolders
  readonly #db: Database
  #defaults: Limits
  readonly #clock: () => Date
  readonly #onRefused: (kind: string) => void
  readonly #prices: PriceLookup
  /** Settlements to take off holdings when there is no ledger to do it with its rows. */
  #unconsumed: Settlement[] = []
  #consuming: ReturnType<typeof setTimeout> | undefined

  /**
   * `onRefused` is told the kind of every refusal (requests, tokens, insufficient_quota), for the metrics; `holders`
   * configures this process's holder (src/governance/holders.ts): the ledger's `proofs`, `exclusive` on PGlite;
   * `prices` prices requests for `budget_usd` (`PriceBook.lookup`; without it every model is unpriced: free).
   */
  constructor(
    db: Database,
    options: {
      defaults: Limits
      clock?: () => Date
      onRefused?: (kind: string) => void
      holders?: Omit<HoldersOptions, 'onLost'>
      prices?: PriceLookup
    },
  ) {
    this.#db = db
    this.#holders = new QuotaHolders(db, { ...options.holders, onLost: () => this.#leases.forgetCounters() })
    this.#leases = new QuotaLeases(new QuotaStore(db, this.#holders))
    this.#defaults = options.defaults
    this.#clock = options.clock ?? (() => new Date())
    this.#onRefused = options.onRefused ?? (() => {})
    this.#prices = options.prices ?? (() => undefined)
    this.#leases.start()
    this.#holders.start()
    // Registered now, so that the first request finds its holder there; a failure is retried by the heartbeat.
    void this.#holders.current().catch(() => {})
  }

  /** This process's holder: registration, heartbeat, reconciliation of dead ones. */
  get holders(): QuotaHolders {
    return this.#holders
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
   * A chat request that may use up to `estimate` tokens (and cost up to what `cost` says): checked against the
   * month's budgets (tokens, then money), `tpm` and `streams`, in that order; throws {@link RateLimited}. What was
   * taken before a refusal is given back. Admitted again, once, when this process's holder was found lost meanwhile.
   */
  async admitChat(
    principal: LimitHolder,
    request: Request,
    estimate: number,
    cost?: CostEstimate,
  ): Promise<ChatTicket> {
    try {
      return await this.#admitChat(principal, request, estimate, cost)
    } catch (error) {
      if (!(error instanceof HolderLost)) throw error
      return this.#admitChat(principal, request, estimate, cost)
    }
  }

  async #admitChat(
    principal: LimitHolder,
    request: Request,
    estimate: number,
    cost?: CostEstimate,
  ): Promise<ChatTicket> {
    const limits = this.limitsOf(principal)
    const undo: (() => void)[] = []
    const headers: Record<string, string> = {}
    const seen = seenRequests.get(request)
    if (seen) Object.assign(headers, requestHeaders(seen.limit, seen.remaining))
    // What this process holds of counters is handed out only while the database confirmed it recently (holders.ts).
    const counters = [limits.streams, limits.budget_tokens, limits.budget_usd].some((limit) => limit !== undefined)
    if (counters && !this.#holders.trusted) await this.#holders.beat()
    // Counters taken under an earlier holder are no longer this process's to give back (see holders.ts).
    const generation = this.#holders.generation
    const holder = this.#holders.id
    const current = () => generation === this.#holders.generation
    const now = this.#clock()
    const budgetKey = limits.budget_tokens === undefined ? undefined : key(principal, 'budget', monthOf(now))
    const usdKey = limits.budget_usd === undefined ? undefined : key(principal, BUDGET_USD, monthOf(now))
    const usdLimit = limits.budget_usd === undefined ? 0 : microsOf(limits.budget_usd)
    // An unpriced model (no rates) costs nothing: it reserves nothing, and is admitted even once the budget is spent.
    const rates = usdKey && cost ? reservedRates(this.#prices, cost.candidates(), now) : undefined
    const usdEstimate = rates && cost ? reservedMicros(rates, cost.prompt, cost.completion) : 0
    try {
      if (budgetKey) {
        const taken = await this.#leases.take(budgetKey, COUNTER, limits.budget_tokens!, estimate)
        if (!taken.ok) {
          throw new RateLimited(
            `You exceeded this token's monthly budget of ${limits.budget_tokens} tokens; it renews at the start of next month (UTC).`,
            'insufficient_quota',
            secondsToNextMonth(this.#clock()),
          )
        }
        undo.push(() => current() && this.#leases.giveBack(budgetKey, COUNTER, limits.budget_tokens!, estimate))
      }
      if (usdKey && usdEstimate > 0) {
        const taken = await this.#leases.take(usdKey, COUNTER, usdLimit, usdEstimate)
        if (!taken.ok) {
          throw new RateLimited(
            `You exceeded this token's monthly budget of ${usd(usdLimit)} (this request may cost up to ${usd(usdEstimate)}); ` +
              'it renews at the start of next month (UTC).',
            'insufficient_quota',
            secondsToNextMonth(now),
          )
        }
        undo.push(() => current() && this.#leases.giveBack(usdKey, COUNTER, usdLimit, usdEstimate))
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
        undo.push(() => current() && this.#leases.giveBack(key(principal, 'streams'), COUNTER, limits.streams!, 1))
      }
      // A holder lost while these were taken: they may come from holdings already given back.
      if (!current()) throw new HolderLost()
    } catch (error) {
      for (const give of undo) give()
      if (error instanceof RateLimited) this.#onRefused(error.extra.type ?? 'requests')
      throw error
    }
    let settled = false
    return {
      headers,
      holder,
      budgetPeriod: budgetKey?.period,
      money: usdKey && { period: usdKey.period, rates },
      settle: (used, priced) => {
        if (settled) return undefined
        settled = true
        const mine = current()
        if (limits.streams !== undefined && mine)
          this.#leases.giveBack(key(principal, 'streams'), COUNTER, limits.streams, 1)
        // The reservation against the real usage: the difference is given back, or charged.
        if (budgetKey && mine)
          void this.#settle(budgetKey, COUNTER, limits.budget_tokens!, estimate, used).catch(() => {})
        if (limits.tpm !== undefined)
          void this.#settle(key(principal, 'tpm'), PER_MINUTE, limits.tpm, Math.min(estimate, limits.tpm), used).catch(
            () => {},
          )
        const spent: { key: QuotaKey; units: number }[] = []
        if (budgetKey) spent.push({ key: budgetKey, units: used })
        if (usdKey) {
          const micros = priced ? spentMicros(this.#prices, priced) : usdEstimate
          if (mine) void this.#settle(usdKey, COUNTER, usdLimit, usdEstimate, micros).catch(() => {})
          spent.push({ key: usdKey, units: micros })
        }
        return spent.length > 0 ? { holder, spent } : undefined
      },
    }
  }

  async #settle(quota: QuotaKey, shape: QuotaShape, limit: number, reserved: number, used: number): Promise<void> {
    if (used < reserved) this.#leases.giveBack(quota, shape, limit, reserved - used)
    else if (used > reserved) await this.#leases.charge(quota, shape, limit, used - reserved)
  }

  /**
   * What a settled request spent, when no ledger takes it with its row: taken off its holder's holdings within a
   * heartbeat (a crash before that gives those tokens back to the budget: there is no ledger to prove them).
   */
  consumed(settlement: Settlement): void {
    this.#unconsumed.push(settlement)
    this.#consuming ??= unref(setTimeout(() => void this.#consume().catch(() => {}), HEARTBEAT_MS))
  }

  async #consume(): Promise<void> {
    this.#consuming = undefined
    const batch = this.#unconsumed
    this.#unconsumed = []
    if (batch.length === 0) return
    try {
      await this.#db.execute(consumption(batch))
    } catch (error) {
      this.#unconsumed.unshift(...batch)
      throw error
    }
  }

  /** Returns what this process holds to the shared pool (on shutdown), and stops its heartbeat's sweeps of leases. */
  async stop(): Promise<void> {
    await this.#leases.stop()
    clearTimeout(this.#consuming)
    await this.#consume()
  }

  /**
   * After {@link stop} and the ledger's last write: this process's holder leaves, what it still holds given back or
   * charged as for a death (nothing, after a clean drain).
   */
  retire(): Promise<void> {
    return this.#holders.retire()
  }
}

/**
 * The statement taking `settlements` off their holders' holdings (one per holder and key, summed): the ledger runs it
 * in the transaction that writes their rows. A holder already reconciled has no holdings left: nothing changes.
 */
export function consumption(settlements: readonly Settlement[]): SQL {
  const sums = new Map<string, { holder_id: string; token_id: string; kind: string; period: string; units: number }>()
  for (const { holder, spent } of settlements)
    for (const { key: quota, units } of spent) {
      const id = `${holder}\u0000${quota.tokenId}\u0000${quota.kind}\u0000${quota.period}`
      const sum = sums.get(id)
      if (sum) sum.units += units
      else sums.set(id, { holder_id: holder, token_id: quota.tokenId, kind: quota.kind, period: quota.period, units })
    }
  return sql`
    update quota_holdings h set units = h.units - c.units
    from jsonb_to_recordset(${JSON.stringify([...sums.values()])}::jsonb)
         as c(holder_id text, token_id text, kind text, period text, units float8)
    where h.holder_id = c.holder_id and h.token_id = c.token_id and h.kind = c.kind and h.period = c.period`
}

function key(principal: LimitHolder, kind: string, period = ''): QuotaKey {
  return { tokenId: principal.tokenId, kind, period }
}

/** `2026-11` for a date in November 2026, UTC. */
function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7)
}
