import { asc, inArray, sql } from 'drizzle-orm'
import type { Database } from '../db/connect'
import { rowsOf } from '../db/migrate'
import { priceVersions } from '../db/schema'
import type { Prices } from '../config/prices'
import { DEFAULT_PRICES } from './default-prices'
import { type PriceVersion, type Rates, ratesOf } from './prices'

/*
 * The price table's history in the database (`price_versions`), so that every replica prices by the same versions and
 * a ledger row can name the one it was priced by. The rule, from the configuration to the versions:
 * - the table in effect is the default table (src/cost/default-prices.ts) with the configuration's entries over it;
 * - an entry that differs from its model's newest version (rates or `from`) is recorded as a new version, which takes
 *   effect at its `from` date, or at the moment it is recorded when that date is already past: a change never
 *   reaches back before it was made, so a version's period is one in which it really was the price;
 * - a version already in effect is never changed or deleted (a row may name it); one not in effect yet (a future
 *   `from`) that the configuration no longer holds is deleted, since no row can name it yet;
 * - a model that leaves the table keeps its last price: to stop pricing one, give it 0.
 */

/** What the configuration wants for one model. */
type Wanted = { model: string; declaredFrom: string; rates: Rates }

/** The table in effect: the defaults, each replaced whole by a configured entry of the same name. */
function wantedTable(prices: Prices): Wanted[] {
  return Object.entries({ ...DEFAULT_PRICES, ...prices }).map(([model, entry]) => ({
    model,
    declaredFrom: entry.from ?? '1970-01-01',
    rates: ratesOf(entry),
  }))
}

type Row = typeof priceVersions.$inferSelect

const sameRates = (row: Row, rates: Rates) =>
  row.input === rates.input &&
  row.cachedInput === rates.cachedInput &&
  row.cacheWrite === rates.cacheWrite &&
  row.output === rates.output &&
  row.reasoning === rates.reasoning

/**
 * Records what of `prices` is new (see the rule above), in one transaction that holds the table's lock, so that two
 * replicas starting or reloading together record a change once. Returns every version, for the book.
 */
export async function recordVersions(db: Database, prices: Prices): Promise<PriceVersion[]> {
  const wanted = wantedTable(prices)
  await db.transaction(async (tx) => {
    await tx.execute(sql`lock table price_versions in share row exclusive mode`)
    const [{ now }] = rowsOf<{ now: string | Date }>(await tx.execute(sql`select now() as now`)) as [
      { now: string | Date },
    ]
    const at = new Date(now)
    const rows = await tx.select().from(priceVersions).orderBy(asc(priceVersions.from), asc(priceVersions.id))
    const byModel = new Map<string, Row[]>()
    for (const row of rows) byModel.set(row.model, [...(byModel.get(row.model) ?? []), row])
    const stale: number[] = []
    const fresh: (typeof priceVersions.$inferInsert)[] = []
    for (const want of wanted) {
      let versions = byModel.get(want.model) ?? []
      const matches = (row: Row) => row.declaredFrom === want.declaredFrom && sameRates(row, want.rates)
      for (const row of versions) if (row.from > at && !matches(row)) stale.push(row.id)
      versions = versions.filter((row) => !stale.includes(row.id))
      const newest = versions.at(-1)
      if (newest && matches(newest)) continue
      const declared = new Date(`${want.declaredFrom}T00:00:00Z`)
      fresh.push({
        model: want.model,
        declaredFrom: want.declaredFrom,
        from: declared > at ? declared : at,
        ...want.rates,
      })
    }
    if (stale.length) await tx.delete(priceVersions).where(inArray(priceVersions.id, stale))
    if (fresh.length) await tx.insert(priceVersions).values(fresh)
  })
  return loadVersions(db)
}

/** Every recorded version. */
export async function loadVersions(db: Database): Promise<PriceVersion[]> {
  const rows = await db.select().from(priceVersions).orderBy(asc(priceVersions.id))
  return rows.map((row) => ({
    id: String(row.id),
    model: row.model,
    from: row.from,
    rates: {
      input: row.input,
      cachedInput: row.cachedInput,
      cacheWrite: row.cacheWrite,
      output: row.output,
      reasoning: row.reasoning,
    },
  }))
}
