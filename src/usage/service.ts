import { and, eq, gte, lt, sql, type SQL } from 'drizzle-orm'
import type { Database } from '../db/connect'
import { usageRecords } from '../db/schema'

export const GROUPS = ['model', 'owner', 'token', 'day', 'hour', 'settled'] as const
export type Group = (typeof GROUPS)[number]

/** Most groups one answer may hold; a wider question is refused, not answered in part. */
const MAX_GROUPS = 10_000

/** The group's column as it is named in the answer, and how it is computed. */
const GROUP_COLUMNS: Record<Group, { name: string; expression: SQL }> = {
  model: { name: 'model', expression: sql`${usageRecords.model}` },
  owner: { name: 'owner', expression: sql`${usageRecords.owner}` },
  token: { name: 'token_id', expression: sql`${usageRecords.tokenId}` },
  day: { name: 'day', expression: sql`to_char(${usageRecords.at} at time zone 'UTC', 'YYYY-MM-DD')` },
  hour: { name: 'hour', expression: sql`to_char(${usageRecords.at} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:00:00"Z"')` },
  settled: { name: 'settled', expression: sql`${usageRecords.settled}::text` },
}

export type UsageQuery = { from: Date; to: Date; groupBy: Group[]; owner?: string }

/** One group: its keys (model, owner, token_id, day, hour, as grouped) and its totals. */
export type UsageGroup = {
  requests: number
  prompt_tokens: number
  completion_tokens: number
  cached_tokens: number
  reasoning_tokens: number
  cache_write_tokens: number
  /** What the group cost, in integer micro-dollars: the sum of its rows' costs, each computed once. */
  cost_micros: number
  /** `cost_micros` in US dollars, rounded to 6 decimals (exact: a micro-dollar is the unit). */
  cost_usd: number
  /** Rows whose model had no price (cost 0): the price table misses them. */
  unpriced_requests: number
  errors: number
  estimated_requests: number
  estimated_prompt_tokens: number
  estimated_completion_tokens: number
  [key: string]: string | number
}

/** Raised when the answer would hold more than {@link MAX_GROUPS} groups. */
export class TooManyGroups extends Error {}

/**
 * Totals of the usage ledger over `[from, to)`, per group: requests, tokens by kind, and errors
 * (requests that ended with an error, including streams cut short); and how much of them is estimated: rows
 * `settled` false, written for requests whose process died before they settled (src/usage/journal.ts).
 */
export async function summarizeUsage(db: Database, query: UsageQuery): Promise<UsageGroup[]> {
  const groups = [...new Set(query.groupBy)].map((group) => GROUP_COLUMNS[group])
  const filters = [gte(usageRecords.at, query.from), lt(usageRecords.at, query.to)]
  if (query.owner !== undefined) filters.push(eq(usageRecords.owner, query.owner))
  const keys = Object.fromEntries(groups.map((group) => [group.name, group.expression.mapWith(String)]))
  const totals = {
    requests: sql<number>`count(*)`.mapWith(Number),
    prompt_tokens: sql<number>`coalesce(sum(${usageRecords.promptTokens}), 0)`.mapWith(Number),
    completion_tokens: sql<number>`coalesce(sum(${usageRecords.completionTokens}), 0)`.mapWith(Number),
    cached_tokens: sql<number>`coalesce(sum(${usageRecords.cachedTokens}), 0)`.mapWith(Number),
    reasoning_tokens: sql<number>`coalesce(sum(${usageRecords.reasoningTokens}), 0)`.mapWith(Number),
    cache_write_tokens: sql<number>`coalesce(sum(${usageRecords.cacheWriteTokens}), 0)`.mapWith(Number),
    // numeric, then text: a sum of bigints past 2^53 would lose digits as a float.
    cost_micros: sql<number>`coalesce(sum(${usageRecords.costMicros}), 0)::text`.mapWith(Number),
    unpriced_requests: sql<number>`count(*) filter (where ${usageRecords.priceVersion} is null)`.mapWith(Number),
    errors:
      sql<number>`count(*) filter (where ${usageRecords.status} >= 400 or ${usageRecords.errorCode} is not null)`.mapWith(
        Number,
      ),
    estimated_requests: sql<number>`count(*) filter (where not ${usageRecords.settled})`.mapWith(Number),
    estimated_prompt_tokens:
      sql<number>`coalesce(sum(${usageRecords.promptTokens}) filter (where not ${usageRecords.settled}), 0)`.mapWith(
        Number,
      ),
    estimated_completion_tokens:
      sql<number>`coalesce(sum(${usageRecords.completionTokens}) filter (where not ${usageRecords.settled}), 0)`.mapWith(
        Number,
      ),
  }
  const rows = await db
    .select({ ...keys, ...totals })
    .from(usageRecords)
    .where(and(...filters))
    .groupBy(...groups.map((group) => group.expression))
    .orderBy(...groups.map((group) => group.expression))
    .limit(MAX_GROUPS + 1)
  if (rows.length > MAX_GROUPS)
    throw new TooManyGroups(`more than ${MAX_GROUPS} groups; narrow from and to, or group by less`)
  return (rows as unknown as { cost_micros: number }[]).map(withDollars) as UsageGroup[]
}

/** `cost_usd` beside `cost_micros`. */
const withDollars = <T extends { cost_micros: number }>(group: T) => ({
  ...group,
  cost_usd: dollars(group.cost_micros),
})

/** Integer micro-dollars as dollars: exact to the 6th decimal, the unit. */
export const dollars = (micros: number) => Math.round(micros) / 1_000_000

/** The totals of every group: the sums of their counts and costs (the answer's `total`). */
export type UsageTotal = Record<(typeof TOTALLED)[number] | 'cost_usd', number>

const TOTALLED = [
  'requests',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'reasoning_tokens',
  'cache_write_tokens',
  'cost_micros',
  'unpriced_requests',
  'errors',
  'estimated_requests',
  'estimated_prompt_tokens',
  'estimated_completion_tokens',
] as const

/** The total of `groups` (an answer of {@link summarizeUsage}), whatever they were grouped by. */
export function usageTotal(groups: readonly UsageGroup[]): UsageTotal {
  const sums = Object.fromEntries(TOTALLED.map((key) => [key, 0])) as Record<(typeof TOTALLED)[number], number>
  for (const group of groups) for (const key of TOTALLED) sums[key] += group[key]
  return withDollars(sums)
}
