import {
  bigint,
  bigserial,
  boolean,
  customType,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgSequence,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core'
import { sql } from 'drizzle-orm'

/**
 * A token's own limits; absent fields fall back to TRELLIS_DEFAULT_LIMITS (see src/config/limits.ts and
 * src/governance/).
 */
export type TokenLimits = { rpm?: number; tpm?: number; streams?: number; budget_tokens?: number; budget_usd?: number }

/** API tokens. Only the SHA-256 of the secret is stored; lookups go by that hash. */
export const tokens = pgTable('tokens', {
  id: text('id').primaryKey(),
  owner: text('owner').notNull(),
  scopes: text('scopes').array().notNull(),
  hash: text('hash').notNull().unique(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  revokedAt: timestamp('revoked_at', { withTimezone: true }),
  /** `{rpm?, tpm?, streams?, budget_tokens?, budget_usd?}`; null: none of its own. */
  limits: jsonb('limits').$type<TokenLimits>(),
  /** Public model names this token may use; null: every model. */
  models: text('models').array(),
  /** After this the token is refused like a revoked one; null: never. */
  expiresAt: timestamp('expires_at', { withTimezone: true }),
  /** Its chat answers carry `x-trellis-cost` (opt-in: a cost is not every client's business). */
  costHeader: boolean('cost_header').notNull().default(false),
})

/**
 * Quota shared by every replica, taken in blocks (leases) so that a request rarely needs the
 * database (see src/config/limits.ts and src/governance/leases.ts). One row per token, kind and period: for `rpm` and
 * `tpm` a bucket (`value` = units available at `updated_at`, refilled continuously); for
 * `streams` and `budget` a count of units in use (`period` is the UTC month for `budget`).
 */
export const quotas = pgTable(
  'quotas',
  {
    tokenId: text('token_id').notNull(),
    kind: text('kind').notNull(),
    period: text('period').notNull(),
    value: doublePrecision('value').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.tokenId, table.kind, table.period] })],
)

/**
 * The processes that hold quota (see src/governance/holders.ts): each registers itself at start and beats every second.
 * One whose heartbeat is older than its time to live is dead, and a survivor reconciles what it held.
 */
export const quotaHolders = pgTable('quota_holders', {
  id: text('id').primaryKey(),
  startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
  heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }).notNull().defaultNow(),
})

/**
 * What each holder took from a counter (`streams`, `budget`) of `quotas` and has not given back or spent: its lease
 * and its requests in flight. Changed in the statement that changes `quotas` (no round trip of its own), and by the
 * ledger's batches for what settled requests spent; given back when the holder dies.
 */
export const quotaHoldings = pgTable(
  'quota_holdings',
  {
    holderId: text('holder_id').notNull(),
    tokenId: text('token_id').notNull(),
    kind: text('kind').notNull(),
    period: text('period').notNull(),
    units: doublePrecision('units').notNull(),
  },
  (table) => [primaryKey({ columns: [table.holderId, table.tokenId, table.kind, table.period] })],
)

/**
 * Chat requests in flight, as far as their process has told (see src/usage/journal.ts): written a moment after
 * admission, updated with the tokens counted so far, and deleted in the ledger batch that writes the request's own
 * row. A survivor turns the entries of a dead holder into estimate rows (`settled` false).
 */
export const usageJournal = pgTable(
  'usage_journal',
  {
    /** The reservation's id; the request's row carries it as `reservation_id`. */
    id: text('id').primaryKey(),
    holderId: text('holder_id').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    requestId: text('request_id').notNull(),
    tokenId: text('token_id').notNull(),
    owner: text('owner').notNull(),
    model: text('model').notNull(),
    provider: text('provider'),
    streamed: boolean('streamed').notNull(),
    /** The month of the budget it reserved from (`quotas.period`), or null: no budget. */
    budgetPeriod: text('budget_period'),
    /** The month of the money budget it reserved from (`quotas` kind `budget_usd`), or null: none. */
    budgetUsdPeriod: text('budget_usd_period'),
    /**
     * The rates its money reservation was estimated at (integer micro-dollars per million tokens: the dearest prompt
     * rate and the dearest completion rate of the models that could serve it), with which a dead holder's estimate row
     * is charged to that budget.
     */
    promptRate: bigint('prompt_rate', { mode: 'number' }),
    completionRate: bigint('completion_rate', { mode: 'number' }),
    promptTokens: integer('prompt_tokens').notNull(),
    completionTokens: integer('completion_tokens').notNull(),
  },
  (table) => [index('usage_journal_holder_idx').on(table.holderId)],
)

