/**
 * Holders (src/governance/holders.ts): every counter reservation has a live owner, and a dead one's holdings come
 * back without an admin. Each "process" here is a QuotaHolders and its QuotaLeases on one database, on a fake clock:
 * the heartbeats, the time to live and the reconciliation run at the instants the test chooses.
 * tests/e2e/crash-safe-quotas.test.ts does the same with real processes and kill -9.
 */
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import type { Database, DatabaseHandle } from '../../src/db/connect'
import { rowsOf } from '../../src/db/migrate'
import { HOLDER_TTL_MS, HolderLost, QuotaHolders, RECLAIM_BOUND_MS } from '../../src/governance/holders'
import { EMPTY_COUNTER_MS, QuotaLeases } from '../../src/governance/leases'
import { Governance } from '../../src/governance/service'
import { QuotaStore, type QuotaShape } from '../../src/governance/quota-store'
import { estimateRows, type InFlight, journalStatement } from '../../src/usage/journal'
import { freshDatabase } from '../helpers/database'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let database: DatabaseHandle
beforeAll(async () => {
  database = await freshDatabase()
}, 60_000)
afterAll(() => database.close())
// Every process of a test leaves with it, so that the next test's survivors find no holder of its own to reconcile.
const processes: QuotaHolders[] = []
afterEach(async () => {
  for (const holders of processes.splice(0)) await holders.retire()
})

const COUNTER: QuotaShape = { kind: 'counter' }
let seq = 0

/** A fake clock (ms), shared by the processes of one test. */
function fakeClock() {
  let now = Date.parse('2026-11-20T12:00:00Z')
  return { now: () => now, advance: (ms: number) => void (now += ms) }
}

/** One process: its holder and its leases, on `db` (by default the test database). */
function process_(clock: { now: () => number }, options: { exclusive?: boolean; db?: Database } = {}) {
  const db = options.db ?? database.db
  let leases: QuotaLeases
  const holders = new QuotaHolders(db, {
    clock: clock.now,
    exclusive: options.exclusive,
    proofs: estimateRows,
    onLost: () => leases.forgetCounters(),
  })
  leases = new QuotaLeases(new QuotaStore(db, holders), clock.now)
  processes.push(holders)
  return { holders, leases }
}

async function value(tokenId: string, kind: string, period = ''): Promise<number | undefined> {
  const rows = rowsOf<{ value: number }>(
    await database.db.execute(
      sql`select value from quotas where token_id = ${tokenId} and kind = ${kind} and period = ${period}`,
    ),
  )
  return rows[0] === undefined ? undefined : Number(rows[0].value)
}

async function holderExists(id: string): Promise<boolean> {
  return rowsOf(await database.db.execute(sql`select 1 from quota_holders where id = ${id}`)).length > 0
}

const streamsOf = (tokenId: string) => ({ tokenId, kind: 'streams', period: '' })

