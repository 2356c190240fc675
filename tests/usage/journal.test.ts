/**
 * The journal of requests in flight (src/usage/journal.ts) and the ledger batches that settle it: a request still in
 * flight a moment after admission is journaled with the tokens counted so far; its row, when written, deletes the
 * entry and takes what it spent off its holder's holdings in the same transaction; a short request never touches the
 * journal; and an entry a survivor turned into an estimate keeps the request at one row, whatever arrives later.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import type { DatabaseHandle } from '../../src/db/connect'
import { rowsOf } from '../../src/db/migrate'
import { QuotaHolders } from '../../src/governance/holders'
import { QuotaLeases } from '../../src/governance/leases'
import { QuotaStore } from '../../src/governance/quota-store'
import { createLogger } from '../../src/telemetry/logger'
import { estimateRows, JOURNAL_MS } from '../../src/usage/journal'
import { type Admission, UsageLedger, type UsageRow } from '../../src/usage/ledger'
import { freshDatabase } from '../helpers/database'
import { recordVersions } from '../../src/cost/versions'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let database: DatabaseHandle
beforeAll(async () => {
  database = await freshDatabase()
}, 60_000)
afterAll(() => database.close())

let seq = 0

/** A holder holding a budget block of 500 (of 10,000) for a new token, and a ledger that writes only when told. */
async function setup() {
  const tokenId = `tok_j${seq++}`
  const holders = new QuotaHolders(database.db, { proofs: estimateRows })
  const leases = new QuotaLeases(new QuotaStore(database.db, holders))
  const key = { tokenId, kind: 'budget', period: '2026-11' }
  expect((await leases.take(key, { kind: 'counter' }, 10_000, 500)).ok).toBe(true)
  const logs: Record<string, unknown>[] = []
  const ledger = new UsageLedger(
    database,
    createLogger('info', (line) => logs.push(JSON.parse(line))),
    { flushMs: 60_000 },
  )
  const admission = (name: string, report: { events: number }): Admission => ({
    id: `res-${tokenId}-${name}`,
    holder: holders.id,
    at: new Date(),
    requestId: `req-${tokenId}-${name}`,
    tokenId,
    owner: 'journal-test',
    model: 'echo',
    streamed: true,
    budgetPeriod: '2026-11',
    promptTokens: 10,
    report,
  })
  const row = (name: string, completion: number): UsageRow => ({
    at: new Date(),
    request_id: `req-${tokenId}-${name}`,
    token_id: tokenId,
    owner: 'journal-test',
    model: 'echo',
    provider: 'echo',
    upstream_model: 'echo',
    streamed: true,
    status: 200,
    finish_reason: 'stop',
    prompt_tokens: 10,
    completion_tokens: completion,
    cached_tokens: 0,
    reasoning_tokens: 0,
    cache_write_tokens: 0,
    cost_micros: 0,
    price_version: null,
    ttft_ms: 1,
    duration_ms: 1,
    error_code: null,
  })
  const query = async <T>(statement: ReturnType<typeof sql>) => rowsOf<T>(await database.db.execute(statement))
  const holdings = async () =>
    Number(
      (await query<{ units: number }>(sql`select units from quota_holdings where token_id = ${tokenId}`))[0]?.units,
    )
  const journal = () =>
    query<{ id: string; completion_tokens: number }>(
      sql`select id, completion_tokens from usage_journal where token_id = ${tokenId} order by id`,
    )
  const rows = () =>
    query<{ request_id: string; settled: boolean; reservation_id: string | null; completion_tokens: number }>(
      sql`select request_id, settled, reservation_id, completion_tokens from usage_records
          where token_id = ${tokenId} order by request_id`,
    )
  const settlement = (units: number) => ({ holder: holders.id, key, units })
  return { tokenId, holders, ledger, logs, admission, row, holdings, journal, rows, settlement }
}

describe('the journal', () => {
  test('a long request is journaled with its tokens; its row deletes the entry and spends from the holdings at once; a short one never journals', async () => {
    const s = await setup()
    expect(await s.holdings()).toBe(500)
    const report = { events: 0 }
    const long = s.ledger.begin(s.admission('long', report))
    // A short request: admitted and done before the journal's next look; its row alone says it all.
    const short = s.ledger.begin(s.admission('short', { events: 0 }))
    s.ledger.record(s.row('short', 10), s.settlement(20), short)
    report.events = 7
    await Bun.sleep(JOURNAL_MS * 2 + 100)
    expect(await s.journal()).toEqual([{ id: long.id, completion_tokens: 7 }])
    expect(s.ledger.inFlight).toBe(1)

    s.ledger.record(s.row('long', 40), s.settlement(50), long)
    expect(await s.ledger.flush()).toBe(true)
    expect(await s.journal()).toEqual([])
    expect(await s.rows()).toEqual([
      { request_id: `req-${s.tokenId}-long`, settled: true, reservation_id: long.id, completion_tokens: 40 },
      { request_id: `req-${s.tokenId}-short`, settled: true, reservation_id: null, completion_tokens: 10 },
    ])
    // 20 + 50 spent: the holder holds the rest of its block, which alone would come back if it died now.
    expect(await s.holdings()).toBe(430)
    await s.ledger.stop()
    await s.holders.retire()
  })

  test('an entry turned into an estimate (its holder declared dead) keeps the request at one row: the late row is refused', async () => {
    const s = await setup()
    const report = { events: 3 }
    const entry = s.ledger.begin(s.admission('late', report))
    await Bun.sleep(JOURNAL_MS * 2 + 100)
    expect(await s.journal()).toEqual([{ id: entry.id, completion_tokens: 3 }])
    // Declared dead (as a survivor would after the time to live): the entry becomes an estimate, charged at 10 + 3.
    expect(await s.holders.reconcile(s.holders.id, true)).toBe(true)
    expect(await s.rows()).toEqual([
      { request_id: `req-${s.tokenId}-late`, settled: false, reservation_id: entry.id, completion_tokens: 3 },
    ])
    // The process was alive after all, and its row arrives: refused by the unique reservation, logged, not doubled.
    s.ledger.record(s.row('late', 9), s.settlement(19), entry)
    expect(await s.ledger.flush()).toBe(true)
    expect(s.ledger.dropped).toBe(1)
    expect(s.logs.some((line) => line.msg === 'usage ledger: row refused and dropped')).toBe(true)
    expect((await s.rows()).length).toBe(1)
    await s.ledger.stop()
  })

  test("an estimate is priced by its model's version then: the prompt at input, the completion at output", async () => {
    const versions = await recordVersions(database.db, { 'journal-priced': { input: 2, output: 8 } })
    const version = versions.find((each) => each.model === 'journal-priced')!
    const s = await setup()
    const entry = s.ledger.begin({ ...s.admission('priced', { events: 3 }), model: 'journal-priced' })
    await Bun.sleep(JOURNAL_MS * 2 + 100)
    expect(await s.holders.reconcile(s.holders.id, true)).toBe(true)
    const [row] = rowsOf<{ cost_micros: string; price_version: number }>(
      await database.db.execute(
        sql`select cost_micros::text, price_version from usage_records where reservation_id = ${entry.id}`,
      ),
    )
    // 10 prompt tokens (as estimated) × $2 + 3 completion tokens (as counted) × $8, per million: 20 + 24 µ$.
    expect(row).toEqual({ cost_micros: '44', price_version: Number(version.id) })
    await s.ledger.stop()
  })
})
