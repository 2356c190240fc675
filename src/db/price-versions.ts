import { bigint, index, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core'

/**
 * The price table's history (src/cost/versions.ts): one row per model per change, in integer micro-dollars per
 * million tokens. A version takes effect at `from`, never earlier than the moment it was recorded, and is never
 * changed or deleted once in effect: a ledger row's `price_version` names the one it was priced by.
 */
export const priceVersions = pgTable(
  'price_versions',
  {
    id: serial('id').primaryKey(),
    /** A public model name, `provider/upstream model`, or an upstream model name. */
    model: text('model').notNull(),
    /** When it takes effect: the author's date, or when it was recorded if that date was already past. */
    from: timestamp('from', { withTimezone: true }).notNull(),
    /** The author's `from` date (YYYY-MM-DD), to tell an unchanged entry from a changed one. */
    declaredFrom: text('declared_from').notNull(),
    input: bigint('input', { mode: 'number' }).notNull(),
    cachedInput: bigint('cached_input', { mode: 'number' }).notNull(),
    cacheWrite: bigint('cache_write', { mode: 'number' }).notNull(),
    output: bigint('output', { mode: 'number' }).notNull(),
    reasoning: bigint('reasoning', { mode: 'number' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('price_versions_model_from_idx').on(table.model, table.from)],
)
