import { and, asc, desc, eq, gt, max } from 'drizzle-orm'
import type { Database } from '../db/connect'
import { docsPages } from '../db/schema'
import { awaitWriterTurn } from '../db/advisory-lock'

/**
 * One stored revision of a page without its text. `createdAt` is an RFC 3339 string; the front matter
 * fields are absent when the page has none.
 */
export type PageSummary = {
  path: string
  revision: number
  etag: string
  title?: string
  description?: string
  sidebarTitle?: string
  openapi?: string
  size: number
  createdAt: string
}

/** A revision with its author and its text exactly as submitted. */
export type PageRevision = PageSummary & { author: string; source: string }

/** What a new revision holds; its number is assigned by {@link DocsPagesStore.appendNext}. */
export type NewPageRevision = Omit<PageRevision, 'revision' | 'path'>

const SUMMARY_COLUMNS = {
  path: docsPages.path,
  revision: docsPages.revision,
  etag: docsPages.etag,
  title: docsPages.title,
  description: docsPages.description,
  sidebarTitle: docsPages.sidebarTitle,
  openapi: docsPages.openapi,
  size: docsPages.size,
  createdAt: docsPages.createdAt,
}

/**
 * The pages table. Rows are only ever inserted: a page's new text is its revision n+1. Writers of one
 * page take turns (see appendNext), and the unique index on (path, revision) stays as the last guard.
 * Works the same on PostgreSQL and PGlite.
 */
export class DocsPagesStore {
  constructor(private readonly db: Database) {}

  /** The newest revision of `path`, with its text; undefined when the page was never written. */
  async latest(path: string): Promise<PageRevision | undefined> {
    const [row] = await this.db
      .select()
      .from(docsPages)
      .where(eq(docsPages.path, path))
      .orderBy(desc(docsPages.revision))
      .limit(1)
    return row === undefined ? undefined : toRevision(row)
  }

  async get(path: string, revision: number): Promise<PageRevision | undefined> {
    const [row] = await this.db
      .select()
      .from(docsPages)
      .where(and(eq(docsPages.path, path), eq(docsPages.revision, revision)))
    return row === undefined ? undefined : toRevision(row)
  }

  /**
   * The newest revision of up to `limit` pages whose path sorts after `after` (of every page without
   * `limit`), sorted by path, without their texts: one query, DISTINCT ON over the (path, revision
   * DESC) index.
   */
  async newest(limit?: number, after?: string): Promise<PageSummary[]> {
    const query = this.db
      .selectDistinctOn([docsPages.path], SUMMARY_COLUMNS)
      .from(docsPages)
      .where(after === undefined ? undefined : gt(docsPages.path, after))
      .orderBy(asc(docsPages.path), desc(docsPages.revision))
    const rows = await (limit === undefined ? query : query.limit(limit))
    return rows.map(toSummary)
  }

  /** The highest id of any revision, 0 before the first: it grows with every revision stored. */
  async generation(): Promise<number> {
    const [row] = await this.db.select({ id: max(docsPages.id) }).from(docsPages)
    return row?.id ?? 0
  }

  /**
   * Runs `build` with the newest revision of `path` and stores what it returns as the next number (or
   * nothing, when `build` returns undefined: the text is unchanged). Writers of the same page, in this
   * process or another replica, take turns on a transaction-scoped advisory lock keyed by the path, so a
   * PUT without If-Match never loses a race. The insert itself takes one more turn, shared by all pages:
   * ids are then assigned in commit order, and a reader who saw max(id) = n never later meets a row
   * below n that was committed after it looked.
   */
  async appendNext(
    path: string,
    build: (latest: PageRevision | undefined) => Promise<NewPageRevision | undefined>,
  ): Promise<{ stored: PageRevision; created: boolean; unchanged: boolean }> {
    return this.db.transaction(async (tx) => {
      await awaitWriterTurn(tx, PAGE_LOCK_NAMESPACE, pathLockKey(path))
      const [latestRow] = await tx
        .select()
        .from(docsPages)
        .where(eq(docsPages.path, path))
        .orderBy(desc(docsPages.revision))
        .limit(1)
      const latest = latestRow === undefined ? undefined : toRevision(latestRow)
      const values = await build(latest)
      if (values === undefined) return { stored: latest!, created: false, unchanged: true }
      await awaitWriterTurn(tx, INSERT_LOCK_KEY)
      const [row] = await tx
        .insert(docsPages)
        .values({ ...values, path, createdAt: new Date(values.createdAt), revision: (latest?.revision ?? 0) + 1 })
        .returning()
      return { stored: toRevision(row!), created: latest === undefined, unchanged: false }
    })
  }
}

/** The first key of every page writer's lock (the second is the path's hash): "trlp", in no other use. */
const PAGE_LOCK_NAMESPACE = 0x7472_6c70
/** The lock every page insert takes in turn (any constant 64-bit number that nothing else uses): "trlpins". */
const INSERT_LOCK_KEY = 0x7472_6c70_696e

/**
 * A 32-bit FNV-1a hash of the path, as a signed int4. Two paths that share a hash only share a turn,
 * which costs a little waiting and nothing else.
 */
function pathLockKey(path: string): number {
  let hash = 0x811c9dc5
  for (let index = 0; index < path.length; index++) hash = Math.imul(hash ^ path.charCodeAt(index), 0x01000193)
  return hash | 0
}

function toSummary(row: Pick<typeof docsPages.$inferSelect, keyof typeof SUMMARY_COLUMNS>): PageSummary {
  return {
    path: row.path,
    revision: row.revision,
    etag: row.etag,
    ...(row.title === null ? {} : { title: row.title }),
    ...(row.description === null ? {} : { description: row.description }),
    ...(row.sidebarTitle === null ? {} : { sidebarTitle: row.sidebarTitle }),
    ...(row.openapi === null ? {} : { openapi: row.openapi }),
    size: row.size,
    createdAt: row.createdAt.toISOString(),
  }
}

function toRevision(row: typeof docsPages.$inferSelect): PageRevision {
  return { ...toSummary(row), author: row.author, source: row.source }
}
