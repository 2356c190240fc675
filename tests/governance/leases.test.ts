/**
 * Quota leases (src/governance/leases.ts): replicas sharing one pool never admit more than the
 * limit between them, and a burst is cut short of it by at most what the other replicas hold.
 * Here each "replica" is a QuotaLeases of its own on one database; tests/e2e/governance-replicas.test.ts
 * does the same with real processes.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { DatabaseHandle } from '../../src/db/connect'
import { EMPTY_COUNTER_MS, LEASE_IDLE_MS, QuotaLeases } from '../../src/governance/leases'
import { QuotaStore, type QuotaShape } from '../../src/governance/quota-store'
import { freshDatabase } from '../helpers/database'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let database: DatabaseHandle
beforeAll(async () => {
  database = await freshDatabase()
}, 60_000)
afterAll(() => database.close())

const BUCKET: QuotaShape = { kind: 'bucket', refillSeconds: 60 }
const COUNTER: QuotaShape = { kind: 'counter' }
let tokenSeq = 0
const key = (kind: string) => ({ tokenId: `tok_lease${tokenSeq++}`, kind, period: '' })

/** Takes one unit at a time through `replicas`, round robin, `tries` times in all, concurrently. */
async function burst(
  replicas: QuotaLeases[],
  quota: ReturnType<typeof key>,
  shape: QuotaShape,
  limit: number,
  tries: number,
) {
  const outcomes = await Promise.all(
    Array.from({ length: tries }, (_, i) => replicas[i % replicas.length]!.take(quota, shape, limit, 1)),
  )
  return outcomes.filter((taken) => taken.ok).length
}

describe('several replicas, one pool', () => {
  for (const replicas of [1, 2, 4]) {
    test(`${replicas} replica(s) admit at most the limit between them, and at least the limit less what the others hold`, async () => {
      const store = new QuotaStore(database.db)
      const leases = Array.from({ length: replicas }, () => new QuotaLeases(store))
      const limit = 200
      // Refilled by the hour (one unit per 18 s), so that a burst slowed by a loaded machine earns no refill meanwhile:
      // at 200 a minute, 341 ms of burst refilled one unit, and 201 admitted was right, not an overshoot.
      const hourly: QuotaShape = { kind: 'bucket', refillSeconds: 3_600 }
      const admitted = await burst(leases, key('rpm'), hourly, limit, 1000)
      expect(admitted).toBeLessThanOrEqual(limit)
      // The bound on under-admission: each other replica holds at most one block (limit / 20) unused.
      expect(admitted).toBeGreaterThanOrEqual(limit - (replicas - 1) * (limit / 20))
    })
  }

  test('a counter (streams in flight): units given back are taken again; idle leases return theirs to the pool', async () => {
    const store = new QuotaStore(database.db)
    const [a, b] = [new QuotaLeases(store), new QuotaLeases(store)]
    const quota = key('streams')
    expect(await burst([a], quota, COUNTER, 4, 4)).toBe(4)
    expect((await b.take(quota, COUNTER, 4, 1)).ok).toBe(false)
    a.giveBack(quota, COUNTER, 4, 4)
    // Given back to a's lease, not yet to the pool: b still waits...
    expect((await b.take(quota, COUNTER, 4, 1)).ok).toBe(false)
    // ...until a's lease has been idle long enough and is returned (and b, refused, asks the pool again).
    await a.returnIdle(0)
    await Bun.sleep(EMPTY_COUNTER_MS + 50)
    expect((await b.take(quota, COUNTER, 4, 1)).ok).toBe(true)
    expect(LEASE_IDLE_MS).toBeLessThanOrEqual(2_000)
  })

  test('a bucket holds its limit, then refills at limit per period', async () => {
    const leases = new QuotaLeases(new QuotaStore(database.db))
    // Exhausted: with 600 an hour (one per 6 s), a slow runner's burst cannot earn a refill meanwhile.
    const hourly = key('rpm')
    expect(await burst([leases], hourly, { kind: 'bucket', refillSeconds: 3_600 }, 600, 600)).toBe(600)
    expect((await leases.take(hourly, { kind: 'bucket', refillSeconds: 3_600 }, 600, 1)).ok).toBe(false)
    // Refilled: 600 a minute is 10 a second, so 250 ms later there is more, however long the burst took.
    const quota = key('rpm')
    expect(await burst([leases], quota, BUCKET, 600, 600)).toBe(600)
    await Bun.sleep(250)
    expect((await leases.take(quota, BUCKET, 600, 1)).ok).toBe(true)
  })

  test('a refusal says how many units were missing, for Retry-After', async () => {
    const leases = new QuotaLeases(new QuotaStore(database.db))
    const quota = key('tpm')
    expect((await leases.take(quota, BUCKET, 1000, 900)).ok).toBe(true)
    const refused = await leases.take(quota, BUCKET, 1000, 300)
    expect(refused.ok).toBe(false)
    if (!refused.ok) expect(refused.shortBy).toBeGreaterThanOrEqual(199)
  })

  test('usage over its reservation is charged to the pool, which may stand below zero for a while', async () => {
    const store = new QuotaStore(database.db)
    const [a, b] = [new QuotaLeases(store), new QuotaLeases(store)]
    const quota = key('tpm')
    expect((await a.take(quota, BUCKET, 1000, 1000)).ok).toBe(true)
    await a.charge(quota, BUCKET, 1000, 500)
    expect((await b.take(quota, BUCKET, 1000, 1)).ok).toBe(false)
  })
})
