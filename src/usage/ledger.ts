import { type SQL, sql } from 'drizzle-orm'
import type { DatabaseHandle } from '../db/connect'
import { copyLine } from '../db/copy-text'
import { dataRefused, databaseUnavailable } from '../db/failures'
import { consumption, type Settlement } from '../governance/service'
import type { Logger } from '../telemetry/logger'
import { unref } from '../timers'
import { dueEntries, type InFlight, JOURNAL_MS, journalStatement, settledStatement } from './journal'

/** One chat request, as the ledger keeps it: the columns of `usage_records` (src/db/schema.ts), by their SQL names. */
export type UsageRow = {
  at: Date
  request_id: string
  token_id: string
  owner: string
  model: string
  provider: string | null
  upstream_model: string | null
  streamed: boolean
  status: number
  finish_reason: string | null
  prompt_tokens: number
  completion_tokens: number
  cached_tokens: number
  reasoning_tokens: number
  /** Prompt tokens written to a cache, part of `prompt_tokens`. */
  cache_write_tokens: number
  /** Its cost in integer micro-dollars, priced once when the row is made (src/cost/pricing.ts). */
  cost_micros: number
  /** The price version it was priced by; null: its model has no price. */
  price_version: string | null
  ttft_ms: number | null
  duration_ms: number
  error_code: string | null
}

const COLUMNS = [
  'at',
  'request_id',
  'token_id',
  'owner',
  'model',
  'provider',
  'upstream_model',
  'streamed',
  'status',
  'finish_reason',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'reasoning_tokens',
  'cache_write_tokens',
  'cost_micros',
  'price_version',
  'ttft_ms',
  'duration_ms',
  'error_code',
] as const satisfies readonly (keyof UsageRow)[]

/** The columns written: a row's, then `settled` (true: the request's own row) and `reservation_id`. */
export const WRITTEN = [...COLUMNS, 'settled', 'reservation_id'] as const

/** What a queued row does beside itself: what its request spent from a budget, and the journal entry it replaces. */
type Extra = { settlement: Settlement | undefined; journaled: string | undefined }

/** What a request in flight tells the journal at its admission (see {@link UsageLedger.begin}). */
export type Admission = Omit<InFlight, 'journaled' | 'written' | 'writtenAt'>

/**
 * A row is queued as its line of COPY text, and a batch is one COPY. At full relay load the
 * ledger is the largest part of what governance costs, and most of it is the database's: an
 * INSERT with a parameter per column per row cost about 60 µs of CPU per request on the embedded
 * database, one INSERT of a JSON parameter about a third of that, and COPY half of the JSON INSERT
 * again, on PostgreSQL and on PGlite (BENCHMARKS.md, "Governance overhead"). A queued line is one flat
 * string, which the garbage collector does not have to trace, where a row object held 17 fields.
 */
const lineOf = (row: UsageRow, reservationId: string | null) =>
  copyLine([...COLUMNS.map((column) => row[column]), true, reservationId])

/** The request id of a queued line (its second column), for the log. */
const requestIdOf = (line: string) => line.split('\t', 2)[1]

export type LedgerOptions = {
  /** Most rows waiting to be written; past it, new rows are dropped (and counted). */
  maxQueue?: number
  /** Most rows in one write. */
  batchSize?: number
  /** Longest a row waits before its batch is written. */
  flushMs?: number
}

/**
 * The usage ledger, written off the request path: `record` only queues a row; a batch is written
 * when it holds `batchSize` rows or its first row has waited `flushMs` (1 s), one COPY per batch,
 * so the database sees a few writes a second at full load rather than one per request. While the
 * database is unreachable, batches stay queued and are retried with back-off; the queue is bounded,
 * and what does not fit is dropped, counted (`dropped`) and logged, never allowed to grow memory.
 * `stop()` writes what is queued, retrying until its deadline: nothing is lost on a clean shutdown.
 *
 * Crash safety (see journal.ts): requests in flight are journaled a moment after admission, and a batch takes what
 * its rows' requests spent off their holders' holdings (governance/holders.ts) and deletes their journal entries in
 * the transaction that writes them, so that a process that dies leaves every request in exactly one place: a row,
 * or a journal entry that a survivor turns into an estimate and charges.
 */
