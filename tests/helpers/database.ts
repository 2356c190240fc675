import { PGlite } from '@electric-sql/pglite'
import { drizzle } from 'drizzle-orm/pglite'
import postgres from 'postgres'
import { type Database, type DatabaseHandle, openDatabase } from '../../src/db/connect'
import { migrate } from '../../src/db/migrate'
import * as schema from '../../src/db/schema'

/**
 * A fresh database for one test app, migrated unless told otherwise, on the backend the suite runs against:
 * with DATABASE_URL, a new PostgreSQL database created next to it (and dropped on close);
 * otherwise an in-memory PGlite.
 *
 * Hundreds of tests each start from a fresh database, so the work every one of them would repeat is done once:
 * PGlite's initdb (seconds) and the migrations (a quarter of a second on PGlite, a sixth on PostgreSQL) run once per
 * process, and every later database is a copy: a dump of the cluster for PGlite, `create database … template` for
 * PostgreSQL. `migrate` still runs on the copy, where it finds everything applied, so a copy that were not current
 * would be migrated, not trusted.
 */
export async function freshDatabase(options: { migrated?: boolean } = {}): Promise<DatabaseHandle> {
  const url = process.env.DATABASE_URL
  const migrated = options.migrated !== false
  const handle = url
    ? await freshPostgres(url, migrated)
    : await openDatabase({ pglite: { loadDataDir: await (migrated ? migratedCluster() : emptyCluster()) } })
  if (migrated) await migrate(handle.db)
  return handle
}

/** Per process, on globalThis so that every test file a process runs (`--no-isolate`) shares them. */
const cache = globalThis as {
  __trellisEmptyCluster?: Promise<Blob>
  __trellisMigratedCluster?: Promise<Blob>
  __trellisTemplate?: Promise<string>
}
function emptyCluster(): Promise<Blob> {
  cache.__trellisEmptyCluster ??= (async () => {
    const db = await PGlite.create()
    const dump = await db.dumpDataDir('none')
    await db.close()
    return dump
  })()
  return cache.__trellisEmptyCluster
}

function migratedCluster(): Promise<Blob> {
  cache.__trellisMigratedCluster ??= (async () => {
    const client = await PGlite.create({ loadDataDir: await emptyCluster() })
    await migrate(drizzle({ client, schema }) as unknown as Database)
    const dump = await client.dumpDataDir('none')
    await client.close()
    return dump
  })()
  return cache.__trellisMigratedCluster
}

async function freshPostgres(url: string, migrated: boolean): Promise<DatabaseHandle> {
  const scratch = await scratchPostgresDatabase(url, migrated ? await migratedTemplate(url) : undefined)
  const handle = await openDatabase({ url: scratch.url, poolSize: 20 })
  return {
    ...handle,
    close: async () => {
      await handle.close()
      await scratch.drop()
    },
  }
}

/**
 * A new, empty database on the server DATABASE_URL points at (or a copy of `template`); `drop` removes it.
 */
export async function scratchPostgresDatabase(url: string, template?: string) {
  const name = `trellis_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  await admin.unsafe(`create database "${name}"${template ? ` template "${template}"` : ''}`)
  return {
    url: databaseUrl(url, name),
    drop: async () => {
      await admin.unsafe(`drop database if exists "${name}" with (force)`)
      await admin.end()
    },
  }
}

/**
 * A database migrated once per process, that every migrated test database copies. It is this process's own (named by
 * its pid), so suites running side by side on one server never copy a template another is still migrating. It outlives
 * its process (`bun test` runs no `exit` handlers): the next run drops every template whose process has ended.
 */
function migratedTemplate(url: string): Promise<string> {
  cache.__trellisTemplate ??= (async () => {
    const name = `trellis_template_${process.pid}`
    const admin = postgres(url, { max: 1, onnotice: () => {} })
    try {
      await dropStaleTemplates(admin)
      await admin.unsafe(`drop database if exists "${name}" with (force)`)
      await admin.unsafe(`create database "${name}"`)
      const handle = await openDatabase({ url: databaseUrl(url, name), poolSize: 1 })
      try {
        await migrate(handle.unbounded)
      } finally {
        await handle.close()
      }
      return name
    } finally {
      await admin.end()
    }
  })()
  return cache.__trellisTemplate
}

/** Templates of test processes that have ended. */
async function dropStaleTemplates(admin: postgres.Sql): Promise<void> {
  const rows = await admin<
    { datname: string }[]
  >`select datname from pg_database where datname like 'trellis_template_%'`
  for (const { datname } of rows) {
    const pid = Number(datname.slice('trellis_template_'.length))
    if (Number.isInteger(pid) && !alive(pid)) await admin.unsafe(`drop database if exists "${datname}" with (force)`)
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** `url` with its database replaced by `name`. */
function databaseUrl(url: string, name: string): string {
  const target = new URL(url)
  target.pathname = `/${name}`
  return target.toString()
}