export { usageDaily } from './usage-daily' // in a file of its own; re-exported, since drizzle-kit reads this one
export { usageMonthly } from './usage-monthly' // likewise
/** One row per chat request: who used what, how it went. Written in batches off the request path. */
export const usageRecords = pgTable(
  'usage_records',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    at: timestamp('at', { withTimezone: true }).notNull(),
    requestId: text('request_id').notNull(),
    tokenId: text('token_id').notNull(),
    owner: text('owner').notNull(),
    model: text('model').notNull(),
    provider: text('provider'),
    upstreamModel: text('upstream_model'),
    streamed: boolean('streamed').notNull(),
    status: integer('status').notNull(),
    finishReason: text('finish_reason'),
    promptTokens: integer('prompt_tokens').notNull(),
    completionTokens: integer('completion_tokens').notNull(),
    cachedTokens: integer('cached_tokens').notNull(),
    reasoningTokens: integer('reasoning_tokens').notNull(),
    /** Prompt tokens written to a cache (Anthropic's `cache_creation_input_tokens`), part of `prompt_tokens`. */
    cacheWriteTokens: integer('cache_write_tokens').notNull().default(0),
    /** What the request cost, in integer micro-dollars, computed once when the row was made (src/cost/pricing.ts). */
    costMicros: bigint('cost_micros', { mode: 'number' }).notNull().default(0),
    /**
     * The `price_versions` row it was priced by; null: its model had no price (cost 0). An id, never a copy of the
     * prices. Not a foreign key: versions are never deleted once in effect, and the ledger's COPY checks nothing more.
     */
    priceVersion: integer('price_version'),
    ttftMs: real('ttft_ms'),
    durationMs: real('duration_ms').notNull(),
    errorCode: text('error_code'),
    /** False for an estimate: a request whose process died before it settled (see `usage_journal`). */
    settled: boolean('settled').notNull().default(true),
    /** The journal entry this row replaces, for a request that was journaled; null otherwise. */
    reservationId: text('reservation_id'),
  },
  (table) => [
    index('usage_records_at_idx').on(table.at),
    index('usage_records_owner_at_idx').on(table.owner, table.at),
    // A request has one row: its own, or the estimate a survivor wrote, whichever came first.
    uniqueIndex('usage_records_reservation_idx').on(table.reservationId).where(sql`reservation_id is not null`),
  ],
)

export { priceVersions } from './price-versions' // in a file of its own, re-exported like usageDaily

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
  (table) => [
    index('plants_owner_seq_idx').on(table.owner, table.seq),
    unique('plants_owner_id_unique').on(table.owner, table.id),
  ],
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

/**
 * Text compared byte by byte (`COLLATE "C"`), whatever the database's locale: its order, and a
 * pagination cursor's meaning, are then the same on every server, PGlite included.
 */
const byteOrderedText = customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' })

/**
 * Every revision of every Markdown page of the documentation site. Rows are only inserted: a page's
 * new text is its revision n+1, and older revisions stay readable.
 */
