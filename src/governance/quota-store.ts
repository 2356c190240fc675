import { sql } from 'drizzle-orm'
import type { Database } from '../db/connect'
import { rowsOf } from '../db/migrate'

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

/**
 * The shared side of quota leases: every replica takes units from, and gives them back to, rows
 * that PostgreSQL updates atomically, one statement each, so replicas never admit more than the
 * limit between them. A grant is all or part of what was asked, never less than `atLeast`.
 */
export class QuotaStore {
  constructor(private readonly db: Database) {}

  async take(key: QuotaKey, shape: QuotaShape, limit: number, want: number, atLeast: number): Promise<Grant> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const updated = rowsOf<{ granted: number; left: number }>(
        await this.db.execute(this.#takeStatement(key, shape, limit, want, atLeast)),
      )
      if (updated.length > 0) return { granted: Number(updated[0]!.granted), left: Number(updated[0]!.left) }
      // First use of this row: created full (or empty, for a counter) with the grant taken out.
      const granted = Math.min(want, limit) >= atLeast ? Math.min(want, limit) : 0
      const initial = shape.kind === 'bucket' ? limit - granted : granted
      const inserted = rowsOf(
        await this.db.execute(sql`
          insert into quotas (token_id, kind, period, value, updated_at) values (${key.tokenId}, ${key.kind}, ${key.period}, ${initial}, now())
          on conflict (token_id, kind, period) do nothing returning 1`),
      )
      if (inserted.length > 0) return { granted, left: limit - granted }
      // Another replica created it meanwhile: take from it.
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
    } else {
      await this.db.execute(sql`
        update quotas set value = greatest(0, value - ${units}::float8), updated_at = now()
        where token_id = ${key.tokenId} and kind = ${key.kind} and period = ${key.period}`)
    }
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
    } else {
      await this.db.execute(sql`
        insert into quotas (token_id, kind, period, value, updated_at) values (${key.tokenId}, ${key.kind}, ${key.period}, ${units}, now())
        on conflict (token_id, kind, period) do update set value = quotas.value + ${units}::float8, updated_at = now()`)
    }
  }

  #takeStatement(key: QuotaKey, shape: QuotaShape, limit: number, want: number, atLeast: number) {
    // `available` as of now: a bucket refilled since its last update (never above the limit, which
    // may have been lowered), or a counter's headroom under the limit (which may have been raised).
    const available =
      shape.kind === 'bucket'
        ? sql`least(${limit}::float8, value + ${limit / shape.refillSeconds}::float8 * greatest(0, extract(epoch from (now() - updated_at))))`
        : sql`(${limit}::float8 - value)`
    const next = shape.kind === 'bucket' ? sql`c.available - c.granted` : sql`q.value + c.granted`
    return sql`
      update quotas q set value = ${next}, updated_at = now()
      from (
        select token_id, kind, period, available,
               case when available >= ${atLeast}::float8 then least(${want}::float8, floor(available)) else 0 end as granted
        from (select token_id, kind, period, ${available} as available from quotas
              where token_id = ${key.tokenId} and kind = ${key.kind} and period = ${key.period} for update) a
      ) c
      where q.token_id = c.token_id and q.kind = c.kind and q.period = c.period
      returning c.granted as granted, c.available - c.granted as left`
  }
}
