import { type SQL, sql } from 'drizzle-orm'
import type { Database } from '../db/connect'
import { rowsOf } from '../db/migrate'
import { HolderLost } from './holders'

/**
 * How one kind of quota behaves in the shared table (`quotas`, see src/db/schema.ts):
 * - a `bucket` holds the units available, refilled continuously at `limit` per `refillSeconds`
 *   up to `limit` (requests or tokens per minute);
 * - a `counter` holds the units in use; `limit - used` are available (streams in flight, tokens
 *   spent this month).
 */
export type QuotaShape = { kind: 'bucket'; refillSeconds: number } | { kind: 'counter' }

/** One row of the table: whose, which kind, which period ('' for all time, 'YYYY-MM' for a month). */
export type QuotaKey = { tokenId: string; kind: string; period: string }

/** What a take got: units granted, and what the shared pool holds after it. */
export type Grant = { granted: number; left: number }

/** The process that takes from counters (src/governance/holders.ts): whose `quota_holdings` they keep. */
export type Holder = { current(): Promise<string>; lost(id: string): Promise<void> }

/**
 * The shared side of quota leases: every replica takes units from, and gives them back to, rows
 * that PostgreSQL updates atomically, one statement each, so replicas never admit more than the
 * limit between them. A grant is all or part of what was asked, never less than `atLeast`.
 *
 * With a `holder`, the statements on a counter also keep what this process holds of it in
 * `quota_holdings`, in the same statement (no round trip of their own), and only while the
 * holder is registered: a holder declared dead changes nothing more, and learns it
 * ({@link HolderLost} from a take). Buckets refill by themselves and are not held.
 */
export class QuotaStore {
  constructor(
    private readonly db: Database,
    private readonly holder?: Holder,
  ) {}

  async take(key: QuotaKey, shape: QuotaShape, limit: number, want: number, atLeast: number): Promise<Grant> {
    const holder = shape.kind === 'counter' ? await this.holder?.current() : undefined
    for (let attempt = 0; attempt < 3; attempt++) {
      const updated = rowsOf<{ granted: number; left: number }>(
        await this.db.execute(this.#takeStatement(key, shape, limit, want, atLeast, holder)),
      )
      if (updated.length > 0) return { granted: Number(updated[0]!.granted), left: Number(updated[0]!.left) }
      // First use of this row: created full (or empty, for a counter) with the grant taken out.
      const granted = Math.min(want, limit) >= atLeast ? Math.min(want, limit) : 0
      const initial = shape.kind === 'bucket' ? limit - granted : granted
      const inserted = rowsOf(
        await this.db.execute(sql`
          with created as (
            insert into quotas (token_id, kind, period, value, updated_at)
            select ${key.tokenId}, ${key.kind}, ${key.period}, ${initial}, now() where ${alive(holder)}
            on conflict (token_id, kind, period) do nothing returning 1)
          ${held(holder, key, sql`(select ${granted}::float8 from created where ${granted}::float8 > 0)`)}
          select 1 from created`),
      )
      if (inserted.length > 0) return { granted, left: limit - granted }
      // Another replica created it meanwhile (take from it), or this holder is gone.
      if (holder !== undefined) await this.#checkHolder(holder)
    }
    throw new Error(`quota row ${key.tokenId}/${key.kind}/${key.period} could not be taken from`)
  }

  /** Gives back units taken and not used (a lease that ran out, a stream that ended, a reservation settled low). */
  async give(key: QuotaKey, shape: QuotaShape, limit: number, units: number): Promise<void> {
    if (units <= 0) return
    if (shape.kind === 'bucket') {
      const rate = limit / shape.refillSeconds
      await this.db.execute(sql`
        update quotas
        set value = least(${limit}::float8, value + ${rate}::float8 * greatest(0, extract(epoch from (now() - updated_at))) + ${units}::float8),
            updated_at = now()
        where token_id = ${key.tokenId} and kind = ${key.kind} and period = ${key.period}`)
      return
    }
    const holder = await this.holder?.current()
    await this.#onCounter(
      holder,
      sql`
        with given as (
          update quotas set value = greatest(0, value - ${units}::float8), updated_at = now()
          where token_id = ${key.tokenId} and kind = ${key.kind} and period = ${key.period} and ${alive(holder)}
          returning 1)
        ${held(holder, key, sql`(select ${-units}::float8 from given limit 1)`)}
        select ${alive(holder)} as alive`,
    )
  }

