import type { Prices } from '../config/prices'
import type { Database } from '../db/connect'
import { databaseUnavailable } from '../db/failures'
import type { Logger } from '../telemetry/logger'
import { unref } from '../timers'
import { type Counts, costMicros, PriceBook, type PricedModel, type PriceVersion } from './prices'
import { loadVersions, recordVersions } from './versions'

/** How often a process reads the versions again: another replica may have recorded a change (its reload). */
const REFRESH_MS = 30_000

/** A request's cost: in integer micro-dollars, and the version it was priced by (none: its model has no price). */
export type Cost = { micros: number; version: PriceVersion | undefined }

const FREE: Cost = { micros: 0, version: undefined }

/**
 * The price table of a process: recorded in the database at start and at each reload (src/cost/versions.ts), and
 * read back from it, so that every replica prices by the same versions; held in memory, so that pricing a request
 * is one lookup and a few integer operations, never a round trip. A model without a price costs nothing, and is
 * logged once (per process) so that an operator learns the table misses it.
 */
export class Pricing {
  readonly #book = new PriceBook()
  readonly #db: Database
  readonly #logger: Logger
  readonly #unpriced = new Set<string>()
  /** The table to record, while a recording failed (the database was away): retried at the next refresh. */
  #pending: Prices | undefined
  #applying: Promise<void> = Promise.resolve()
  #timer: ReturnType<typeof setInterval> | undefined

  constructor(db: Database, logger: Logger) {
    this.#db = db
    this.#logger = logger
  }

  /** One started at once, not waited for: requests priced before its versions are read cost nothing. */
  static started(db: Database, logger: Logger, prices: Prices): Pricing {
    const pricing = new Pricing(db, logger)
    void pricing.start(prices)
    return pricing
  }

  /** Records `prices` and loads the versions; then reads them again every {@link REFRESH_MS}. */
  start(prices: Prices): Promise<void> {
    this.#timer ??= unref(setInterval(() => void this.refresh(), REFRESH_MS))
    return this.apply(prices)
  }

  stop(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }

  /** A new table (a reload): recorded, then in effect. Never rejects: a failure is logged and retried. */
  apply(prices: Prices): Promise<void> {
    this.#applying = this.#applying.then(async () => {
      try {
        this.#book.replace(await recordVersions(this.#db, prices))
        this.#pending = undefined
      } catch (error) {
        this.#pending = prices
        this.#logger.warn('prices not recorded; retrying', {
          cause: databaseUnavailable(error) ?? String((error as Error).message),
        })
      }
    })
    return this.#applying
  }

  /** Resolves when the last {@link apply} has finished. */
  settled(): Promise<void> {
    return this.#applying
  }

  /** Every version, oldest first. */
  versions(): PriceVersion[] {
    return this.#book.versions().sort((a, b) => Number(a.id) - Number(b.id))
  }

  /** What `counts` of a request made at `at` cost. */
  price(priced: PricedModel, at: Date, counts: Counts): Cost {
    const version = this.#book.lookup(priced, at)
    if (version) return { micros: costMicros(version.rates, counts), version }
    if (!this.#unpriced.has(priced.model)) {
      this.#unpriced.add(priced.model)
      this.#logger.warn('a model has no price: its requests cost nothing and count as unpriced', {
        model: priced.model,
        upstream_model: priced.upstreamModel ?? null,
      })
    }
    return FREE
  }

  /** Reads the versions again (another replica may have recorded some), or retries a recording that failed. */
  async refresh(): Promise<void> {
    if (this.#pending) return this.apply(this.#pending)
    try {
      this.#book.replace(await loadVersions(this.#db))
    } catch {
      // The database is away: the versions in memory stay, and the next refresh tries again.
    }
  }
}