describe('a holder that stops beating', () => {
  test('is reconciled by a survivor once its heartbeat is older than the time to live: its stream slots come back', async () => {
    const clock = fakeClock()
    const [a, b] = [process_(clock), process_(clock)]
    const quota = streamsOf(`tok_h${seq++}`)
    await Promise.all([a.holders.beat(), b.holders.beat()])
    for (let i = 0; i < 3; i++) expect((await a.leases.take(quota, COUNTER, 3, 1)).ok).toBe(true)
    expect(await value(quota.tokenId, 'streams')).toBe(3)
    expect((await b.leases.take(quota, COUNTER, 3, 1)).ok).toBe(false)

    // a is killed: it beats no more. Just under the time to live, it is still alive.
    clock.advance(HOLDER_TTL_MS - 100)
    expect(await b.holders.beat()).toEqual([])
    expect(await value(quota.tokenId, 'streams')).toBe(3)
    // Past it, the next heartbeat of b reconciles a: every slot is given back.
    clock.advance(200)
    expect(await b.holders.beat()).toEqual([a.holders.id])
    expect(await value(quota.tokenId, 'streams')).toBe(0)
    expect(await holderExists(a.holders.id)).toBe(false)
    // And b takes them (once its belief that the pool is empty has passed).
    clock.advance(EMPTY_COUNTER_MS)
    for (let i = 0; i < 3; i++) expect((await b.leases.take(quota, COUNTER, 3, 1)).ok).toBe(true)
    // The bound the README documents covers the time to live and the survivor's next heartbeat.
    expect(HOLDER_TTL_MS + 1_000).toBeLessThanOrEqual(RECLAIM_BOUND_MS)
  })

  test('slots given back to the lease but not yet to the pool (the 2 s idle) come back too', async () => {
    const clock = fakeClock()
    const [a, b] = [process_(clock), process_(clock)]
    const quota = streamsOf(`tok_h${seq++}`)
    await Promise.all([a.holders.beat(), b.holders.beat()])
    for (let i = 0; i < 3; i++) expect((await a.leases.take(quota, COUNTER, 3, 1)).ok).toBe(true)
    // The streams ended: their slots are back in a's lease, which a would return after 2 s idle; it dies first.
    a.leases.giveBack(quota, COUNTER, 3, 3)
    clock.advance(HOLDER_TTL_MS + 1)
    expect(await b.holders.beat()).toEqual([a.holders.id])
    expect(await value(quota.tokenId, 'streams')).toBe(0)
  })

  test('a survivor judges others only after beating for a whole time to live itself (its start, an outage)', async () => {
    const clock = fakeClock()
    const a = process_(clock)
    const quota = streamsOf(`tok_h${seq++}`)
    await a.holders.beat()
    expect((await a.leases.take(quota, COUNTER, 3, 1)).ok).toBe(true)
    clock.advance(3 * HOLDER_TTL_MS)
    // b starts long after a's last heartbeat, but a may only have been cut off from the database: b waits.
    let down = false
    const flaky = new Proxy(database.db, {
      get: (target, property, receiver) =>
        property === 'execute' && down
          ? () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))
          : Reflect.get(target, property, receiver),
    })
    const b = process_(clock, { db: flaky })
    expect(await b.holders.beat()).toEqual([])
    clock.advance(HOLDER_TTL_MS - 1)
    expect(await b.holders.beat()).toEqual([])
    // b's database goes away for a moment: its count starts again once it is back.
    down = true
    await expect(b.holders.beat()).rejects.toThrow('ECONNREFUSED')
    down = false
    clock.advance(1_000)
    expect(await b.holders.beat()).toEqual([])
    expect(await value(quota.tokenId, 'streams')).toBe(1)
    clock.advance(HOLDER_TTL_MS)
    expect(await b.holders.beat()).toEqual([a.holders.id])
    expect(await value(quota.tokenId, 'streams')).toBe(0)
  })

  test('with exclusive (PGlite: one process per database), every other holder is a dead predecessor at once', async () => {
    const clock = fakeClock()
    const a = process_(clock)
    const quota = streamsOf(`tok_h${seq++}`)
    await a.holders.beat()
    expect((await a.leases.take(quota, COUNTER, 3, 2)).ok).toBe(true)
    const restarted = process_(clock, { exclusive: true })
    expect(await restarted.holders.beat()).toEqual([a.holders.id])
    expect(await value(quota.tokenId, 'streams')).toBe(0)
  })

  test('a holder leaving (retire) gives back what it still holds', async () => {
    const clock = fakeClock()
    const a = process_(clock)
    const quota = streamsOf(`tok_h${seq++}`)
    expect((await a.leases.take(quota, COUNTER, 3, 2)).ok).toBe(true)
    await a.holders.retire()
    expect(await value(quota.tokenId, 'streams')).toBe(0)
    expect(await holderExists(a.holders.id)).toBe(false)
  })
})