  /** Takes units beyond the limit, for usage that turned out larger than its reservation (a counter may exceed it). */
  async charge(key: QuotaKey, shape: QuotaShape, limit: number, units: number): Promise<void> {
    if (units <= 0) return
    if (shape.kind === 'bucket') {
      const rate = limit / shape.refillSeconds
      await this.db.execute(sql`
        update quotas
        set value = least(${limit}::float8, value + ${rate}::float8 * greatest(0, extract(epoch from (now() - updated_at)))) - ${units}::float8,
            updated_at = now()
        where token_id = ${key.tokenId} and kind = ${key.kind} and period = ${key.period}`)
      return
    }
    const holder = await this.holder?.current()
    await this.#onCounter(
      holder,
      sql`
        with charged as (
          insert into quotas (token_id, kind, period, value, updated_at)
          select ${key.tokenId}, ${key.kind}, ${key.period}, ${units}, now() where ${alive(holder)}
          on conflict (token_id, kind, period) do update set value = quotas.value + ${units}::float8, updated_at = now()
          returning 1)
        ${held(holder, key, sql`(select ${units}::float8 from charged)`)}
        select ${alive(holder)} as alive`,
    )
  }

  /** Runs a give or a charge; a holder found gone is told (what it held was reconciled, so nothing is lost). */
  async #onCounter(holder: string | undefined, statement: SQL): Promise<void> {
    const [row] = rowsOf<{ alive: boolean }>(await this.db.execute(statement))
    if (holder !== undefined && row && !row.alive) await this.holder!.lost(holder)
  }

  async #checkHolder(holder: string): Promise<void> {
    const found = rowsOf(await this.db.execute(sql`select 1 from quota_holders where id = ${holder}`))
    if (found.length > 0) return
    await this.holder!.lost(holder)
    throw new HolderLost()
  }

  #takeStatement(
    key: QuotaKey,
    shape: QuotaShape,
    limit: number,
    want: number,
    atLeast: number,
    holder: string | undefined,
  ) {
    // `available` as of now: a bucket refilled since its last update (never above the limit, which
    // may have been lowered), or a counter's headroom under the limit (which may have been raised).
    const available =
      shape.kind === 'bucket'
        ? sql`least(${limit}::float8, value + ${limit / shape.refillSeconds}::float8 * greatest(0, extract(epoch from (now() - updated_at))))`
        : sql`(${limit}::float8 - value)`
    const next = shape.kind === 'bucket' ? sql`c.available - c.granted` : sql`q.value + c.granted`
    const update = sql`
      update quotas q set value = ${next}, updated_at = now()
      from (
        select token_id, kind, period, available,
               case when available >= ${atLeast}::float8 then least(${want}::float8, floor(available)) else 0 end as granted
        from (select token_id, kind, period, ${available} as available from quotas
              where token_id = ${key.tokenId} and kind = ${key.kind} and period = ${key.period} and ${alive(holder)}
              for update) a
      ) c
      where q.token_id = c.token_id and q.kind = c.kind and q.period = c.period
      returning c.granted as granted, c.available - c.granted as left`
    if (holder === undefined) return update
    return sql`
      with taken as (${update})
      ${held(holder, key, sql`(select granted from taken where granted > 0)`)}
      select granted, "left" from taken`
  }
}

/**
 * True while `holder` is registered, and then locked against its reconciliation until the statement's transaction
 * ends (`for key share`: heartbeats go on, the delete that declares it dead waits). Always true without a holder.
 */
function alive(holder: string | undefined): SQL {
  if (holder === undefined) return sql`true`
  return sql`exists (select 1 from quota_holders where id = ${holder} for key share)`
}

/**
 * A CTE (with its leading comma, after the statement's own) adding `units` (a scalar subquery: no row, no change) to
 * what `holder` holds of `key`; nothing without a holder.
 */
function held(holder: string | undefined, key: QuotaKey, units: SQL): SQL {
  if (holder === undefined) return sql``
  return sql`, holding as (
    insert into quota_holdings (holder_id, token_id, kind, period, units)
    select ${holder}, ${key.tokenId}, ${key.kind}, ${key.period}, u from (select ${units} as u) x where u is not null
    on conflict (holder_id, token_id, kind, period) do update set units = quota_holdings.units + excluded.units)`
}
