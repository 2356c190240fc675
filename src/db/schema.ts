import { bigint, bigserial, index, integer, jsonb, pgSequence, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core'

/** API tokens. Only the SHA-256 of the secret is stored; lookups go by that hash. */
export const tokens = pgTable('tokens', {
  id: text('id').primaryKey(),
  owner: text('owner').notNull(),
  scopes: text('scopes').array().notNull(),
  hash: text('hash').notNull().unique(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  revokedAt: timestamp('revoked_at', { withTimezone: true }),
})

/**
 * Ids the service assigns when a client sends none. Kept apart from `plants.seq` so that
 * client-chosen ids never collide with the ordering key; a collision with a client id only
 * costs one more `nextval`, see PlantService.create.
 */
export const plantIds = pgSequence('plant_id_seq', { startWith: 1 })

export const plants = pgTable(
  'plants',
  {
    /** Insertion order: "oldest first" listing and the pagination cursor. */
    seq: bigserial('seq', { mode: 'bigint' }).primaryKey(),
    /**
     * The public int64 id; `mode: 'bigint'` keeps values above 2^53 exact. Unique per owner, not
     * across owners: a global key made "that id is taken" (409) an oracle telling a stranger which
     * ids other owners hold.
     */
    id: bigint('id', { mode: 'bigint' }).notNull(),
    owner: text('owner').notNull(),
    name: text('name').notNull(),
    tag: text('tag'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('plants_owner_seq_idx').on(table.owner, table.seq), unique('plants_owner_id_unique').on(table.owner, table.id)],
)

/** Every docs.json ever accepted. Rows are only inserted, never updated: history is not rewritten. */
export const docsRevisions = pgTable('docs_revisions', {
  /** 1, 2, 3…; the primary key makes two writers racing for the same next number collide. */
  revision: integer('revision').primaryKey(),
  /** The text exactly as submitted. */
  source: text('source').notNull(),
  /** The normalised config (defaults filled in). */
  config: jsonb('config').notNull(),
  etag: text('etag').notNull(),
  author: text('author').notNull(),
  size: integer('size').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
})
