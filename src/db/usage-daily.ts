import { bigint, date, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'

/**
 * The ledger by UTC day, token and model: what the console's charts read, so that 90 days of 1,000 tokens is a few
 * hundred thousand rows at most rather than every request. Kept by a statement trigger on `usage_records` (migration
 * 0009), so that every path that writes rows (the ledger's COPY, a survivor's estimates) adds to it in the same
 * transaction; rows are added in key order, so two replicas' batches never deadlock on it.
 */
export const usageDaily = pgTable(
  'usage_daily',
  {
    day: date('day', { mode: 'string' }).notNull(),
    tokenId: text('token_id').notNull(),
    model: text('model').notNull(),
    owner: text('owner').notNull(),
    requests: bigint('requests', { mode: 'number' }).notNull(),
    promptTokens: bigint('prompt_tokens', { mode: 'number' }).notNull(),
    completionTokens: bigint('completion_tokens', { mode: 'number' }).notNull(),
    cachedTokens: bigint('cached_tokens', { mode: 'number' }).notNull(),
    reasoningTokens: bigint('reasoning_tokens', { mode: 'number' }).notNull(),
    errors: bigint('errors', { mode: 'number' }).notNull(),
    /** Integer micro-dollars, the sum of the rows' `cost_micros`. */
    costMicros: bigint('cost_micros', { mode: 'number' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.day, table.tokenId, table.model, table.owner] })],
)
