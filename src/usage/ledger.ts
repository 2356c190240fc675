import type { DatabaseHandle } from '../db/connect'
import { copyLine } from '../db/copy-text'
import { dataRefused, databaseUnavailable } from '../db/failures'
import type { Logger } from '../telemetry/logger'
import { unref } from '../timers'

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
  'ttft_ms',
  'duration_ms',
  'error_code',
] as const satisfies readonly (keyof UsageRow)[]

/**
 * A row is queued as its line of COPY text, and a batch is one COPY. At full relay load the
 * ledger is the largest part of what governance costs, and most of it is the database's: an
 * INSERT with a parameter per column per row cost about 60 µs of CPU per request on the embedded
 * database, one INSERT of a JSON parameter about a third of that, and COPY half of the JSON INSERT
 * again, on PostgreSQL and on PGlite (BENCHMARKS.md, "Governance overhead"). A queued line is one flat
 * string, which the garbage collector does not have to trace, where a row object held 17 fields.
 */
const lineOf = (row: UsageRow) => copyLine(COLUMNS.map((column) => row[column]))

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
 */
export class UsageLedger {
  readonly #database: Pick<DatabaseHandle, 'copyIn'>
  readonly #logger: Logger
  readonly #maxQueue: number
  readonly #batchSize: number
  readonly #flushMs: number
  #queue: string[] = []
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

  constructor(database: Pick<DatabaseHandle, 'copyIn'>, logger: Logger, options: LedgerOptions = {}) {
    this.#database = database
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

  /** Writes (one COPY each) and rows written since start. */
  get written(): { batches: number; rows: number } {
    return { batches: this.#batches, rows: this.#written }
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
    this.#queue.push(lineOf(row))
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
    const deadline = performance.now() + deadlineMs
    await this.#writing
    while (this.#queue.length > 0 && performance.now() < deadline) {
      if (!(await this.#writeBatch())) await new Promise((resolve) => setTimeout(resolve, 200))
    }
    if (this.#queue.length > 0)
      this.#logger.error('usage ledger: rows not written at shutdown', { lost: this.#queue.length })
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

  async #writeBatch(): Promise<boolean> {
    const batch = this.#queue.slice(0, this.#batchSize)
    try {
      await this.#database.copyIn('usage_records', COLUMNS, batch)
      this.#queue.splice(0, batch.length)
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
        await this.#database.copyIn('usage_records', COLUMNS, [line])
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
    }
    return true
  }
}
