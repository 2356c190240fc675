/**
 * The usage ledger and `GET /usage`: one row per chat request, whose totals equal what the
 * responses reported; an owner sees their own, an admin everyone's; a stream cut short records
 * what was sent; the ledger batches, bounds its queue, and keeps rows through an outage.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { UsageLedger } from '../../src/usage/ledger'
import { rowsOf } from '../../src/db/migrate'
import { createLogger } from '../../src/telemetry/logger'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let t: TestApp
let alice: string
let bob: string
let admin: string

beforeAll(async () => {
  t = await makeTestApp({ env: { ECHO_TOKEN_DELAY_MS: '0' } })
  alice = await t.tokenFor('alice', ['chat'])
  bob = await t.tokenFor('bob', ['chat'])
  admin = await t.tokenFor('root', ['admin'])
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

type Usage = {
  prompt_tokens: number
  completion_tokens: number
  prompt_tokens_details?: { cached_tokens: number }
  completion_tokens_details?: { reasoning_tokens: number }
}

async function chat(token: string, body: Record<string, unknown>): Promise<Usage> {
  const response = await t.request('/v1/chat/completions', {
    method: 'POST',
    token,
    json: { messages: [{ role: 'user', content: 'the quick brown fox' }], ...body },
  })
  expect(response.status).toBe(200)
  if (!body.stream) return (await response.json()).usage
  const events = (await response.text()).split('\n\n').filter((event) => event.startsWith('data: {'))
  return JSON.parse(events.at(-1)!.slice(6)).usage
}

const usage = async (token: string, query = '') => {
  const response = await t.request(`/usage${query}`, { token })
  return { status: response.status, body: await response.json() }
}

async function settled() {
  // The app's ledger writes within a second of a request's end.
  await Bun.sleep(1_300)
}

describe('GET /usage', () => {
  test('the totals equal what the responses reported, streamed or not, reasoning and cache counted', async () => {
    const reported: Usage[] = []
    reported.push(await chat(alice, { model: 'echo' }))
    reported.push(await chat(alice, { model: 'echo' })) // the same prompt again: cache hits
    reported.push(await chat(alice, { model: 'echo-reasoner' }))
    reported.push(await chat(alice, { model: 'echo', stream: true, stream_options: { include_usage: true } }))
    await settled()
    const { status, body } = await usage(alice, '?group_by=owner')
    expect(status).toBe(200)
    const sum = (pick: (each: Usage) => number) => reported.reduce((total, each) => total + pick(each), 0)
    expect(body.data).toEqual([
      {
        owner: 'alice',
        requests: 4,
        prompt_tokens: sum((each) => each.prompt_tokens),
        completion_tokens: sum((each) => each.completion_tokens),
        cached_tokens: sum((each) => each.prompt_tokens_details?.cached_tokens ?? 0),
        reasoning_tokens: sum((each) => each.completion_tokens_details?.reasoning_tokens ?? 0),
        cache_write_tokens: 0,
        // The built-in models are priced, at nothing (src/cost/default-prices.ts).
        cost_micros: 0,
        cost_usd: 0,
        unpriced_requests: 0,
        errors: 0,
        // Every row is the request's own: none is an estimate (src/usage/journal.ts).
        estimated_requests: 0,
        estimated_prompt_tokens: 0,
        estimated_completion_tokens: 0,
      },
    ])
    // One group: the total is the group without its key.
    const { owner: _owner, ...total } = body.data[0]
    expect(body.total).toEqual(total)
    expect(sum((each) => each.prompt_tokens_details?.cached_tokens ?? 0)).toBeGreaterThan(0)
    expect(sum((each) => each.completion_tokens_details?.reasoning_tokens ?? 0)).toBeGreaterThan(0)
  })

  test("grouped by model and day; an owner sees only their own, an admin everyone's or one owner's", async () => {
    await chat(bob, { model: 'echo' })
    await settled()
    const mine = await usage(bob, '?group_by=model,day')
    expect(mine.body.data).toEqual([
      expect.objectContaining({ model: 'echo', day: new Date().toISOString().slice(0, 10), requests: 1 }),
    ])
    const everyone = await usage(admin, '?group_by=owner')
    expect(everyone.body.data.map((row: { owner: string }) => row.owner)).toEqual(
      expect.arrayContaining(['alice', 'bob']),
    )
    const justBob = await usage(admin, '?group_by=owner&owner=bob')
    expect(justBob.body.data.map((row: { owner: string }) => row.owner)).toEqual(['bob'])
    expect((await usage(bob, '?owner=alice')).status).toBe(403)
  })

  const BAD: [string, string][] = [
    ['?group_by=color', 'group_by must be one or more of'],
    ['?from=yesterday', 'from must be a date'],
    ['?from=2026-12-01&to=2026-11-01', 'from must be before to'],
  ]
  for (const [query, message] of BAD) {
    test(`${query}: 400`, async () => {
      const { status, body } = await usage(alice, query)
      expect(status).toBe(400)
      expect(body.message).toContain(message)
    })
  }
})

describe('what a request leaves in the ledger', () => {
  test('a stream cut short records the tokens sent, marked client_aborted', async () => {
    const slow = await makeTestApp({ env: { ECHO_TOKEN_DELAY_MS: '25' } })
    try {
      const carol = await slow.tokenFor('carol', ['chat'])
      const abort = new AbortController()
      const response = await slow.request('/v1/chat/completions', {
        method: 'POST',
        token: carol,
        json: {
          model: 'echo',
          stream: true,
          messages: [{ role: 'user', content: Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ') }],
        },
        signal: abort.signal,
      })
      const reader = response.body!.getReader()
      for (let read = 0; read < 6; read++) await reader.read()
      abort.abort()
      await reader.cancel().catch(() => {})
      await Bun.sleep(1_300)
      const body = await (await slow.request('/usage?group_by=owner', { token: carol })).json()
      const [row] = body.data
      expect(row).toMatchObject({ owner: 'carol', requests: 1, errors: 1 })
      expect(row.completion_tokens).toBeGreaterThan(0)
      // Far fewer than the 79 the whole answer would have had (40 words and the spaces between).
      expect(row.completion_tokens).toBeLessThan(40)
    } finally {
      await slow.close()
    }
  })
})

describe('the ledger itself', () => {
  const row = (i: number) => ({
    at: new Date(),
    request_id: `r${i}`,
    token_id: 'tok_ledger',
    owner: 'ledger',
    model: 'echo',
    provider: 'echo',
    upstream_model: 'echo',
    streamed: false,
    status: 200,
    finish_reason: 'stop',
    prompt_tokens: 1,
    completion_tokens: 1,
    cached_tokens: 0,
    reasoning_tokens: 0,
    cache_write_tokens: 0,
    cost_micros: 0,
    price_version: null,
    ttft_ms: null,
    duration_ms: 1,
    error_code: null,
  })

  test('a full batch is written at once; a partial one within flushMs; each in one write', async () => {
    const logs: Record<string, unknown>[] = []
    const own = new UsageLedger(
      t.deps.database,
      createLogger('info', (line) => logs.push(JSON.parse(line))),
      { batchSize: 10, flushMs: 200 },
    )
    for (let i = 0; i < 10; i++) own.record(row(i))
    await Bun.sleep(50)
    expect(own.depth).toBe(0)
    own.record(row(10))
    await Bun.sleep(50)
    expect(own.depth).toBe(1)
    await Bun.sleep(300)
    expect(own.depth).toBe(0)
    expect(own.written).toEqual({ batches: 2, rows: 11 })
  })

  test('a row the database refuses is dropped and logged; the rows beside it are written', async () => {
    const logs: Record<string, unknown>[] = []
    const own = new UsageLedger(
      t.deps.database,
      createLogger('info', (line) => logs.push(JSON.parse(line))),
      { batchSize: 3, flushMs: 60_000 },
    )
    own.record({ ...row(0), request_id: 'refused-a' })
    own.record({ ...row(1), request_id: 'refused-b', finish_reason: 'st\u0000op' })
    own.record({ ...row(2), request_id: 'refused-c' })
    expect(await own.flush()).toBe(true)
    expect(own.depth).toBe(0)
    expect(own.dropped).toBe(1)
    const kept = await t.deps.database.db.execute(
      sql`select request_id from usage_records where request_id like 'refused-%' order by request_id`,
    )
    expect(rowsOf<{ request_id: string }>(kept).map((r) => r.request_id)).toEqual(['refused-a', 'refused-c'])
    expect(logs.find((line) => line.msg === 'usage ledger: row refused and dropped')?.request_id).toBe('refused-b')
  })

  test('the queue is bounded: past it rows are dropped, counted and logged, never buffered', async () => {
    const logs: Record<string, unknown>[] = []
    const own = new UsageLedger(
      t.deps.database,
      createLogger('info', (line) => logs.push(JSON.parse(line))),
      { maxQueue: 5, batchSize: 1000, flushMs: 60_000 },
    )
    for (let i = 0; i < 12; i++) own.record(row(i))
    expect(own.depth).toBe(5)
    expect(own.dropped).toBe(7)
    expect(logs.some((line) => line.msg === 'usage ledger full: rows dropped')).toBe(true)
    await own.stop()
    expect(own.depth).toBe(0)
  })
})
