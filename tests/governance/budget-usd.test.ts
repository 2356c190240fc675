/**
 * Budgets in money (`limits.budget_usd`), on Governance itself with a price table of its own and a clock the test
 * moves: a request reserves the most it can cost before it is sent, is settled at exactly what its usage cost (the
 * ledger's function, `costMicros`), a spent budget is a 429 insufficient_quota naming the dollars, and a new month
 * starts again. Over HTTP (admin API, SDKs, defaults): tests/governance/budget-usd-http.test.ts.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { costMicros, estimateMicros, PriceBook, type PriceVersion, ratesOf } from '../../src/cost/prices'
import type { DatabaseHandle } from '../../src/db/connect'
import { rowsOf } from '../../src/db/migrate'
import { HttpError } from '../../src/http/errors'
import { usd } from '../../src/governance/money'
import { type ChatTicket, Governance, type LimitHolder } from '../../src/governance/service'
import { freshDatabase } from '../helpers/database'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let database: DatabaseHandle
beforeAll(async () => {
  database = await freshDatabase()
}, 60_000)
afterAll(() => database.close())

/** gpt-test: $2.50 in, $1.25 cache read, $3.125 cache write, $10 out (and reasoning) per million tokens. */
const GPT_TEST = ratesOf({ input: 2.5, cached_input: 1.25, cache_write: 3.125, output: 10 })
const version = (model: string, from: string, rates = GPT_TEST): PriceVersion => ({
  id: `${model}@${from}`,
  model,
  from: new Date(`${from}T00:00:00Z`),
  rates,
})
/** gpt-test, and `openai/up-model` (priced by provider and upstream model): twice as dear. */
const PRICES = new PriceBook([
  version('gpt-test', '2026-01-01'),
  version('openai/up-model', '2026-01-01', ratesOf({ input: 5, output: 20 })),
])

let seq = 0
/** A governance on the test database at `now` (movable), pricing with PRICES. */
function governance(now = { at: new Date('2026-11-20T12:00:00Z') }) {
  const made = new Governance(database.db, {
    defaults: {},
    clock: () => now.at,
    prices: (p, at) => PRICES.lookup(p, at),
  })
  return { governance: made, now }
}
const holder = (budget_usd: number): LimitHolder => ({ tokenId: `tok_usd${seq++}`, limits: { budget_usd } })
const request = () => new Request('http://localhost/v1/chat/completions', { method: 'POST' })
const asking = (prompt: number, completion: number, model = 'gpt-test') => ({
  candidates: () => [{ model }],
  prompt,
  completion,
})

/** The month's counter of a token's money budget, in micro-dollars (after the process gave its leases back). */
async function spent(tokenId: string, period = '2026-11'): Promise<number | undefined> {
  const rows = rowsOf<{ value: number }>(
    await database.db.execute(
      sql`select value from quotas where token_id = ${tokenId} and kind = 'budget_usd' and period = ${period}`,
    ),
  )
  return rows[0] === undefined ? undefined : Number(rows[0].value)
}

/**
 * Settles `ticket` as a finished request does without a ledger: what it spent is taken off this process's holdings
 * (Governance.consumed), else leaving would give it back as unproven.
 */
function settle(g: Governance, ticket: ChatTicket, tokens: number, used: Parameters<ChatTicket['settle']>[1]) {
  const settlement = ticket.settle(tokens, used)
  if (settlement) g.consumed(settlement)
  return settlement
}

async function refusal(admitting: Promise<ChatTicket>): Promise<HttpError> {
  const error = await admitting.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(HttpError)
  return error as HttpError
}

