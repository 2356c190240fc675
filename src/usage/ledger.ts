import type { Database } from '../db/connect'
import { usageRecords } from '../db/schema'
import { databaseUnavailable } from '../db/failures'
import type { Logger } from '../http/logger'
import { unref } from '../runtimes/timers'

/** One chat request, as the ledger keeps it. */
export type UsageRow = typeof usageRecords.$inferInsert

export type LedgerOptions = {
  /** Most rows waiting to be written; past it, new rows are dropped (and counted). */
  maxQueue?: number
  /** Most rows in one INSERT. */
  batchSize?: number
  /** Longest a row waits before its batch is written. */
  flushMs?: number
}

/**
 * The usage ledger, written off the request path: `record` only queues a row; a batch is written
 * when it holds `batchSize` rows or its first row has waited `flushMs` (1 s), one INSERT per batch,
 * so the database sees a few writes a second at full load rather than one per request. While the
 * database is unreachable, batches stay queued and are retried with back-off; the queue is bounded,
 * and what does not fit is dropped, counted (`dropped`) and logged, never allowed to grow memory.
 * `stop()` writes what is queued, retrying until its deadline: nothing is lost on a clean shutdown.
 */
export class UsageLedger {
  readonly #db: Database
  readonly #logger: Logger
  readonly #maxQueue: number
  readonly #batchSize: number
  readonly #flushMs: number
  #queue: UsageRow[] = []
  #dropped = 0
  #droppedLogged = 0
  #writing: Promise<void> | undefined
  #timer: ReturnType<typeof setTimeout> | undefined
  #failures = 0
  #stopped = false

  constructor(db: Database, logger: Logger, options: LedgerOptions = {}) {
    this.#db = db
    this.#logger = logger
    this.#maxQueue = options.maxQueue ?? 10_000
    this.#batchSize = options.batchSize ?? 250
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

  /** Queues a row; never waits, never throws. */
  record(row: UsageRow): void {
    if (this.#queue.length >= this.#maxQueue) {
      this.#dropped++
      // Logged once per power of two, so an outage under load does not flood the log too.
      if (this.#dropped >= this.#droppedLogged * 2 || this.#droppedLogged === 0) {
        this.#droppedLogged = this.#dropped
        this.#logger.error('usage ledger full: rows dropped', { dropped: this.#dropped, queue: this.#queue.length })
      }
      return
    }
    this.#queue.push(row)
    if (this.#queue.length >= this.#batchSize && this.#failures === 0) this.#writeSoon(0)
    else if (this.#timer === undefined && !this.#writing) this.#writeSoon(this.#flushMs)
  }

  /** Writes everything queued, retrying a failed batch until `deadlineMs` has passed. */
  async stop(deadlineMs = 5_000): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#timer)
    this.#timer = undefined
    const deadline = performance.now() + deadlineMs
    await this.#writing
    while (this.#queue.length > 0 && performance.now() < deadline) {
      if (!(await this.#writeBatch())) await new Promise((resolve) => setTimeout(resolve, 200))
    }
    if (this.#queue.length > 0) this.#logger.error('usage ledger: rows not written at shutdown', { lost: this.#queue.length })
  }

  /** Writes what is queued now (tests and shutdown); false when a batch failed. */
  async flush(): Promise<boolean> {
    await this.#writing
    while (this.#queue.length > 0) if (!(await this.#writeBatch())) return false
    return true
  }

  #writeSoon(ms: number): void {
    if (this.#stopped) return
    clearTimeout(this.#timer)
    this.#timer = unref(
      setTimeout(() => {
        this.#timer = undefined
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

  async #writeBatch(): Promise<boolean> {
    const batch = this.#queue.slice(0, this.#batchSize)
    try {
      await this.#db.insert(usageRecords).values(batch)
      this.#queue.splice(0, batch.length)
      if (this.#failures > 0) this.#logger.info('usage ledger writing again', { queue: this.#queue.length })
      this.#failures = 0
      return true
    } catch (error) {
      this.#failures++
      const cause = databaseUnavailable(error)
      if (this.#failures === 1) this.#logger.warn('usage ledger cannot write; rows stay queued', { cause: cause ?? String((error as Error).message), queue: this.#queue.length })
      return false
    }
  }
}
