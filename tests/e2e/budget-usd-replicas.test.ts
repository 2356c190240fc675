/**
 * Two real server processes on one PostgreSQL spend one token's money budget (`--budget-usd`) between them: a burst of
 * concurrent chat requests over both, then requests until both refuse. The ledger's cost for the token never passes
 * the budget (each request reserved the most it could cost before it was sent), the budget is spent to within a
 * reservation per replica, the refusal is a 429 insufficient_quota that says not to retry, and once the replicas'
 * leases are back the month's counter equals the ledger's cost to the micro-dollar.
 * PostgreSQL pass of the suite only: the embedded database cannot be shared by two processes.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import postgres from 'postgres'
import { type RunningServer, runCli, startServer, storageEnv } from '../helpers/process'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

const skipped = process.env.DATABASE_URL ? undefined : 'two processes need PostgreSQL (DATABASE_URL unset)'
if (skipped) console.warn(`tests/e2e/budget-usd-replicas.test.ts SKIPPED: ${skipped}`)

/** Echo at $1,000 a million tokens, in and out: $0.001 (1,000 micro-dollars) a token. */
const PRICES = JSON.stringify({ echo: { input: 1000, output: 1000 } })
const MICROS_PER_TOKEN = 1_000
/** $0.50: about a hundred answers of "hello there" (3 + 2 tokens, $0.005 each). */
const BUDGET_MICROS = 500_000
/** What each request reserves: its prompt estimate (4 tokens) and max_tokens 5, at $0.001. */
const RESERVATION_MICROS = 9 * MICROS_PER_TOKEN

let storage: Awaited<ReturnType<typeof storageEnv>>
let replicas: RunningServer[] = []
let sql: postgres.Sql
const shared = { secret: '', id: '' }

async function createToken(owner: string, budgetUsd: string) {
  const created = await runCli(
    ['token', 'create', '--owner', owner, '--scope', 'chat', '--budget-usd', budgetUsd],
    storage.env,
  )
  if (created.code !== 0) throw new Error(created.stderr)
  return {
    secret: created.stdout.match(/trl_[A-Za-z0-9_-]{43}/)![0],
    id: created.stdout.match(/created (tok_\S+)/)![1]!,
  }
}

beforeAll(async () => {
  if (skipped) return
  storage = await storageEnv()
  Object.assign(shared, await createToken('shared', String(BUDGET_MICROS / 1_000_000)))
  const env = { ...storage.env, MIGRATE_ON_START: 'false', TRELLIS_PRICES: PRICES, ECHO_TOKEN_DELAY_MS: '20' }
  replicas = await Promise.all([startServer(env), startServer(env)])
  sql = postgres(storage.env.DATABASE_URL!, { max: 2, onnotice: () => {} })
  // Each replica's first request opens its connections; a token of its own warms both without touching the budget.
  const warm = await createToken('warm', '1000')
  for (const replica of replicas) expect((await chat(replica, warm.secret)).status).toBe(200)
}, 120_000)

afterAll(async () => {
  for (const replica of replicas) await replica.stop()
  await sql?.end()
  await storage?.cleanup()
}, 60_000)

async function chat(replica: RunningServer, token: string) {
  const response = await fetch(`${replica.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'echo', max_tokens: 5, messages: [{ role: 'user', content: 'hello there' }] }),
  })
  const body = await response.json()
  return { status: response.status, body, headers: response.headers }
}

/** The ledger's cost for the shared token, in micro-dollars: every row's tokens at $0.001. */
async function ledgerMicros(): Promise<{ rows: number; micros: number }> {
  const [row] = await sql`
    select count(*)::int as rows, coalesce(sum(prompt_tokens + completion_tokens), 0)::int as tokens
    from usage_records where token_id = ${shared.id}`
  return { rows: row!.rows, micros: row!.tokens * MICROS_PER_TOKEN }
}

async function counterMicros(): Promise<number> {
  const month = new Date().toISOString().slice(0, 7)
  const [row] = await sql`
    select value from quotas where token_id = ${shared.id} and kind = 'budget_usd' and period = ${month}`
  return Number(row?.value ?? 0)
}

describe.skipIf(Boolean(skipped))('two replicas, one budget_usd', () => {
  test('a burst and then more over both: the cost stays within the budget, spent to a reservation per replica, then 429', async () => {
    const burst = await Promise.all(Array.from({ length: 160 }, (_, i) => chat(replicas[i % 2]!, shared.secret)))
    expect(burst.filter((answer) => answer.status !== 200 && answer.status !== 429)).toEqual([])
    const perReplica = [0, 1].map((r) => burst.filter((answer, i) => i % 2 === r && answer.status === 200).length)
    // Both served from the one budget.
    expect(Math.min(...perReplica)).toBeGreaterThan(0)

    // Then one at a time, alternating, until both replicas refuse in a row.
    let refusals = 0
    let refused: Awaited<ReturnType<typeof chat>> | undefined
    for (let i = 0; i < 300 && refusals < 2; i++) {
      const answer = await chat(replicas[i % 2]!, shared.secret)
      if (answer.status === 429) {
        refusals++
        refused = answer
      } else {
        expect(answer.status).toBe(200)
        refusals = 0
      }
    }
    expect(refusals).toBe(2)
    expect(refused!.body.error).toMatchObject({ code: 'insufficient_quota', type: 'insufficient_quota' })
    expect(refused!.body.error.message).toContain("this token's monthly budget of $0.50")
    expect(refused!.headers.get('x-should-retry')).toBe('false')

    // The ledger writes within a second; the leases go back after 2 s idle.
    let ledger = await ledgerMicros()
    const admitted = [...burst].filter((answer) => answer.status === 200).length
    for (let i = 0; i < 100 && (ledger.rows < admitted || (await counterMicros()) !== ledger.micros); i++) {
      await Bun.sleep(100)
      ledger = await ledgerMicros()
    }
    console.info(
      `budget-usd-replicas: ${admitted} of 160 admitted in the burst (${perReplica.join(' + ')}), ` +
        `${ledger.rows} in all, $${ledger.micros / 1_000_000} of $${BUDGET_MICROS / 1_000_000}`,
    )
    expect(ledger.micros).toBeLessThanOrEqual(BUDGET_MICROS)
    // Both refused: each replica's lease, and the pool, held less than one reservation.
    expect(ledger.micros).toBeGreaterThan(BUDGET_MICROS - 2 * RESERVATION_MICROS)
    expect(await counterMicros()).toBe(ledger.micros)
  }, 90_000)
})