describe('a holder declared dead while it was alive (cut off for longer than the time to live)', () => {
  test('changes nothing more: its give-back is dropped (the reconciliation made it), its next take registers anew', async () => {
    const clock = fakeClock()
    const [a, b] = [process_(clock), process_(clock)]
    const quota = streamsOf(`tok_h${seq++}`)
    await Promise.all([a.holders.beat(), b.holders.beat()])
    for (let i = 0; i < 2; i++) expect((await a.leases.take(quota, COUNTER, 3, 1)).ok).toBe(true)
    clock.advance(HOLDER_TTL_MS + 1)
    const lostId = a.holders.id
    expect(await b.holders.beat()).toEqual([lostId])
    expect(await value(quota.tokenId, 'streams')).toBe(0)
    // a does not know yet: its streams end, and it returns their slots to the pool. Given back twice would be -2.
    const generation = a.holders.generation
    a.leases.giveBack(quota, COUNTER, 3, 2)
    await a.leases.returnIdle(0)
    expect(await value(quota.tokenId, 'streams')).toBe(0)
    expect(a.holders.generation).toBe(generation + 1)
    expect(a.holders.id).not.toBe(lostId)
    // Under its new id it takes as any holder does, and what it takes is its own again.
    expect((await a.leases.take(quota, COUNTER, 3, 1)).ok).toBe(true)
    expect(await value(quota.tokenId, 'streams')).toBe(1)
    expect(await holderExists(a.holders.id)).toBe(true)
  })

  test('a take of a lost holder fails with HolderLost (admission retries it), after registering anew', async () => {
    const clock = fakeClock()
    const [a, b] = [process_(clock), process_(clock)]
    const quota = streamsOf(`tok_h${seq++}`)
    await Promise.all([a.holders.beat(), b.holders.beat()])
    expect((await a.leases.take(quota, COUNTER, 3, 1)).ok).toBe(true)
    clock.advance(HOLDER_TTL_MS + 1)
    await b.holders.beat()
    const store = new QuotaStore(database.db, a.holders)
    await expect(store.take(quota, COUNTER, 3, 1, 1)).rejects.toBeInstanceOf(HolderLost)
    expect(await holderExists(a.holders.id)).toBe(true)
    expect(await store.take(quota, COUNTER, 3, 1, 1)).toEqual({ granted: 1, left: 2 })
  })
})

describe('admission across a lost holder (Governance)', () => {
  test('a ticket of the lost holder settles without giving its slot back; the next admission registers anew and counts right', async () => {
    const clock = fakeClock()
    const governance = new Governance(database.db, {
      defaults: {},
      holders: { clock: clock.now, heartbeatMs: 3_600_000 },
    })
    try {
      const principal = { tokenId: `tok_h${seq++}`, limits: { streams: 2 } }
      const admit = () => governance.admitChat(principal, new Request('http://trellis.test/'), 10)
      const first = await admit()
      expect(await value(principal.tokenId, 'streams')).toBe(1)
      // Declared dead by another process: its slot is given back by the reconciliation.
      const other = process_(clock)
      await other.holders.beat()
      clock.advance(HOLDER_TTL_MS + 1)
      expect(await other.holders.beat()).toEqual([first.holder])
      expect(await value(principal.tokenId, 'streams')).toBe(0)
      // Its request ends: the slot was given back already, so it is not given back again (to a lease of the new
      // holder, where it would admit a third stream).
      expect(first.settle(5)).toBeUndefined()
      const second = await admit()
      expect(second.holder).not.toBe(first.holder)
      await admit()
      expect(await value(principal.tokenId, 'streams')).toBe(2)
      await expect(admit()).rejects.toThrow('Too many chat requests in flight')
    } finally {
      await governance.stop()
      await governance.retire()
    }
  })
})

