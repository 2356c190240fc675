/**
 * Server time of the console's usage chart with 90 days of usage for 1,000 tokens (#30 §4: under 100 ms), on the real
 * app in process, with the embedded PGlite or, with DATABASE_URL, PostgreSQL:
 *
 *   bun bench/console-usage.ts [--tokens 1000] [--days 90] [--per-day 20] [--runs 20]
 *
 * It makes `--tokens` real tokens (100 owners), then writes `--per-day` ledger rows per token per day for `--days`
 * days, spread over three models, with `generate_series` (one INSERT per day, so the rollup's trigger runs as it does
 * for the ledger's batches: every token has all three models on every day, the densest the rollup can be). Then it
 * times, first, what `GET /usage` does over the same range (summarizeUsage, by day and model, on the ledger's rows),
 * the reason the console reads a rollup; then `app.handle` of the console's chart (by model, owner and token, 90 days,
 * measured in cost), of the token list with each token's usage, and of an hourly chart over 7 days (the ledger's rows).
 */
import { sql } from 'drizzle-orm'
import { rowsOf } from '../src/db/migrate'
import { summarizeUsage } from '../src/usage/service'
import { makeTestApp } from '../tests/helpers/app'

const argument = (name: string, fallback: number) => {
  const at = Bun.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : Number(Bun.argv[at + 1])
}
const TOKENS = argument('tokens', 1000)
const DAYS = argument('days', 90)
const PER_DAY = argument('per-day', 20)
const RUNS = argument('runs', 20)
const backend = process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'

const t = await makeTestApp({ env: { LOG_LEVEL: 'warn', TRELLIS_PRICES: '{"echo":{"input":2.5,"output":10}}' } })
const admin = await t.tokenFor('bench-admin', ['admin'])
const db = t.deps.database.db

let started = performance.now()
const ids: string[] = []
for (let i = 0; i < TOKENS; i++)
  ids.push((await t.deps.tokens.create({ owner: `owner-${i % 100}`, scopes: ['chat'] })).id)
await db.execute(sql`create table bench_tokens (n int primary key, id text not null, owner text not null)`)
await db.execute(
  sql`insert into bench_tokens select n, ${JSON.stringify(ids)}::jsonb ->> (n - 1), 'owner-' || ((n - 1) % 100)
    from generate_series(1, ${TOKENS}) n`,
)
console.log(`${backend}: ${TOKENS} tokens made in ${((performance.now() - started) / 1000).toFixed(1)} s`)

started = performance.now()
const today = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000)
for (let day = 0; day < DAYS; day++) {
  const midnight = new Date(today.getTime() - day * 86_400_000)
  await db.execute(sql`
    insert into usage_records (at, request_id, token_id, owner, model, streamed, status, prompt_tokens, completion_tokens,
      cached_tokens, reasoning_tokens, cost_micros, duration_ms, error_code)
    select ${midnight.toISOString()}::timestamptz + make_interval(secs => ((b.n * 37 + r * 3607) % 86400)),
      'bench-' || ${day} || '-' || b.n || '-' || r, b.id, b.owner,
      (array['echo', 'gpt-4o-mini', 'claude-sonnet'])[1 + (b.n + r) % 3], true,
      case when r % 50 = 0 then 502 else 200 end, 200 + (b.n * r) % 800, 50 + (b.n + r) % 400, 0, 0,
      (200 + (b.n * r) % 800) * 5 / 2 + (50 + (b.n + r) % 400) * 10, 900,
      case when r % 50 = 0 then 'upstream_error' end
    from bench_tokens b, generate_series(1, ${PER_DAY}) r`)
}
const [{ rows, daily, monthly }] = rowsOf<{ rows: number; daily: number; monthly: number }>(
  await db.execute(
    sql`select (select count(*) from usage_records)::int as rows, (select count(*) from usage_daily)::int as daily, (select count(*) from usage_monthly)::int as monthly`,
  ),
)
console.log(
  `${rows.toLocaleString('en-US')} ledger rows, ${daily.toLocaleString('en-US')} daily and ` +
    `${monthly.toLocaleString('en-US')} monthly rollup rows, written in ` +
    `${((performance.now() - started) / 1000).toFixed(1)} s`,
)

// PostgreSQL's autovacuum would have analyzed the new rows by now; PGlite has no background workers, so it plans without.
if (process.env.DATABASE_URL) {
  await db.execute(sql`analyze usage_daily`)
  await db.execute(sql`analyze usage_monthly`)
}

const from = new Date(today.getTime() - (DAYS - 1) * 86_400_000)
const to = new Date(today.getTime() + 86_400_000)
const raw: number[] = []
for (let i = 0; i < 3; i++) {
  const at = performance.now()
  await summarizeUsage(db, { from, to, groupBy: ['day', 'model'] })
  raw.push(performance.now() - at)
}
console.log(`summarizeUsage by day and model over the ledger's rows, ${DAYS} days: ${raw.map(fixed).join(', ')} ms`)

async function timed(path: string): Promise<number> {
  const at = performance.now()
  const response = await t.app.handle(
    new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${admin}` } }),
  )
  await response.arrayBuffer()
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`)
  return performance.now() - at
}

function fixed(value: number) {
  return value.toFixed(1)
}

const report = async (label: string, path: string, runs = RUNS) => {
  await timed(path)
  const samples: number[] = []
  for (let i = 0; i < runs; i++) samples.push(await timed(path))
  samples.sort((a, b) => a - b)
  const p = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!
  console.log(`${label.padEnd(44)} p50 ${fixed(p(0.5))} ms, p95 ${fixed(p(0.95))} ms, max ${fixed(p(1))} ms`)
}

for (const by of ['model', 'owner', 'token'])
  await report(`chart by ${by}, ${DAYS} days, cost`, `/console/api/usage?by=${by}&days=${DAYS}&measure=cost`)
await report(`chart by token, ${DAYS} days, CSV`, `/console/api/usage.csv?by=token&days=${DAYS}&measure=cost`)
await report(`token list with usage (${TOKENS} tokens)`, '/console/api/tokens', Math.max(5, RUNS / 4))
await report('chart by token, per hour, 7 days (ledger rows)', '/console/api/usage?by=token&bucket=hour&days=7')
await t.close()