export class UsageLedger {
  readonly #database: Pick<DatabaseHandle, 'copyIn' | 'db'>
  readonly #logger: Logger
  readonly #maxQueue: number
  readonly #batchSize: number
  readonly #flushMs: number
  #queue: string[] = []
  /** Beside each queued line: undefined, or what else its write does. */
  #extras: (Extra | undefined)[] = []
  readonly #inFlight = new Set<InFlight>()
  #journalTimer: ReturnType<typeof setInterval> | undefined
  #journaling: Promise<void> | undefined
  #journalFailed = false
  #dropped = 0
  #droppedLogged = 0
  #writing: Promise<void> | undefined
  #timer: ReturnType<typeof setTimeout> | undefined
  #failures = 0
  #stopped = false
  /** A write is due at once (the timer is set to 0). */
  #immediate = false
  #batches = 0
  #written = 0

  constructor(database: Pick<DatabaseHandle, 'copyIn' | 'db'>, logger: Logger, options: LedgerOptions = {}) {
    this.#database = database
    this.#logger = logger
    this.#maxQueue = options.maxQueue ?? 10_000
    // A write costs the database a fixed part beside its rows' (the COPY's transaction, the rollup trigger's upserts): at
    // full load a batch of 1,000 rather than 250 cost PGlite, in this process, 51 rather than 61 µs a row, and PostgreSQL
    // 43 rather than 58 (bench/ledger-write.ts, BENCHMARKS.md #31). Below full load `flushMs` writes first.
    this.#batchSize = options.batchSize ?? 1_000
    this.#flushMs = options.flushMs ?? 1_000
  }

  /** Rows waiting to be written. */
  get depth(): number {
    return this.#queue.length
  }

  /** Rows dropped because the queue was full, since start. */
  get dropped(): number {
    return this.#dropped
  }

