import { asc, desc, eq, gt } from 'drizzle-orm'
import type { Database } from '../db/connect'
import { docsRevisions } from '../db/schema'
import { awaitWriterTurn } from '../db/advisory-lock'
import type { RevisionSummary } from './model'
import type { DocsConfig } from '../docs-format/docs-json'

/**
 * One stored docs.json revision: its summary as the API spells it (one type for storage and the
 * wire; `createdAt` an RFC 3339 string), its text as submitted and its normalised config.
 */
export type StoredRevision = RevisionSummary & { source: string; config: DocsConfig }

/** What a new revision holds; its number is assigned by {@link DocsRevisionStore.append}. */
export type NewRevision = Omit<StoredRevision, 'revision'>

const SUMMARY_COLUMNS = {
  revision: docsRevisions.revision,
  etag: docsRevisions.etag,
  author: docsRevisions.author,
  size: docsRevisions.size,
  createdAt: docsRevisions.createdAt,
}

/**
 * The revisions table. Rows are only ever inserted: a new docs.json is revision n+1. Writers queue on an
 * advisory lock (see appendNext), and the primary key on the revision number stays as the last guard.
 * Works the same on PostgreSQL and PGlite.
 */
export class DocsRevisionStore {
  constructor(private readonly db: Database) {}

  /** The newest revision, or undefined while none has been stored. */
  async latest(): Promise<StoredRevision | undefined> {
    const [row] = await this.db.select().from(docsRevisions).orderBy(desc(docsRevisions.revision)).limit(1)
    return row === undefined ? undefined : toStored(row)
  }

  /** The newest revision's number and ETag only, without its contents. */
  async latestSummary(): Promise<RevisionSummary | undefined> {
    const [row] = await this.db
      .select(SUMMARY_COLUMNS)
      .from(docsRevisions)
      .orderBy(desc(docsRevisions.revision))
      .limit(1)
    return row === undefined ? undefined : toSummary(row)
  }

  async get(revision: number): Promise<StoredRevision | undefined> {
    const [row] = await this.db.select().from(docsRevisions).where(eq(docsRevisions.revision, revision))
    return row === undefined ? undefined : toStored(row)
  }

  /** Up to `limit` revisions numbered above `after`, oldest first, without contents. */
  async list(limit: number, after = 0): Promise<RevisionSummary[]> {
    const rows = await this.db
      .select(SUMMARY_COLUMNS)
      .from(docsRevisions)
      .where(gt(docsRevisions.revision, after))
      .orderBy(asc(docsRevisions.revision))
      .limit(limit)
    return rows.map(toSummary)
  }

  /**
   * Runs `build` with the newest revision and stores what it returns as the next number, with every other
   * writer (in this process or another replica) waiting on one transaction-scoped advisory lock. Serializing
   * the writers is what lets a PUT without If-Match never lose a race: no two writers ever read the same
   * "newest" revision. The wait is bounded by `lock_timeout`; past it PostgreSQL raises 55P03, which the
   * service reports as busy (503) rather than as a stale revision (412).
   */
  async appendNext(build: (latest: RevisionSummary | undefined) => Promise<NewRevision>): Promise<StoredRevision> {
    return this.db.transaction(async (tx) => {
      await awaitWriterTurn(tx, WRITER_LOCK_KEY)
      const [latest] = await tx
        .select(SUMMARY_COLUMNS)
        .from(docsRevisions)
        .orderBy(desc(docsRevisions.revision))
        .limit(1)
      const values = await build(latest === undefined ? undefined : toSummary(latest))
      const [row] = await tx
        .insert(docsRevisions)
        .values({ ...values, createdAt: new Date(values.createdAt), revision: (latest?.revision ?? 0) + 1 })
        .returning()
      return toStored(row!)
    })
  }
}

/** The advisory-lock key that docs.json writers queue on (any constant 64-bit number that nothing else uses). */
const WRITER_LOCK_KEY = 0x7472_6c64_6f63 // "trldoc"
function toSummary(row: {
  revision: number
  etag: string
  author: string
  size: number
  createdAt: Date
}): RevisionSummary {
  return {
    revision: row.revision,
    createdAt: row.createdAt.toISOString(),
    author: row.author,
    size: row.size,
    etag: row.etag,
  }
}

function toStored(row: typeof docsRevisions.$inferSelect): StoredRevision {
  return { ...toSummary(row), source: row.source, config: row.config as DocsConfig }
}
