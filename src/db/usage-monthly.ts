import { bigint, date, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'

/**
 * The ledger by UTC month (`month` is its first day), once per dimension like the daily rollup (`usage_daily`), whose rows it sums.
 * What a daily chart finds its largest series in: 90 days of 1,000 tokens is 3 × 1,000 monthly rows plus the days at
 * the range's edges, rather than 90 × 1,000 daily rows. Kept by the same statement trigger as the daily rollup
 * (migration 0011), in the same transaction and in key order after the daily rows, so replicas lock alike.
 */
export const usageMonthly = pgTable(
  'usage_monthly',
  {
    dimension: text('dimension').notNull(),
    key: text('key').notNull(),
    month: date('month', { mode: 'string' }).notNull(),
    requests: bigint('requests', { mode: 'number' }).notNull(),
    promptTokens: bigint('prompt_tokens', { mode: 'number' }).notNull(),
    completionTokens: bigint('completion_tokens', { mode: 'number' }).notNull(),
    cachedTokens: bigint('cached_tokens', { mode: 'number' }).notNull(),
    reasoningTokens: bigint('reasoning_tokens', { mode: 'number' }).notNull(),
    errors: bigint('errors', { mode: 'number' }).notNull(),
    /** Integer micro-dollars, the sum of the rows' `cost_micros`. */
    costMicros: bigint('cost_micros', { mode: 'number' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.dimension, table.key, table.month] })],
)
