import { asc, desc, eq } from 'drizzle-orm'
import type { Database } from '../db/connect'
import { docsRevisions } from '../db/schema'
import type { DocsConfig } from './schema'

/** One stored docs.json revision. */
export type StoredRevision = {
  revision: number
  source: string
  config: DocsConfig
  etag: string
  author: string
  size: number
  createdAt: Date
}

/** A revision without its contents, for listings. */
export type RevisionSummary = Omit<StoredRevision, 'source' | 'config'>

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
 * The revisions table. Rows are only ever inserted: a new docs.json is revision n+1, and the primary key on
 * the revision number is what makes two writers that both read revision n collide, so exactly one wins.
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
    const [row] = await this.db.select(SUMMARY_COLUMNS).from(docsRevisions).orderBy(desc(docsRevisions.revision)).limit(1)
    return row
  }

  async get(revision: number): Promise<StoredRevision | undefined> {
    const [row] = await this.db.select().from(docsRevisions).where(eq(docsRevisions.revision, revision))
    return row === undefined ? undefined : toStored(row)
  }

  /** Every revision, oldest first, without contents. */
  async list(): Promise<RevisionSummary[]> {
    return this.db.select(SUMMARY_COLUMNS).from(docsRevisions).orderBy(asc(docsRevisions.revision))
  }

  /**
   * Stores `revision` as number `after + 1`. Returns undefined when that number is already taken, i.e. some
   * other writer stored a revision after `after` was read.
   */
  async append(after: number, revision: NewRevision): Promise<StoredRevision | undefined> {
    const [row] = await this.db
      .insert(docsRevisions)
      .values({ ...revision, revision: after + 1 })
      .onConflictDoNothing({ target: docsRevisions.revision })
      .returning()
    return row === undefined ? undefined : toStored(row)
  }
}

function toStored(row: typeof docsRevisions.$inferSelect): StoredRevision {
  return { ...row, config: row.config as DocsConfig }
}
