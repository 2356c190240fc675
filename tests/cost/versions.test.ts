/**
 * The price table's history: the configuration's prices (over the default table) are recorded as versions in the
 * database, a change applies from its date (or from the moment it is recorded, when that date is past) and never
 * rewrites the past; rows keep the version and the cost they were made with. Through a config file and its reload.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { DEFAULT_PRICES } from '../../src/cost/default-prices'
import { loadVersions, recordVersions } from '../../src/cost/versions'
import { Pricing } from '../../src/cost/pricing'
import { createLogger } from '../../src/telemetry/logger'
import { priceVersions, usageRecords } from '../../src/db/schema'
import type { DatabaseHandle } from '../../src/db/connect'
import { freshDatabase } from '../helpers/database'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const TODAY = new Date().toISOString().slice(0, 10)

describe('recording versions', () => {
  let database: DatabaseHandle
  beforeAll(async () => {
    database = await freshDatabase()
  }, SETUP_TIMEOUT)
  afterAll(() => database.close(), SETUP_TIMEOUT)

  const of = async (model: string) => (await loadVersions(database.db)).filter((each) => each.model === model)

  test('the default table is recorded; recording the same table again adds nothing', async () => {
    await recordVersions(database.db, {})
    const first = await loadVersions(database.db)
    expect(first.map((each) => each.model).sort()).toEqual(Object.keys(DEFAULT_PRICES).sort())
    await recordVersions(database.db, {})
    expect(await loadVersions(database.db)).toEqual(first)
  })

  test('a configured entry replaces the default from when it is recorded: its past date does not reach back', async () => {
    const before = new Date()
    await recordVersions(database.db, { 'gpt-4o-mini': { input: 1, output: 2, from: '2020-01-01' } })
    const versions = await of('gpt-4o-mini')
    expect(versions).toHaveLength(2)
    const [old, fresh] = versions
    expect(fresh!.from.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1_000)
    expect(fresh!.rates).toEqual({
      input: 1_000_000,
      cachedInput: 1_000_000,
      cacheWrite: 1_000_000,
      output: 2_000_000,
      reasoning: 2_000_000,
    })
    // The version before is untouched: rows priced by it keep pointing at what they were priced by.
    expect(old!.rates.input).toBe(150_000)
  })

  test('a future date applies from that date; withdrawn before then, it is deleted (no row can refer to it)', async () => {
    const table = { 'gpt-4o-mini': { input: 1, output: 2, from: '2020-01-01' } }
    await recordVersions(database.db, { 'gpt-4o-mini': { input: 5, output: 6, from: '2099-01-01' } })
    const planned = await of('gpt-4o-mini')
    expect(planned.at(-1)!.from.toISOString()).toBe('2099-01-01T00:00:00.000Z')
    expect(planned).toHaveLength(3)
    await recordVersions(database.db, table)
    const withdrawn = await of('gpt-4o-mini')
    expect(withdrawn).toHaveLength(2)
    expect(withdrawn.at(-1)!.rates.input).toBe(1_000_000)
  })

  test('going back to an earlier price is a new version from now, never the old one revived', async () => {
    await recordVersions(database.db, {})
    const versions = await of('gpt-4o-mini')
    expect(versions).toHaveLength(3)
    expect(versions.map((each) => each.rates.input)).toEqual([150_000, 1_000_000, 150_000])
  })

  test('two processes recording the same change at once record it once', async () => {
    const table = { 'gpt-4.1': { input: 9, output: 9 } }
    await Promise.all([recordVersions(database.db, table), recordVersions(database.db, table)])
    expect((await of('gpt-4.1')).filter((each) => each.rates.input === 9_000_000)).toHaveLength(1)
  })
})

describe('a price change mid-month, through a config file and its reload', () => {
  let t: TestApp
  let token: string
  let admin: string
  let file: string
  const write = (prices: string) =>
    writeFileSync(
      file,
      `providers:\n  script:\n    kind: script\n    scenario: { rules: [{ reply: [{ usage: { prompt_tokens: 1000, completion_tokens: 100 } }, { text: hi }] }] }\n` +
        `models:\n  metered: [{ provider: script, model: scripted }]\nprices:\n${prices}`,
    )

  beforeAll(async () => {
    file = join(mkdtempSync(join(tmpdir(), 'trellis-prices-')), 'trellis.yaml')
    write(`  metered: { input: 1, output: 10, from: "${TODAY.slice(0, 8)}01" }\n`)
    t = await makeTestApp({ env: { TRELLIS_CONFIG: file } })
    token = await t.tokenFor('metered', ['chat'])
    admin = await t.tokenFor('root', ['admin'])
  }, SETUP_TIMEOUT)
  afterAll(() => t.close(), SETUP_TIMEOUT)

  async function ask() {
    const response = await t.request('/v1/chat/completions', {
      method: 'POST',
      token,
      json: { model: 'metered', messages: [{ role: 'user', content: 'hi' }] },
    })
    expect(response.status).toBe(200)
    await t.deps.ledger!.flush()
    const [row] = await t.deps.database.db
      .select()
      .from(usageRecords)
      .where(eq(usageRecords.requestId, response.headers.get('x-request-id')!))
    return row!
  }

  const reload = async () => {
    const response = await t.request('/admin/config/reload', { method: 'POST', token: admin })
    expect(response.status).toBe(200)
    return response.json()
  }

  test('rows before and after are priced by their own version; the rows before are not rewritten', async () => {
    // 1,000 × 1 + 100 × 10 = 2,000 µ$
    const before = await ask()
    expect(before.costMicros).toBe(2_000)

    // The new price says it applies from the 1st of the month: that is past, so it applies from now.
    write(`  metered: { input: 2, output: 20, from: "${TODAY.slice(0, 8)}01" }\n`)
    expect((await reload()).changed).toEqual(['prices'])
    const after = await ask()
    expect(after.costMicros).toBe(4_000)
    expect(after.priceVersion).not.toBe(before.priceVersion)

    const [again] = await t.deps.database.db.select().from(usageRecords).where(eq(usageRecords.seq, before.seq))
    expect({ cost: again!.costMicros, version: again!.priceVersion }).toEqual({
      cost: 2_000,
      version: before.priceVersion,
    })

    const listed = await (await t.request('/prices', { token })).json()
    const metered = listed.data.filter((each: { model: string }) => each.model === 'metered')
    expect(
      metered.map((each: { id: string; input: number; output: number }) => [Number(each.id), each.input, each.output]),
    ).toEqual([
      [before.priceVersion, 1, 10],
      [after.priceVersion, 2, 20],
    ])
    // The new version starts after the first row and no later than the second.
    expect(Date.parse(metered[1].from)).toBeGreaterThan(before.at.getTime())
    expect(Date.parse(metered[1].from)).toBeLessThanOrEqual(after.at.getTime())
  })

  test('a price for a future date changes nothing until then', async () => {
    write(`  metered: { input: 7, output: 70, from: "2099-01-01" }\n`)
    await reload()
    expect((await ask()).costMicros).toBe(4_000)
    const rows = await t.deps.database.db.select().from(priceVersions).where(eq(priceVersions.model, 'metered'))
    expect(rows.map((row) => row.declaredFrom)).toContain('2099-01-01')
  })

  test('GET /prices needs a token', async () => {
    expect((await t.request('/prices')).status).toBe(401)
  })
})

describe('replicas', () => {
  let database: DatabaseHandle
  beforeAll(async () => {
    database = await freshDatabase()
  }, SETUP_TIMEOUT)
  afterAll(() => database.close(), SETUP_TIMEOUT)

  test('two processes on one database price alike: what one records, the other reads at its next refresh', async () => {
    const logger = createLogger('silent')
    const a = new Pricing(database.db, logger)
    const b = new Pricing(database.db, logger)
    const table = { shared: { input: 1, output: 2 } }
    await Promise.all([a.apply(table), b.apply(table)])
    expect(b.versions()).toEqual(a.versions())
    // A reload on one of them only.
    await a.apply({ shared: { input: 3, output: 4 } })
    const counts = { prompt: 1000, completion: 1000, cached: 0, cacheWrite: 0, reasoning: 0 }
    const now = new Date(Date.now() + 1_000)
    expect(a.price({ model: 'shared' }, now, counts).micros).toBe(7_000)
    expect(b.price({ model: 'shared' }, now, counts).micros).toBe(3_000)
    await b.refresh()
    expect(b.versions()).toEqual(a.versions())
    const [priced, alike] = [a.price({ model: 'shared' }, now, counts), b.price({ model: 'shared' }, now, counts)]
    expect(alike).toEqual(priced)
    expect(alike.micros).toBe(7_000)
  })
})
