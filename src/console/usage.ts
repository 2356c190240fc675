import { and, eq, gte, lt, sql, type SQL } from 'drizzle-orm'
import type { Database } from '../db/connect'
import { rowsOf } from '../db/migrate'
import { usageDaily, usageMonthly, usageRecords } from '../db/schema'

/** What a chart splits its bars by, how long each bar is, and what its height measures. */
export const DIMENSIONS = ['model', 'owner', 'token'] as const
export const BUCKETS = ['day', 'hour'] as const
export const MEASURES = ['cost', 'tokens', 'requests'] as const
type Dimension = (typeof DIMENSIONS)[number]
type Bucket = (typeof BUCKETS)[number]
type Measure = (typeof MEASURES)[number]

/** Most series a chart draws; the rest are summed into one "other" series, so a chart is bounded whatever the data. */
const TOP_SERIES = 8

/** Longest range an hourly chart covers: it reads the ledger's own rows, which the daily rollup does not split. */
export const MAX_HOUR_DAYS = 7
/** Longest range a daily chart covers. */
export const MAX_DAYS = 400

export type ChartQuery = { by: Dimension; bucket: Bucket; days: number; measure: Measure; now: Date }

/** The totals of one series in one bucket; `series` null is "other". */
export type Cell = {
  bucket: string
  series: string | null
  requests: number
  prompt_tokens: number
  completion_tokens: number
  errors: number
  /** Integer micro-dollars. */
  cost_micros: number
}

export type ChartData = {
  query: ChartQuery
  /** Every bucket of the range, oldest first, empty ones included: `YYYY-MM-DD` or `YYYY-MM-DDTHH:00Z`. */
  buckets: string[]
  /** The series drawn, largest first by the measure; "other" (null) last when there is one. */
  series: (string | null)[]
  cells: Cell[]
}

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

/** The range `[from, to)` of a chart ending with the bucket that holds `now`, and its buckets' names. */
function rangeOf(bucket: Bucket, days: number, now: Date): { from: Date; to: Date; buckets: string[] } {
  const step = bucket === 'day' ? DAY_MS : HOUR_MS
  const to = new Date(Math.floor(now.getTime() / step) * step + step)
  const count = bucket === 'day' ? days : days * 24
  const from = new Date(to.getTime() - count * step)
  const buckets = Array.from({ length: count }, (_, i) => bucketName(bucket, new Date(from.getTime() + i * step)))
  return { from, to, buckets }
}

const bucketName = (bucket: Bucket, at: Date) =>
  bucket === 'day' ? at.toISOString().slice(0, 10) : `${at.toISOString().slice(0, 13)}:00Z`

/** The columns a chart reads: the daily rollup's rows of one dimension for days, the ledger's rows for hours. */
function sourceOf(query: ChartQuery, from: Date, to: Date) {
  if (query.bucket === 'day') {
    const t = usageDaily
    const days = and(gte(t.day, bucketName('day', from)), lt(t.day, bucketName('day', to)))
    return {
      table: t,
      where: and(eq(t.dimension, query.by), days),
      /** The same days of the smallest dimension: every request once, for the totals that "other" is taken from. */
      everything: and(eq(t.dimension, 'model'), days),
      bucket: sql<string>`to_char(${t.day}, 'YYYY-MM-DD')`,
      key: sql`${t.key}`,
      requests: sql`${t.requests}`,
      prompt: sql`${t.promptTokens}`,
      completion: sql`${t.completionTokens}`,
      errors: sql`${t.errors}`,
      cost: sql`${t.costMicros}`,
    }
  }
  const t = usageRecords
  return {
    table: t,
    where: and(gte(t.at, from), lt(t.at, to)),
    everything: undefined,
    bucket: sql<string>`to_char(${t.at} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:00"Z"')`,
    key: { model: sql`${t.model}`, owner: sql`${t.owner}`, token: sql`${t.tokenId}` }[query.by],
    requests: sql`1`,
    prompt: sql`${t.promptTokens}`,
    completion: sql`${t.completionTokens}`,
    errors: sql`(${t.status} >= 400 or ${t.errorCode} is not null)::int`,
    cost: sql`${t.costMicros}`,
  }
}

type Source = ReturnType<typeof sourceOf>

/**
 * A chart's data: the {@link TOP_SERIES} largest series over the range by the measure, the rest as "other", per
 * bucket. Bounded statements whatever the data: the top series; then, by day, the shown series' days (found by key in
 * the rollup's index) and each day's total, "other" being the difference; by hour, one pass over the ledger's rows.
 */
export async function chartData(db: Database, query: ChartQuery): Promise<ChartData> {
  const { from, to, buckets } = rangeOf(query.bucket, query.days, query.now)
  const source = sourceOf(query, from, to)
  const measure: SQL = {
    cost: source.cost,
    requests: source.requests,
    tokens: sql`${source.prompt} + ${source.completion}`,
  }[query.measure]
  const top =
    query.bucket === 'day'
      ? await topOfDays(db, query, from, to)
      : await db
          .select({ key: source.key.mapWith(String) })
          .from(source.table)
          .where(source.where)
          .groupBy(source.key)
          // As float8: summing bigints makes numerics, several times slower, and every sum here is an integer below
          // 2^53, which a float8 holds exactly.
          .orderBy(sql`sum((${measure})::float8) desc`, source.key)
          .limit(TOP_SERIES + 2)
  // With exactly TOP_SERIES + 1 series, drawing the last one beats calling one series "other".
  const keys = top.map((row) => row.key)
  const shown = keys.length > TOP_SERIES + 1 ? keys.slice(0, TOP_SERIES) : keys
  const listed = sql.join(shown.length ? shown.map((key) => sql`${key}`) : [sql`null`], sql`, `)
  const cells = source.everything
    ? await dailyCells(db, source, listed, keys.length > shown.length)
    : await cellsOf(db, source, sql`case when ${source.key} in (${listed}) then ${source.key} end`, source.where)
  const hasOther = cells.some((cell) => cell.series === null)
  return { query, buckets, series: hasOther ? [...shown, null] : shown, cells }
}

