import { bigint, date, index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'

/** The totals a rollup row keeps (daily here, monthly in usage-monthly.ts): new builders per table, as Drizzle needs. */
export const rollupTotals = () => ({
  requests: bigint('requests', { mode: 'number' }).notNull(),
  promptTokens: bigint('prompt_tokens', { mode: 'number' }).notNull(),
  completionTokens: bigint('completion_tokens', { mode: 'number' }).notNull(),
  cachedTokens: bigint('cached_tokens', { mode: 'number' }).notNull(),
  reasoningTokens: bigint('reasoning_tokens', { mode: 'number' }).notNull(),
  errors: bigint('errors', { mode: 'number' }).notNull(),
  /** Integer micro-dollars, the sum of the rows' `cost_micros`. */
  costMicros: bigint('cost_micros', { mode: 'number' }).notNull(),
})

/**
 * The ledger by UTC day, once per dimension: per model, per owner and per token (`dimension` says which, `key` is the
 * model, the owner or the token id). What the console's charts and token list read, so that 90 days of 1,000 tokens is
 * 90 × 1,000 rows for the token chart and a few hundred for the model chart, rather than every request. Kept by a
 * statement trigger on `usage_records` (migration 0010), so that every path that writes rows (the ledger's COPY, a
 * survivor's estimates) adds to it in the same transaction; rows are added in key order, so two replicas' batches
 * never deadlock on it.
 */
export const usageDaily = pgTable(
  'usage_daily',
  {
    dimension: text('dimension').notNull(),
    key: text('key').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    ...rollupTotals(),
  },
  (table) => [
    // Key before day: a chart finds one series' days in a few index entries.
    primaryKey({ columns: [table.dimension, table.key, table.day] }),
    // Day before key (migration 0011): a chart's top series read the few days at its range's edges here, the whole
    // months between from the monthly rollup.
    index('usage_daily_dimension_day_idx').on(table.dimension, table.day),
  ],
)