describe('reserving before the call', () => {
  test('a request reserves the most it can cost: the dearest prompt rate and the dearest completion rate', async () => {
    // 1,000 prompt tokens at the cache write's $3.125 and 1,000 completion tokens at $10: $0.013125.
    expect(estimateMicros(GPT_TEST, 1_000, 1_000)).toBe(13_125)
    const { governance: g } = governance()
    const token = holder(0.05)
    // $0.05 holds three reservations of $0.013125 ($0.039375), not a fourth: the estimates count, not the usage.
    const tickets = [] as ChatTicket[]
    for (let i = 0; i < 3; i++) tickets.push(await g.admitChat(token, request(), 2_000, asking(1_000, 1_000)))
    const refused = await refusal(g.admitChat(token, request(), 2_000, asking(1_000, 1_000)))
    expect(refused.status).toBe(429)
    expect(refused.message).toBe(
      "You exceeded this token's monthly budget of $0.05 (this request may cost up to $0.013125); " +
        'it renews at the start of next month (UTC).',
    )
    expect(refused.extra).toMatchObject({ code: 'insufficient_quota', type: 'insufficient_quota' })
    expect(refused.extra.headers!['x-should-retry']).toBe('false')
    // 2026-11-20T12:00Z to 2026-12-01: ten and a half days.
    expect(Number(refused.extra.headers!['retry-after'])).toBe(10.5 * 86_400)
    // One settled low gives its difference back: a fourth fits now.
    settle(g, tickets[0]!, 20, { priced: { model: 'gpt-test' }, counts: counts(10, 10), at: new Date() })
    expect((await g.admitChat(token, request(), 2_000, asking(1_000, 1_000))).money?.period).toBe('2026-11')
    await g.stop()
    await g.retire()
  })

  test('a model that may be served by a dearer route reserves at the dearer route', async () => {
    const { governance: g } = governance()
    const token = holder(1)
    const ticket = await g.admitChat(token, request(), 200, {
      candidates: () => [{ model: 'gpt-test' }, { model: 'fallback', provider: 'openai', upstreamModel: 'up-model' }],
      prompt: 100,
      completion: 100,
    })
    expect(ticket.money?.rates).toEqual({ prompt: 5_000_000, completion: 20_000_000 })
    await g.stop()
    await g.retire()
  })

  test('an unpriced model costs nothing: it reserves nothing and is admitted even once the budget is spent', async () => {
    const { governance: g } = governance()
    const token = holder(0.01)
    const dear = await g.admitChat(token, request(), 10_000, asking(0, 1_000))
    settle(g, dear, 1_000, {
      priced: { model: 'gpt-test' },
      counts: counts(0, 1_000),
      at: new Date('2026-11-20T12:00:00Z'),
    })
    await refusal(g.admitChat(token, request(), 10, asking(0, 1)))
    const free = await g.admitChat(token, request(), 10_000, asking(5_000, 5_000, 'nonesuch'))
    expect(free.money).toEqual({ period: '2026-11', rates: undefined })
    const settlement = settle(g, free, 10_000, {
      priced: { model: 'nonesuch' },
      counts: counts(5_000, 5_000),
      at: new Date('2026-11-20T12:00:00Z'),
    })
    expect(settlement?.spent.map((part) => part.units)).toEqual([0])
    await g.stop()
    await g.retire()
    expect(await spent(token.tokenId)).toBe(10_000)
  })
})

/** Counts with no cache or reasoning tokens. */
const counts = (prompt: number, completion: number) => ({ prompt, completion, cached: 0, reasoning: 0 })

describe('settling at the exact cost', () => {
  test("the counter ends at costMicros of the request's exact counts, cache reads and reasoning included", async () => {
    const { governance: g } = governance()
    const token = holder(10)
    const ticket = await g.admitChat(token, request(), 3_000, asking(1_000, 2_000))
    const used = { prompt: 1_000, cached: 400, cacheWrite: 100, completion: 300, reasoning: 100 }
    // 500 × $2.50 + 400 × $1.25 + 100 × $3.125 + 200 × $10 + 100 × $10 per million: $0.0050625, rounded half up.
    expect(costMicros(GPT_TEST, used)).toBe(5_063)
    const settlement = settle(g, ticket, 1_300, { priced: { model: 'gpt-test' }, counts: used, at: new Date() })
    expect(settlement).toEqual({
      holder: ticket.holder,
      spent: [{ key: { tokenId: token.tokenId, kind: 'budget_usd', period: '2026-11' }, units: 5_063 }],
    })
    await g.stop()
    await g.retire()
    expect(await spent(token.tokenId)).toBe(5_063)
  })

  test("a cost its caller priced already (the ledger row's) is settled as it is, not priced a second time", async () => {
    const { governance: g } = governance()
    const token = holder(10)
    const ticket = await g.admitChat(token, request(), 3_000, asking(1_000, 2_000))
    // The table would say 3,500 (1,000 × $2.50 + 100 × $10 per million); the row's cost, handed over, is what counts.
    expect(costMicros(GPT_TEST, { ...counts(1_000, 100), cacheWrite: 0 })).toBe(3_500)
    const used = { priced: { model: 'gpt-test' }, counts: counts(1_000, 100), at: new Date(), micros: 3_499 }
    expect(settle(g, ticket, 1_100, used)?.spent).toEqual([
      { key: { tokenId: token.tokenId, kind: 'budget_usd', period: '2026-11' }, units: 3_499 },
    ])
    await g.stop()
    await g.retire()
    expect(await spent(token.tokenId)).toBe(3_499)
  })

  test('usage dearer than its reservation is charged beyond it (an answer past its estimate), priced by the route that served', async () => {
    const { governance: g } = governance()
    const token = holder(10)
    const ticket = await g.admitChat(token, request(), 20, asking(10, 10))
    // Served by the dearer upstream, priced by provider and upstream model: 1,000 × $5 + 1,000 × $20 per million.
    settle(g, ticket, 2_000, {
      priced: { model: 'fallback', provider: 'openai', upstreamModel: 'up-model' },
      counts: counts(1_000, 1_000),
      at: new Date(),
    })
    await g.stop()
    await g.retire()
    expect(await spent(token.tokenId)).toBe(25_000)
  })

  test('both budgets at once: one settlement spends tokens from one and micro-dollars from the other', async () => {
    const { governance: g } = governance()
    const token: LimitHolder = { tokenId: `tok_usd${seq++}`, limits: { budget_tokens: 10_000, budget_usd: 1 } }
    const ticket = await g.admitChat(token, request(), 200, asking(100, 100))
    expect(ticket.budgetPeriod).toBe('2026-11')
    const settlement = settle(g, ticket, 150, {
      priced: { model: 'gpt-test' },
      counts: counts(100, 50),
      at: new Date(),
    })
    expect(settlement?.spent.map((part) => [part.key.kind, part.units])).toEqual([
      ['budget', 150],
      ['budget_usd', 750],
    ])
    await g.stop()
    await g.retire()
  })
})

