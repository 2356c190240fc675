import { PGlite } from '@electric-sql/pglite'
import postgres from 'postgres'
import { type DatabaseHandle, openDatabase } from '../../src/db/connect'
import { migrate } from '../../src/db/migrate'

/**
 * A fresh database for one test app, migrated unless told otherwise, on the backend the suite runs against:
 * with DATABASE_URL, a new PostgreSQL database created next to it (and dropped on close);
 * otherwise an in-memory PGlite. PGlite's initdb takes seconds, so it runs once per
 * process and every later database starts from a dump of that empty cluster.
 */
export async function freshDatabase(options: { migrated?: boolean } = {}): Promise<DatabaseHandle> {
  const url = process.env.DATABASE_URL
  const handle = url ? await freshPostgres(url) : await openDatabase({ pglite: { loadDataDir: await emptyCluster() } })
  if (options.migrated !== false) await migrate(handle.db)
  return handle
}

const cache = globalThis as { __trellisEmptyCluster?: Promise<Blob> }
function emptyCluster(): Promise<Blob> {
  cache.__trellisEmptyCluster ??= (async () => {
    const db = await PGlite.create()
    const dump = await db.dumpDataDir('none')
    await db.close()
    return dump
  })()
  return cache.__trellisEmptyCluster
}

async function freshPostgres(url: string): Promise<DatabaseHandle> {
  const scratch = await scratchPostgresDatabase(url)
  const handle = await openDatabase({ url: scratch.url, poolSize: 20 })
  return {
    ...handle,
    close: async () => {
      await handle.close()
      await scratch.drop()
    },
  }
}

/** A new, empty database on the server DATABASE_URL points at; `drop` removes it. */
export async function scratchPostgresDatabase(url: string) {
  const name = `trellis_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  await admin.unsafe(`create database "${name}"`)
  const target = new URL(url)
  target.pathname = `/${name}`
  return {
    url: target.toString(),
    drop: async () => {
      await admin.unsafe(`drop database if exists "${name}" with (force)`)
      await admin.end()
    },
  }
}