  /** Writes (one COPY each) and rows written since start. */
  get written(): { batches: number; rows: number } {
    return { batches: this.#batches, rows: this.#written }
  }

  /** Requests in flight, journaled or waiting to be. */
  get inFlight(): number {
    return this.#inFlight.size
  }

  /** A request admitted: journaled if it is still in flight {@link JOURNAL_MS} from now. Pass the entry to `record`. */
  begin(admission: Admission): InFlight {
    const entry: InFlight = { ...admission, journaled: false, written: -1, writtenAt: performance.now() }
    this.#inFlight.add(entry)
    this.#journalTimer ??= unref(setInterval(() => this.#journal(), JOURNAL_MS))
    return entry
  }

  /**
   * Queues a row; never waits, never throws. `settlement`: what its request spent from a budget, taken off its
   * holder's holdings when the row is written; `entry`: its journal entry, deleted then.
   */
  record(row: UsageRow, settlement?: Settlement, entry?: InFlight): void {
    let journaled: string | undefined
    if (entry) {
      this.#inFlight.delete(entry)
      if (entry.journaled) journaled = entry.id
    }
    if (this.#queue.length >= this.#maxQueue) {
      this.#dropped++
      // Logged once per power of two, so an outage under load does not flood the log too.
      if (this.#dropped >= this.#droppedLogged * 2 || this.#droppedLogged === 0) {
        this.#droppedLogged = this.#dropped
        this.#logger.error('usage ledger full: rows dropped', { dropped: this.#dropped, queue: this.#queue.length })
      }
      return
    }
    this.#queue.push(lineOf(row, journaled ?? null))
    this.#extras.push(settlement || journaled ? { settlement, journaled } : undefined)
    // A write in progress goes on to the full batches behind it and sets the timer for the rest.
    if (this.#writing) return
    if (this.#queue.length >= this.#batchSize && this.#failures === 0) {
      if (!this.#immediate) this.#writeSoon(0)
    } else if (this.#timer === undefined) this.#writeSoon(this.#flushMs)
  }

  /** Writes everything queued, retrying a failed batch until `deadlineMs` has passed. */
  async stop(deadlineMs = 5_000): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#timer)
    this.#timer = undefined
    clearInterval(this.#journalTimer)
    this.#journalTimer = undefined
    const deadline = performance.now() + deadlineMs
    await this.#journaling
    await this.#writing
    while (this.#queue.length > 0 && performance.now() < deadline) {
      if (!(await this.#writeBatch())) await new Promise((resolve) => setTimeout(resolve, 200))
    }
    if (this.#queue.length > 0)
      this.#logger.error('usage ledger: rows not written at shutdown', { lost: this.#queue.length })
  }

  /** Writes what is queued now (tests and shutdown); false when a batch failed. */
  async flush(): Promise<boolean> {
    // A write already due would write the same batch beside this one.
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#immediate = false
    await this.#writing
    while (this.#queue.length > 0) if (!(await this.#writeBatch())) return false
    return true
  }

  #writeSoon(ms: number): void {
    if (this.#stopped) return
    clearTimeout(this.#timer)
    this.#immediate = ms === 0
    this.#timer = unref(
      setTimeout(() => {
        this.#timer = undefined
        this.#immediate = false
        this.#writing ??= this.#drain().finally(() => (this.#writing = undefined))
      }, ms),
    )
  }

  /** Writes the queue's first batch, then any further full ones; a partial rest waits for its timer. */
  async #drain(): Promise<void> {
    let first = true
    while (this.#queue.length > 0 && !this.#stopped && (first || this.#queue.length >= this.#batchSize)) {
      first = false
      if (await this.#writeBatch()) continue
      // Back off while the database is away: 0.5 s, doubling to 8 s.
      this.#writeSoon(Math.min(8_000, 500 * 2 ** (this.#failures - 1)))
      return
    }
    if (this.#queue.length > 0 && this.#timer === undefined) this.#writeSoon(this.#flushMs)
  }

  /** Writes the entries due to the journal, one statement; the next tick retries what failed. */
  #journal(): void {
    if (this.#inFlight.size === 0) {
      clearInterval(this.#journalTimer)
      this.#journalTimer = undefined
      return
    }
    if (this.#journaling || this.#stopped) return
    const due = dueEntries(this.#inFlight, performance.now())
    if (due.length === 0) return
    const counts = due.map((entry) => entry.report.events)
    for (const entry of due) entry.journaled = true
    this.#journaling = this.#database.db
      .execute(journalStatement(due, counts))
      .then(
        () => {
          const now = performance.now()
          due.forEach((entry, i) => ((entry.written = counts[i]!), (entry.writtenAt = now)))
          if (this.#journalFailed) this.#logger.info('usage journal writing again')
          this.#journalFailed = false
        },
        (error) => {
          if (!this.#journalFailed)
            this.#logger.warn('usage journal cannot write; retrying', {
              cause: databaseUnavailable(error) ?? String((error as Error).message),
            })
          this.#journalFailed = true
        },
      )
      .finally(() => (this.#journaling = undefined))
  }

  /** What writing `extras`' rows does beside them, in their transaction: holdings spent, journal entries settled. */
  #alongside(extras: readonly (Extra | undefined)[]): SQL | undefined {
    const settlements: Settlement[] = []
    const journaled: string[] = []
    for (const extra of extras) {
      if (extra?.settlement) settlements.push(extra.settlement)
      if (extra?.journaled) journaled.push(extra.journaled)
    }
    if (settlements.length === 0 && journaled.length === 0) return undefined
    const parts: SQL[] = []
    if (settlements.length) parts.push(sql`spent as (${consumption(settlements)})`)
    if (journaled.length) parts.push(sql`settled as (${settledStatement(journaled)})`)
    return sql`with ${sql.join(parts, sql`, `)} select 1`
  }

  async #writeBatch(): Promise<boolean> {
    const batch = this.#queue.slice(0, this.#batchSize)
    // A journal write in flight may be inserting an entry that one of these rows deletes: it goes first.
    if (this.#journaling) await this.#journaling
    try {
      await this.#database.copyIn('usage_records', WRITTEN, batch, this.#alongside(this.#extras.slice(0, batch.length)))
      this.#queue.splice(0, batch.length)
      this.#extras.splice(0, batch.length)
      this.#batches++
      this.#written += batch.length
      if (this.#failures > 0) this.#logger.info('usage ledger writing again', { queue: this.#queue.length })
      this.#failures = 0
      return true
    } catch (error) {
      // A row the database refuses (bad data, not an outage) would block every row behind it: find it and drop it.
      if (dataRefused(error)) return this.#dropRefused(batch, error)
      const cause = databaseUnavailable(error) ?? String((error as Error).message)
      this.#failures++
      if (this.#failures === 1)
        this.#logger.warn('usage ledger cannot write; rows stay queued', { cause, queue: this.#queue.length })
      return false
    }
  }

  /** Writes a refused batch row by row, dropping (and logging) each row the database refuses. */
  async #dropRefused(batch: string[], error: unknown): Promise<boolean> {
    this.#logger.error('usage ledger: database refused a batch; writing it row by row', {
      cause: String((error as Error).message),
    })
    for (const line of batch) {
      try {
        await this.#database.copyIn('usage_records', WRITTEN, [line], this.#alongside([this.#extras[0]]))
        this.#batches++
        this.#written++
      } catch (rowError) {
        if (!dataRefused(rowError)) return (this.#failures++, false)
        this.#dropped++
        this.#logger.error('usage ledger: row refused and dropped', {
          request_id: requestIdOf(line),
          cause: String((rowError as Error).message),
        })
      }
      this.#queue.shift()
      this.#extras.shift()
    }
    return true
  }
}