describe('a price change', () => {
  test("applies from its date: a request is settled at the version in effect at its row's time, never rewriting the past", async () => {
    const prices = new PriceBook([
      version('gpt-test', '2026-01-01'),
      version('gpt-test', '2026-11-25', ratesOf({ input: 5, output: 20 })),
    ])
    const now = { at: new Date('2026-11-24T23:00:00Z') }
    const g = new Governance(database.db, {
      defaults: {},
      clock: () => now.at,
      prices: (p, at) => prices.lookup(p, at),
    })
    const token = holder(10)
    const before = await g.admitChat(token, request(), 200, asking(100, 100))
    // Admitted at the old prices, answered after midnight: the row's time decides (100 × $5 + 100 × $20 per million).
    const late = settle(g, before, 200, {
      priced: { model: 'gpt-test' },
      counts: counts(100, 100),
      at: new Date('2026-11-25T00:00:01Z'),
    })
    expect(late?.spent[0]?.units).toBe(2_500)
    const earlier = await g.admitChat(token, request(), 200, asking(100, 100))
    const early = settle(g, earlier, 200, { priced: { model: 'gpt-test' }, counts: counts(100, 100), at: now.at })
    expect(early?.spent[0]?.units).toBe(1_250)
    await g.stop()
    await g.retire()
    expect(await spent(token.tokenId)).toBe(2_500 + 1_250)
  })
})

describe('the month', () => {
  test('spent in November, admitted again on the 1st of December (UTC), from a counter of its own', async () => {
    const { governance: g, now } = governance({ at: new Date('2026-11-30T23:59:00Z') })
    const token = holder(0.02)
    const ticket = await g.admitChat(token, request(), 2_000, asking(1_000, 1_000))
    settle(g, ticket, 2_000, { priced: { model: 'gpt-test' }, counts: counts(1_000, 1_000), at: now.at })
    const refused = await refusal(g.admitChat(token, request(), 2_000, asking(1_000, 1_000)))
    expect(refused.message).toContain('monthly budget of $0.02')
    // A minute to midnight, UTC.
    expect(refused.extra.headers!['retry-after']).toBe('60')
    now.at = new Date('2026-12-01T00:00:01Z')
    const december = await g.admitChat(token, request(), 2_000, asking(1_000, 1_000))
    expect(december.money?.period).toBe('2026-12')
    settle(g, december, 10, { priced: { model: 'gpt-test' }, counts: counts(5, 5), at: now.at })
    await g.stop()
    await g.retire()
    // November's $0.0125 stays November's; December starts from its own (5 × $2.50 + 5 × $10 per million, rounded).
    expect(await spent(token.tokenId, '2026-11')).toBe(12_500)
    expect(await spent(token.tokenId, '2026-12')).toBe(63)
  })
})

describe('dollars as people write them', () => {
  test.each([
    [25_000_000, '$25.00'],
    [500_000, '$0.50'],
    [125, '$0.000125'],
    [13_125, '$0.013125'],
    [1_000_000_000_000_000, '$1000000000.00'],
  ])('%d micro-dollars are %s', (micros, text) => {
    expect(usd(micros)).toBe(text)
  })
})
