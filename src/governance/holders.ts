import { type SQL, sql } from 'drizzle-orm'
import type { Database } from '../db/connect'
import { rowsOf } from '../db/migrate'
import { unref } from '../timers'

/**
 * Every reservation of a counter (a stream slot, tokens of a budget) has an owner that is alive: the process that
 * took it, registered in `quota_holders` and beating every {@link HEARTBEAT_MS}. A holder whose heartbeat is older
 * than {@link HOLDER_TTL_MS} is dead, and the first survivor to notice reconciles what it held, in one transaction:
 * - what the ledger can prove its requests used (its journal, turned into estimate rows by `proofs`) is charged;
 * - everything else it held in `quota_holdings` (its leases, the rest of its reservations) is given back.
 *
 * So a dead process's holdings are back within {@link RECLAIM_BOUND_MS} of its last heartbeat, without an admin:
 * at most HOLDER_TTL_MS for the heartbeat to go stale, plus one survivor's heartbeat to notice it.
 *
 * A survivor declares others dead only after it has itself beaten for a whole HOLDER_TTL_MS without a failure: after
 * a database outage, or at its own start, every live holder first gets the time to beat again. A holder declared dead
 * while it was alive (cut off from the database for longer than that) learns it at its next statement or heartbeat
 * ({@link QuotaHolders.lost}): it forgets what it held, which was reconciled, and registers again under a new id.
 * Its statements on counters lock its `quota_holders` row (`for key share`), so none of them lands after the
 * reconciliation that deleted it; and it admits from what it holds in memory only while its last heartbeat is
 * {@link QuotaHolders.trusted} (under 3 s old, where others wait 5 s): past that, an admission beats first.
 *
 * On PGlite a single process holds the database (src/db/data-dir-lock.ts): every other holder is a predecessor that
 * died, reconciled at the first heartbeat (`exclusive`).
 */
export const HEARTBEAT_MS = 1_000
export const HOLDER_TTL_MS = 5_000
/** The bound the README documents: HOLDER_TTL_MS to go stale, a heartbeat to notice, and room for a slow one. */
export const RECLAIM_BOUND_MS = 10_000

/**
 * What a dead holder's journal proves it used from one budget: `kind` `budget` (tokens) or `budget_usd`
 * (micro-dollars), `period` its month.
 */
export type Charge = { tokenId: string; kind: string; period: string; units: number }

/**
 * Turns the journal of a dead holder into estimate rows, inside the reconciling transaction, and says what they
 * charge (see src/usage/journal.ts). The ledger belongs to a room above governance, so it is handed in.
 */
type Proofs = (tx: Database, holder: string) => Promise<Charge[]>

/** A statement found this process's holder gone: it was declared dead, and has registered again under a new id. */
export class HolderLost extends Error {
  constructor() {
    super('this process was declared dead by another replica; what it held was reconciled')
    this.name = 'HolderLost'
  }
}

export type HoldersOptions = {
  proofs?: Proofs
  /** Every other holder is dead (PGlite: one process per database). */
  exclusive?: boolean
  /** Tests: a fake clock in ms. Timestamps are then this clock's instead of the database's `now()`. */
  clock?: () => number
  heartbeatMs?: number
  ttlMs?: number
  /** Told when this process's holder was lost: what it held is forgotten (QuotaLeases.forgetCounters). */
  onLost?: () => void
  /** Told of a heartbeat that failed (the database away); the next one tries again. */
  onError?: (error: unknown) => void
  /** Told of each dead holder reconciled. */
  onReconciled?: (holder: string) => void
}

export class QuotaHolders {
  readonly #db: Database
  readonly #options: HoldersOptions
  readonly #ttlMs: number
  #id = newId()
  #generation = 0
  #registered: Promise<void> | undefined
  /** Since when every heartbeat succeeded (this clock); undefined after a failure. */
  #healthySince: number | undefined
  /** When the database last confirmed this holder alive (this clock). */
  #confirmedAt: number | undefined
  #beating: Promise<string[]> | undefined
  #timer: ReturnType<typeof setInterval> | undefined
  #retired = false

  constructor(db: Database, options: HoldersOptions = {}) {
    this.#db = db
    this.#options = options
    this.#ttlMs = options.ttlMs ?? HOLDER_TTL_MS
  }

  /** This process's holder id now (it changes when the holder is lost). */
  get id(): string {
    return this.#id
  }

  /** Changes whenever the holder is lost: reservations taken under an earlier one are no longer this process's. */
  get generation(): number {
    return this.#generation
  }

  /**
   * True while the database confirmed this holder less than 3/5 of the time to live ago (3 s): what it holds is then
   * surely still its own, since others declare it dead only after the whole time to live. Past that, an admission that
   * would use its holdings beats first (src/governance/service.ts).
   */
  get trusted(): boolean {
    return this.#confirmedAt !== undefined && this.#clock() - this.#confirmedAt < (this.#ttlMs * 3) / 5
  }

  /** The holder id, once registered (registering it if needed). */
  async current(): Promise<string> {
    const id = this.#id
    this.#registered ??= this.#register(id)
    await this.#registered
    return id
  }