export const docsPages = pgTable(
  'docs_pages',
  {
    /**
     * Increasing across all pages, in commit order (writers take turns to insert; see
     * DocsPagesStore.appendNext), so max(id) is a cheap "something changed" stamp for the site.
     */
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    /** As docs.json navigation names the page: `plants/overview`. Listed in byte order. */
    path: byteOrderedText('path').notNull(),
    /** 1, 2, 3… per path. */
    revision: integer('revision').notNull(),
    /** The text exactly as submitted, front matter included. */
    source: text('source').notNull(),
    /** From the front matter, so that listing pages never parses their text. */
    title: text('title'),
    description: text('description'),
    /** The front matter's `sidebarTitle`: the page's label in the sidebar when it has one. */
    sidebarTitle: text('sidebar_title'),
    openapi: text('openapi'),
    etag: text('etag').notNull(),
    author: text('author').notNull(),
    /** Of the source, in bytes (UTF-8). */
    size: integer('size').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // Newest first within a path: the newest revision of one page, or of every page (DISTINCT ON), is an index scan.
  (table) => [uniqueIndex('docs_pages_path_revision_idx').on(table.path, table.revision.desc())],
)

/** PostgreSQL's full-text document type; Drizzle has none built in. */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' })

/** The weighted parts of docs_search_sections' generated vectors (the text of migration 0006, joined by `||`). */
const TITLE_WEIGHT = `setweight(to_tsvector('english', CASE WHEN "position" = 0 THEN "page_title" ELSE '' END), 'A')`
const HEADING_WEIGHT = `setweight(to_tsvector('english', "heading"), 'B')`
const BODY_WEIGHT = `setweight(to_tsvector('english', "body"), 'C')`
const OTHER_TITLE_WEIGHT = `setweight(to_tsvector('english', CASE WHEN "position" = 0 THEN '' ELSE "page_title" END), 'D')`

/**
 * The documentation site's search index: one row per section of a page (its top, then one per h2–h4 heading), so
 * a hit links to `page#heading`. Rebuilt for a page each time a new revision of it is stored (and caught up from
 * docs_pages when a write was missed); `origin` 'built-in' rows hold Trellis's own pages, shown while docs.json is
 * the built-in default. The weighted vector is generated by the database: the page title weighs most on the page's
 * top row (A), a heading on its own section (B), text after it (C), and the page title on its other sections (D),
 * so "plants install" still finds the Install section of the Plants page.
 */
export const docsSearchSections = pgTable(
  'docs_search_sections',
  {
    origin: text('origin').notNull(),
    path: byteOrderedText('path').notNull(),
    /** 0 for the page's top (title, description, text before the first heading), then 1, 2… in page order. */
    position: integer('position').notNull(),
    /** The page revision the rows were made from (0 for built-in pages): a writer never replaces newer rows. */
    revision: integer('revision').notNull(),
    /** 'page', or 'operation' for an API reference page. */
    kind: text('kind').notNull(),
    /** The heading's id in the rendered page; '' for the page's top. */
    anchor: text('anchor').notNull(),
    pageTitle: text('page_title').notNull(),
    heading: text('heading').notNull(),
    /** Plain text of the section (bounded), for the vector and the highlighted snippet. */
    body: text('body').notNull(),
    /**
     * Only the titles and the heading, weighted as in `search`: few words, so a search finds every section whose
     * title or heading matches without reading texts (see SearchIndexStore.search).
     */
    head: tsvector('head')
      .notNull()
      .generatedAlwaysAs(sql.raw([TITLE_WEIGHT, HEADING_WEIGHT, OTHER_TITLE_WEIGHT].join(' || '))),
    search: tsvector('search')
      .notNull()
      .generatedAlwaysAs(sql.raw([TITLE_WEIGHT, HEADING_WEIGHT, BODY_WEIGHT, OTHER_TITLE_WEIGHT].join(' || '))),
  },
  (table) => [
    primaryKey({ columns: [table.origin, table.path, table.position] }),
    index('docs_search_sections_head_idx').using('gin', table.head),
    index('docs_search_sections_search_idx').using('gin', table.search),
  ],
)

/**
 * Responses kept for `previous_response_id` and `GET /v1/responses/{id}` (`store: true`, the
 * default), per owner, until `expires_at` (`RESPONSES_RETENTION_DAYS`). JSON is kept as text rather
 * than jsonb: serialised JSON escapes what jsonb refuses (the NUL character, lone surrogates), so
 * whatever a client may send can be kept exactly, and nothing here is queried inside.
 */
export const responses = pgTable(
  'responses',
  {
    /** `resp_…`, made by Trellis (or, from a native provider, the upstream's). */
    id: text('id').primaryKey(),
    owner: text('owner').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** The Response object, as it was answered. */
    response: text('response').notNull(),
    /** The items this response continued from (its previous response's conversation and output), a JSON list. */
    context: text('context').notNull(),
    /** UTF-8 bytes of the context and the input, which the cap per stored response bounds. */
    bytes: integer('bytes').notNull(),
  },
  (table) => [index('responses_expires_at_idx').on(table.expiresAt)],
)

/**
 * The input and output items of each stored response, in order (`position`), for the input item
 * list and for `item_reference`s, which name an item of any of the owner's responses by its id.
 */
export const responseItems = pgTable(
  'response_items',
  {
    responseId: text('response_id')
      .notNull()
      .references(() => responses.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    owner: text('owner').notNull(),
    itemId: text('item_id').notNull(),
    /** `input` or `output`. */
    kind: text('kind').notNull(),
    /** The item, as JSON text. */
    item: text('item').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.responseId, table.position] }),
    index('response_items_owner_item_idx').on(table.owner, table.itemId),
  ],
)

/** Raw bytes; both drivers (postgres.js and PGlite) hand back a Uint8Array (a Buffer is one). */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' })

/**
 * The files of the documentation repository beside its pages: images, videos, fonts, OpenAPI documents.
 * One row per path, replaced in place (no history). A delete leaves a tombstone, and every write takes the
 * next `generation` in commit order (writers take turns; see DocsAssetsStore), so max(generation) is a cheap
 * "some file changed" stamp for the site, deletes included.
 */
export const docsAssets = pgTable(
  'docs_assets',
  {
    /** As a page or docs.json names the file, without a leading slash: `images/hero.png`. */
    path: byteOrderedText('path').primaryKey(),
    generation: bigint('generation', { mode: 'number' }).notNull(),
    /** Empty for a tombstone. */
    content: bytea('content').notNull(),
    contentType: text('content_type').notNull(),
    /** `file`, or `openapi` for an OpenAPI document that was validated when stored. */
    kind: text('kind').notNull(),
    /** Hex SHA-256 of the content: `docs push` compares it before uploading. */
    sha256: text('sha256').notNull(),
    size: integer('size').notNull(),
    author: text('author').notNull(),
    deleted: boolean('deleted').notNull().default(false),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('docs_assets_generation_idx').on(table.generation)],
)
