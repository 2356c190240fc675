import { date, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'
import { rollupTotals } from './usage-daily'

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
    ...rollupTotals(),
  },
  (table) => [primaryKey({ columns: [table.dimension, table.key, table.month] })],
)
