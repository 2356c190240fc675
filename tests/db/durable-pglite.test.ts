/**
 * Commits on the embedded database reach the disk (src/db/durable-pglite.ts). PGlite's defaults
 * acknowledged 1,521 writes without one fsync: safe from `kill -9`, not from a power cut.
 */
import { expect, setDefaultTimeout, test } from 'bun:test'
import { PGlite } from '@electric-sql/pglite'
import { sql } from 'drizzle-orm'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LAZY_FLUSH_MS, openDatabase } from '../../src/db/connect'
import { DURABLE_START_PARAMS, DurableNodeFS } from '../../src/db/durable-pglite'
import { copyLine } from '../../src/db/copy-text'
import { rowsOf } from '../../src/db/migrate'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const scratch = () => join(mkdtempSync(join(tmpdir(), 'trellis-durable-')), 'data')

test('a data directory is opened with fsync on, syncing the WAL with fsync()', async () => {
  const dir = scratch()
  const handle = await openDatabase({ dataDir: dir })
  try {
    const setting = async (name: string) =>
      rowsOf<Record<string, string>>(await handle.db.execute(sql.raw(`show ${name}`)))[0]![name]
    expect(await setting('fsync')).toBe('on')
    expect(await setting('wal_sync_method')).toBe('fsync')
  } finally {
    await handle.close()
    rmSync(dir, { recursive: true, force: true })
  }
}, 60_000)

test('every commit is an fsync that reaches the file system; without the patch, none is', async () => {
  const dir = scratch()
  const fs = new DurableNodeFS(dir)
  const db = await PGlite.create({ fs, startParams: DURABLE_START_PARAMS })
  try {
    await db.exec('create table t (v int)')
    const before = fs.syncs
    for (let i = 0; i < 20; i++) await db.query('insert into t values ($1)', [i])
    expect(fs.syncs - before).toBeGreaterThanOrEqual(20)
  } finally {
    await db.close()
    rmSync(dir, { recursive: true, force: true })
  }
  // The control: PGlite's own start parameters (-F) ask for no fsync at all.
  expect((PGlite as unknown as { defaultStartParams: string[] }).defaultStartParams).toContain('-F')
  expect(DURABLE_START_PARAMS).not.toContain('-F')
}, 60_000)

test('a COPY (the usage ledger) commits without waiting for the disk, and is flushed within LAZY_FLUSH_MS', async () => {
  const dir = scratch()
  const handle = await openDatabase({ dataDir: dir })
  const lsn = async () =>
    rowsOf<{ written: string; flushed: string; behind: boolean }>(
      await handle.db.execute(
        sql`select pg_current_wal_insert_lsn()::text as written, pg_current_wal_flush_lsn()::text as flushed, pg_current_wal_flush_lsn() < pg_current_wal_insert_lsn() as behind`,
      ),
    )[0]!
  try {
    await handle.db.execute(sql`create table copied (v text)`)
    expect((await lsn()).behind).toBe(false)
    await handle.copyIn('copied', ['v'], [copyLine(['a']), copyLine(['b\tc'])])
    const after = await lsn()
    expect(after.behind).toBe(true)
    await Bun.sleep(LAZY_FLUSH_MS + 300)
    const later = await handle.db.execute(sql`select pg_current_wal_flush_lsn() >= ${after.written}::pg_lsn as flushed`)
    expect(rowsOf<{ flushed: boolean }>(later)[0]!.flushed).toBe(true)
    expect(
      rowsOf<{ v: string }>(await handle.db.execute(sql`select v from copied order by v`)).map((row) => row.v),
    ).toEqual(['a', 'b\tc'])
  } finally {
    await handle.close()
    rmSync(dir, { recursive: true, force: true })
  }
}, 60_000)