/** A part of a daily range: days of the daily rollup or months of the monthly one, `[from, to)`, added or taken away. */
type Piece = { rollup: 'day' | 'month'; from: string; to: string; sign: 1 | -1 }

const monthOf = (day: Date) => new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), 1))
const monthAfter = (day: Date) => new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + 1, 1))
const piece = (rollup: Piece['rollup'], from: Date, to: Date, sign: Piece['sign']): Piece => ({
  rollup,
  from: bucketName('day', from),
  to: bucketName('day', to),
  sign,
})

/**
 * The days `[from, to)` (UTC midnights) as whole months of the monthly rollup and days of the daily one, the fewest
 * days read: a month cut by the range's edge is either its days inside the range, or the whole month less its days
 * outside, whichever are fewer (the current month less its future days, which are usually none). Exact: a month's
 * row is the sum of its days' rows.
 */
function piecesOf(from: Date, to: Date): Piece[] {
  const first = monthOf(from)
  const last = monthOf(to)
  if (first.getTime() === last.getTime()) return [piece('day', from, to, 1)]
  const pieces: Piece[] = []
  let wholeFrom = first
  if (from > first) {
    const next = monthAfter(first)
    if (from.getTime() - first.getTime() < next.getTime() - from.getTime()) pieces.push(piece('day', first, from, -1))
    else {
      pieces.push(piece('day', from, next, 1))
      wholeFrom = next
    }
  }
  let wholeTo = last
  if (to > last) {
    const next = monthAfter(last)
    if (next.getTime() - to.getTime() < to.getTime() - last.getTime()) {
      pieces.push(piece('day', to, next, -1))
      wholeTo = next
    } else pieces.push(piece('day', last, to, 1))
  }
  if (wholeFrom < wholeTo) pieces.push(piece('month', wholeFrom, wholeTo, 1))
  return pieces
}

/**
 * The {@link TOP_SERIES} + 2 largest series of a daily chart by its measure, from {@link piecesOf}: 90 days of 1,000
 * tokens reads about 3,000 monthly rows and a few days' rows rather than 90,000 daily ones. A series whose only rows
 * are taken away (outside the range) sums to no requests and is left out, as it would be from the days alone.
 */
async function topOfDays(db: Database, query: ChartQuery, from: Date, to: Date): Promise<{ key: string }[]> {
  const parts = piecesOf(from, to).map(({ rollup, from, to, sign }) => {
    const t = rollup === 'day' ? usageDaily : usageMonthly
    const at = rollup === 'day' ? usageDaily.day : usageMonthly.month
    const measure = {
      cost: sql`${t.costMicros}`,
      requests: sql`${t.requests}`,
      tokens: sql`${t.promptTokens} + ${t.completionTokens}`,
    }[query.measure]
    // As float8: summing bigints makes numerics, several times slower, and every sum here is an integer below 2^53,
    // which a float8 holds exactly.
    return sql`select ${t.key} as key, ${sql.raw(String(sign))} * (${measure})::float8 as measure,
      ${sql.raw(String(sign))} * ${t.requests} as requests
      from ${t} where ${t.dimension} = ${query.by} and ${at} >= ${from} and ${at} < ${to}`
  })
  const result = await db.execute(sql`select key from (${sql.join(parts, sql` union all `)}) p
    group by key having sum(requests) > 0 order by sum(measure) desc, key limit ${TOP_SERIES + 2}`)
  return rowsOf<{ key: string }>(result)
}

/** The shown series' cells, and, when some series are not shown, each day's "other": its total less theirs. */
async function dailyCells(db: Database, source: Source, listed: SQL, others: boolean): Promise<Cell[]> {
  const cells = await cellsOf(db, source, source.key, and(source.where, sql`${source.key} in (${listed})`))
  if (!others) return cells
  const totals = await cellsOf(db, source, sql`null`, source.everything)
  const other = new Map(totals.map((total) => [total.bucket, total]))
  for (const cell of cells) {
    const rest = other.get(cell.bucket)!
    for (const field of ['requests', 'prompt_tokens', 'completion_tokens', 'errors', 'cost_micros'] as const)
      rest[field] -= cell[field]
  }
  const rest = [...other.values()].filter((cell) => cell.requests > 0)
  return [...cells, ...rest].sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : 0))
}

/** Totals per bucket and `series` (an expression: the key, "other" as null) of the rows `where` picks. */
async function cellsOf(db: Database, source: Source, series: SQL, where: SQL | undefined): Promise<Cell[]> {
  const rows = await db
    .select({
      bucket: source.bucket,
      series: series.mapWith((value: string | null) => value),
      requests: sql<number>`sum(${source.requests})`.mapWith(Number),
      prompt_tokens: sql<number>`sum(${source.prompt})`.mapWith(Number),
      completion_tokens: sql<number>`sum(${source.completion})`.mapWith(Number),
      errors: sql<number>`sum(${source.errors})`.mapWith(Number),
      // As text: a sum of bigints is numeric, which a driver may hand over as a string or a float.
      cost_micros: sql<number>`sum(${source.cost})::text`.mapWith(Number),
    })
    .from(source.table)
    .where(where)
    .groupBy(sql`1`, sql`2`)
    .orderBy(sql`1`, sql`2`)
  return rows as Cell[]
}
