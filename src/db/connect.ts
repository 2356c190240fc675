import type { PGliteOptions } from '@electric-sql/pglite'
import { sql } from 'drizzle-orm'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import * as schema from './schema'

/** One type for both backends: the PGlite and postgres.js drizzle instances share this API. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>

export type DatabaseHandle = {
  db: Database
  kind: 'postgres' | 'pglite'
  /** Resolves when the database answers a trivial query; used by /ready. */
  ping(): Promise<void>
  close(): Promise<void>
}

export type DatabaseOptions = {
  /** postgres://… → PostgreSQL through postgres.js. */
  url?: string
  /** PGlite data directory; omitted → an in-memory database (tests). */
  dataDir?: string
  poolSize?: number
  /** Extra PGlite options, e.g. the wasm module and fs bundle a compiled binary embeds. */
  pglite?: PGliteOptions
}

/**
 * Opens PostgreSQL when a URL is given, an embedded PGlite otherwise. Drivers are loaded
 * lazily so a deployment on one backend never pays the start-up cost of the other.
 */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  const handle = options.url ? await openPostgres(options.url, options.poolSize ?? 10) : await openPglite(options)
  return handle
}

async function openPostgres(url: string, max: number): Promise<DatabaseHandle> {
  const { default: postgres } = await import('postgres')
  const { drizzle } = await import('drizzle-orm/postgres-js')
  // Notices ("relation already exists, skipping") are expected during migrations and are not errors.
  const client = postgres(url, { max, onnotice: () => {} })
  const db = drizzle({ client, schema }) as unknown as Database
  return {
    db,
    kind: 'postgres',
    ping: async () => void (await db.execute(sql`select 1`)),
    close: () => client.end({ timeout: 5 }),
  }
}

async function openPglite(options: DatabaseOptions): Promise<DatabaseHandle> {
  const { PGlite } = await import('@electric-sql/pglite')
  const { drizzle } = await import('drizzle-orm/pglite')
  const client = await PGlite.create({ ...options.pglite, dataDir: options.dataDir })
  const db = drizzle({ client, schema }) as unknown as Database
  return {
    db,
    kind: 'pglite',
    ping: async () => void (await db.execute(sql`select 1`)),
    close: () => client.close(),
  }
}