  /** Starts beating (unref'd: it keeps no process alive). */
  start(): void {
    this.#timer ??= unref(
      setInterval(() => void this.beat().catch(() => {}), this.#options.heartbeatMs ?? HEARTBEAT_MS),
    )
  }

  /**
   * One heartbeat: this holder's (registering it first if needed), then the reconciliation of the holders found dead.
   * Returns the holders reconciled. Concurrent calls share one beat.
   */
  beat(): Promise<string[]> {
    this.#beating ??= this.#beat().finally(() => (this.#beating = undefined))
    return this.#beating
  }

  /**
   * `id` was found gone (declared dead): forget what it held and register again under a new id. Does nothing when the
   * holder has already moved on from `id`.
   */
  async lost(id: string): Promise<void> {
    if (id !== this.#id || this.#retired) return
    this.#id = newId()
    this.#generation++
    this.#registered = undefined
    this.#confirmedAt = undefined
    this.#options.onLost?.()
    await this.current()
  }

  /**
   * Reconciles `holder` if it is dead (its heartbeat stale; any other holder with `exclusive`; itself with `self`):
   * deletes it, charges what its journal proves, gives back the rest of its holdings. False when it was not dead, or
   * someone else reconciled it first.
   */
  reconcile(holder: string, self = false): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      const stale = self || this.#options.exclusive ? sql`true` : sql`heartbeat_at < ${this.#stale()}`
      const claimed = rowsOf(
        await tx.execute(sql`delete from quota_holders where id = ${holder} and ${stale} returning id`),
      )
      if (claimed.length === 0) return false
      const charges = (await this.#options.proofs?.(tx, holder)) ?? []
      // Per counter: back = what it held - what its journal proves it used (negative: charged beyond its holding).
      await tx.execute(sql`
        with held as (delete from quota_holdings where holder_id = ${holder} returning token_id, kind, period, units),
        proven as (select token_id, kind, period, units
                   from jsonb_to_recordset(${JSON.stringify(charges.map(chargeRow))}::jsonb)
                   as c(token_id text, kind text, period text, units float8)),
        back as (select token_id, kind, period, coalesce(held.units, 0) - coalesce(proven.units, 0) as units
                 from held full join proven using (token_id, kind, period))
        update quotas q set value = greatest(0, q.value - back.units), updated_at = now()
        from back
        where q.token_id = back.token_id and q.kind = back.kind and q.period = back.period and back.units <> 0`)
      this.#options.onReconciled?.(holder)
      return true
    })
  }

  /**
   * Stops beating and reconciles this holder itself, as a death: after a clean drain it holds nothing (its leases
   * went back, the ledger wrote its rows), so this only tidies up; what is left is given back or charged as if it
   * had died.
   */
  async retire(): Promise<void> {
    clearInterval(this.#timer)
    this.#timer = undefined
    await this.#beating?.catch(() => {})
    this.#retired = true
    if (this.#registered) await this.reconcile(this.#id, true)
  }

  async #beat(): Promise<string[]> {
    const id = this.#id
    try {
      await this.current()
      const [row] = rowsOf<{ alive: number; stale: string[] }>(
        await this.#db.execute(sql`
          with beat as (update quota_holders set heartbeat_at = ${this.#now()} where id = ${id} returning id)
          select (select count(*) from beat)::int as alive,
                 array(select id from quota_holders
                       where id <> ${id} and (${this.#options.exclusive === true} or heartbeat_at < ${this.#stale()})
                       order by id) as stale`),
      )
      if (!row || Number(row.alive) === 0) {
        this.#healthySince = undefined
        await this.lost(id)
        return []
      }
      const now = this.#clock()
      this.#confirmedAt = now
      this.#healthySince ??= now
      // Only a holder that has beaten for a whole time to live may judge others: after an outage they beat again first.
      if (!this.#options.exclusive && now - this.#healthySince < this.#ttlMs) return []
      const reconciled: string[] = []
      for (const dead of row.stale ?? []) if (await this.reconcile(dead)) reconciled.push(dead)
      return reconciled
    } catch (error) {
      this.#healthySince = undefined
      this.#options.onError?.(error)
      throw error
    }
  }

  async #register(id: string): Promise<void> {
    try {
      await this.#db.execute(
        sql`insert into quota_holders (id, started_at, heartbeat_at) values (${id}, ${this.#now()}, ${this.#now()})`,
      )
      if (this.#id === id) this.#confirmedAt = this.#clock()
    } catch (error) {
      // Registered by the next call (a heartbeat, a take) instead.
      if (this.#id === id) this.#registered = undefined
      throw error
    }
  }

  #clock(): number {
    return this.#options.clock?.() ?? performance.now()
  }

  /** The time of the heartbeat: the database's, shared by every replica, or the fake clock's. */
  #now(): SQL {
    const clock = this.#options.clock
    return clock ? sql`${new Date(clock()).toISOString()}::timestamptz` : sql`now()`
  }

  #stale(): SQL {
    return sql`${this.#now()} - ${this.#ttlMs}::float8 * interval '1 millisecond'`
  }
}

const newId = () => `h_${crypto.randomUUID()}`

const chargeRow = (charge: Charge) => ({
  token_id: charge.tokenId,
  kind: charge.kind,
  period: charge.period,
  units: charge.units,
})