describe('a dead holder of a budget: charged what the journal proves, the rest given back', () => {
  test('two journaled requests become estimate rows (settled false) charged at their tokens; the unused lease comes back', async () => {
    const clock = fakeClock()
    const [a, b] = [process_(clock), process_(clock)]
    const tokenId = `tok_h${seq++}`
    const budget = { tokenId, kind: 'budget', period: '2026-11' }
    await Promise.all([a.holders.beat(), b.holders.beat()])
    // Two requests reserve 400 each; a's lease takes a block of at least that from the budget of 10,000.
    expect((await a.leases.take(budget, COUNTER, 10_000, 400)).ok).toBe(true)
    expect((await a.leases.take(budget, COUNTER, 10_000, 400)).ok).toBe(true)
    const taken = (await value(tokenId, 'budget', '2026-11'))!
    expect(taken).toBeGreaterThanOrEqual(800)
    // Their journal entries, as the ledger writes them: prompts of 12 and 30, 57 and 0 completion tokens counted.
    const entry = (i: number, promptTokens: number, events: number): InFlight => ({
      id: `res-${tokenId}-${i}`,
      holder: a.holders.id,
      at: new Date(clock.now()),
      requestId: `req-${tokenId}-${i}`,
      tokenId,
      owner: 'holders-test',
      model: 'echo',
      streamed: true,
      budgetPeriod: '2026-11',
      budgetUsd: null,
      promptTokens,
      report: { events, provider: 'echo' },
      journaled: true,
      written: -1,
      writtenAt: 0,
    })
    const entries = [entry(0, 12, 57), entry(1, 30, 0)]
    await database.db.execute(journalStatement(entries, [57, 0]))

    clock.advance(HOLDER_TTL_MS + 1)
    expect(await b.holders.beat()).toEqual([a.holders.id])
    expect(await value(tokenId, 'budget', '2026-11')).toBe(12 + 57 + 30)
    const rows = rowsOf<Record<string, unknown>>(
      await database.db.execute(sql`
        select request_id, settled, reservation_id, prompt_tokens, completion_tokens, status, error_code
        from usage_records where token_id = ${tokenId} order by request_id`),
    )
    expect(rows).toEqual([
      {
        request_id: `req-${tokenId}-0`,
        settled: false,
        reservation_id: `res-${tokenId}-0`,
        prompt_tokens: 12,
        completion_tokens: 57,
        status: 200,
        error_code: 'process_died',
      },
      {
        request_id: `req-${tokenId}-1`,
        settled: false,
        reservation_id: `res-${tokenId}-1`,
        prompt_tokens: 30,
        completion_tokens: 0,
        status: 502,
        error_code: 'process_died',
      },
    ])
    const left = rowsOf(await database.db.execute(sql`select 1 from usage_journal where holder_id = ${a.holders.id}`))
    expect(left).toEqual([])
    // A journal write of the dead holder after that (it was alive after all) is refused: no second estimate.
    await database.db.execute(journalStatement(entries, [60, 5]))
    expect(
      rowsOf(await database.db.execute(sql`select 1 from usage_journal where holder_id = ${a.holders.id}`)),
    ).toEqual([])
  })

  test('a money budget: each journaled request is charged its estimate at the rates it reserved at, an unpriced one nothing', async () => {
    const clock = fakeClock()
    const [a, b] = [process_(clock), process_(clock)]
    const tokenId = `tok_h${seq++}`
    const money = { tokenId, kind: 'budget_usd', period: '2026-11' }
    await Promise.all([a.holders.beat(), b.holders.beat()])
    // A $10 budget (10,000,000 micro-dollars): a's lease takes a block of a twentieth for two reservations.
    expect((await a.leases.take(money, COUNTER, 10_000_000, 20_000)).ok).toBe(true)
    expect((await a.leases.take(money, COUNTER, 10_000_000, 20_000)).ok).toBe(true)
    expect(await value(tokenId, 'budget_usd', '2026-11')).toBe(500_000)
    // Reserved at $3.125 a million prompt tokens and $10 a million completion tokens; the third was unpriced.
    const rates = { prompt: 3_125_000, completion: 10_000_000 }
    const entry = (i: number, promptTokens: number, events: number, priced: boolean): InFlight => ({
      id: `res-${tokenId}-${i}`,
      holder: a.holders.id,
      at: new Date(clock.now()),
      requestId: `req-${tokenId}-${i}`,
      tokenId,
      owner: 'holders-test',
      model: 'gpt-test',
      streamed: true,
      budgetPeriod: null,
      budgetUsd: { period: '2026-11', rates: priced ? rates : undefined },
      promptTokens,
      report: { events, provider: 'openai' },
      journaled: true,
      written: -1,
      writtenAt: 0,
    })
    const entries = [entry(0, 12, 57, true), entry(1, 30, 0, true), entry(2, 1_000, 1_000, false)]
    await database.db.execute(journalStatement(entries, [57, 0, 1_000]))

    clock.advance(HOLDER_TTL_MS + 1)
    expect(await b.holders.beat()).toEqual([a.holders.id])
    // 12 × 3.125 + 57 × 10 = 607.5, rounded up: 608; 30 × 3.125 = 93.75: 94; the unpriced one 0. The block is back.
    expect(await value(tokenId, 'budget_usd', '2026-11')).toBe(608 + 94)
    const rows = rowsOf<{ request_id: string; settled: boolean; error_code: string }>(
      await database.db.execute(sql`
        select request_id, settled, error_code from usage_records where token_id = ${tokenId} order by request_id`),
    )
    expect(rows.map((row) => [row.request_id, row.settled, row.error_code])).toEqual([
      [`req-${tokenId}-0`, false, 'process_died'],
      [`req-${tokenId}-1`, false, 'process_died'],
      [`req-${tokenId}-2`, false, 'process_died'],
    ])
  })
})
