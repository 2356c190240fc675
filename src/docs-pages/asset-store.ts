import { and, asc, eq, gt, max, sql, sum } from 'drizzle-orm'
import { awaitWriterTurn } from '../db/advisory-lock'
import type { Database } from '../db/connect'
import { docsAssets } from '../db/schema'

/** A stored file without its bytes. `updatedAt` is an RFC 3339 string. */
export type AssetSummary = {
  path: string
  contentType: string
  kind: 'file' | 'openapi'
  sha256: string
  etag: string
  size: number
  updatedAt: string
}

export type StoredAsset = AssetSummary & { content: Uint8Array }

/** What a write stores; the generation and the time are the store's. */
export type NewAsset = Omit<AssetSummary, 'path' | 'updatedAt' | 'etag'> & { content: Uint8Array; author: string }

/** The site's files would pass their cap together: `used` bytes are stored besides this path's. */
export class SiteCapExceeded extends Error {
  override name = 'SiteCapExceeded'
  constructor(
    readonly used: number,
    readonly cap: number,
  ) {
    super('the site cap is reached')
  }
}

const SUMMARY_COLUMNS = {
  path: docsAssets.path,
  contentType: docsAssets.contentType,
  kind: docsAssets.kind,
  sha256: docsAssets.sha256,
  size: docsAssets.size,
  updatedAt: docsAssets.updatedAt,
}

/** "trla": the one lock every file writer takes in turn; no other lock uses it. */
const ASSET_LOCK_KEY = 0x7472_6c61

/**
 * The files table: one row per path, replaced in place. Writers of any file take turns on one advisory lock, so
 * the site cap is checked against a total no concurrent writer can change, and generations are assigned in
 * commit order (a reader who saw max(generation) = n never later meets a change below n). Files are few and
 * written by `docs push`, so the one turn costs nothing that matters. Works the same on PostgreSQL and PGlite.
 */
export class DocsAssetsStore {
  constructor(private readonly db: Database) {}

  async summary(path: string): Promise<AssetSummary | undefined> {
    const [row] = await this.db
      .select(SUMMARY_COLUMNS)
      .from(docsAssets)
      .where(and(eq(docsAssets.path, path), eq(docsAssets.deleted, false)))
    return row === undefined ? undefined : toSummary(row)
  }

  async get(path: string): Promise<StoredAsset | undefined> {
    const [row] = await this.db
      .select({ ...SUMMARY_COLUMNS, content: docsAssets.content })
      .from(docsAssets)
      .where(and(eq(docsAssets.path, path), eq(docsAssets.deleted, false)))
    return row === undefined ? undefined : { ...toSummary(row), content: row.content }
  }

  /** Up to `limit` files whose path sorts after `after`, by path (byte order), without their bytes. */
  async list(limit: number, after?: string): Promise<AssetSummary[]> {
    const rows = await this.db
      .select(SUMMARY_COLUMNS)
      .from(docsAssets)
      .where(and(eq(docsAssets.deleted, false), after === undefined ? undefined : gt(docsAssets.path, after)))
      .orderBy(asc(docsAssets.path))
      .limit(limit)
    return rows.map(toSummary)
  }

  /** Every stored OpenAPI document's path. */
  async openApiPaths(): Promise<string[]> {
    const rows = await this.db
      .select({ path: docsAssets.path })
      .from(docsAssets)
      .where(and(eq(docsAssets.deleted, false), eq(docsAssets.kind, 'openapi')))
      .orderBy(asc(docsAssets.path))
    return rows.map((row) => row.path)
  }

  /** A number that grows with every write and delete of any file (0 before the first). */
  async generation(): Promise<number> {
    const [row] = await this.db.select({ generation: max(docsAssets.generation) }).from(docsAssets)
    return row?.generation ?? 0
  }

  /**
   * Stores `asset` at `path`, replacing what is there, unless the files would then pass `siteCap` bytes together.
   *
   * @returns whether the path held no file before, and the stored summary.
   * @throws SiteCapExceeded
   */
  async write(path: string, asset: NewAsset, siteCap: number): Promise<{ stored: AssetSummary; created: boolean }> {
    return this.db.transaction(async (tx) => {
      await awaitWriterTurn(tx, ASSET_LOCK_KEY)
      const [totals] = await tx
        .select({
          others: sum(sql`case when ${docsAssets.path} <> ${path} then ${docsAssets.size} else 0 end`).mapWith(Number),
          existing: sum(sql`case when ${docsAssets.path} = ${path} then 1 else 0 end`).mapWith(Number),
        })
        .from(docsAssets)
        .where(eq(docsAssets.deleted, false))
      const others = totals?.others ?? 0
      if (others + asset.size > siteCap) throw new SiteCapExceeded(others, siteCap)
      const generation = (await currentGeneration(tx)) + 1
      const values = { ...asset, path, generation, deleted: false, updatedAt: new Date() }
      const [row] = await tx
        .insert(docsAssets)
        .values(values)
        .onConflictDoUpdate({ target: docsAssets.path, set: values })
        .returning(SUMMARY_COLUMNS)
      return { stored: toSummary(row!), created: (totals?.existing ?? 0) === 0 }
    })
  }

  /** Removes the file at `path` (a tombstone keeps the generation growing); false when there was none. */
  async remove(path: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      await awaitWriterTurn(tx, ASSET_LOCK_KEY)
      const generation = (await currentGeneration(tx)) + 1
      const rows = await tx
        .update(docsAssets)
        .set({ deleted: true, content: new Uint8Array(), size: 0, generation, updatedAt: new Date() })
        .where(and(eq(docsAssets.path, path), eq(docsAssets.deleted, false)))
        .returning({ path: docsAssets.path })
      return rows.length > 0
    })
  }
}

async function currentGeneration(tx: Pick<Database, 'select'>): Promise<number> {
  const [row] = await tx.select({ generation: max(docsAssets.generation) }).from(docsAssets)
  return row?.generation ?? 0
}

/** A file's entity tag: strong, from its SHA-256, so equal bytes have equal tags on every replica. */
const assetEtag = (sha256: string) => `"${sha256.slice(0, 32)}"`

function toSummary(row: {
  path: string
  contentType: string
  kind: string
  sha256: string
  size: number
  updatedAt: Date
}): AssetSummary {
  return {
    path: row.path,
    contentType: row.contentType,
    kind: row.kind === 'openapi' ? 'openapi' : 'file',
    sha256: row.sha256,
    etag: assetEtag(row.sha256),
    size: row.size,
    updatedAt: row.updatedAt.toISOString(),
  }
}
