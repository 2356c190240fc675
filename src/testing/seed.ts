import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { PGliteOptions } from '@electric-sql/pglite'
import { type DatabaseHandle, openDatabase } from '../db/connect'
import { migrate } from '../db/migrate'
import { MIGRATIONS } from '../db/migrations.gen'

/**
 * A fresh in-memory PGlite for one test server, migrated, in about a tenth of a second instead of seconds.
 *
 * `initdb` inside WebAssembly takes two seconds or more, so it runs once: the migrated, empty cluster is dumped and
 * every database after it starts from that dump. The dump is kept in memory for the process and on disk (in the
 * system's temporary directory, named for the PGlite version and the migrations) for the next test run. It is made
 * small: 1 MiB WAL segments instead of 16, and without the `template0` and `template1` databases, which nothing uses;
 * unpacking fewer bytes is most of what a start costs. The compiled WebAssembly and PGlite's file bundle are shared
 * too. None of this is state of a server: each database is its own.
 */
export async function seededDatabase(): Promise<DatabaseHandle> {
  const files = await pgliteFiles()
  return openDatabase({ pglite: { ...files, loadDataDir: await migratedSeed() } })
}

let seed: Promise<Blob> | undefined
let shared: Promise<Pick<PGliteOptions, 'pgliteWasmModule' | 'initdbWasmModule' | 'fsBundle'>> | undefined

const requireHere = createRequire(import.meta.url)
const bytesOf = async (specifier: string) => new Uint8Array(await readFile(requireHere.resolve(specifier)))

/** PGlite's WebAssembly, compiled once per process (PGlite alone compiles it again for every database). */
function pgliteFiles() {
  shared ??= (async () => {
    const [pglite, initdb, bundle] = await Promise.all([
      bytesOf('@electric-sql/pglite/pglite.wasm'),
      bytesOf('@electric-sql/pglite/initdb.wasm'),
      bytesOf('@electric-sql/pglite/pglite.data'),
    ])
    const [pgliteWasmModule, initdbWasmModule] = await Promise.all([
      WebAssembly.compile(pglite),
      WebAssembly.compile(initdb),
    ])
    return { pgliteWasmModule, initdbWasmModule, fsBundle: new Blob([bundle]) }
  })()
  shared.catch(() => (shared = undefined))
  return shared
}

function migratedSeed(): Promise<Blob> {
  seed ??= (async () => {
    const path = join(tmpdir(), `trellis-testing-${seedStamp()}.tar`)
    try {
      return new Blob([readFileSync(path)])
    } catch {
      const dump = await makeSeed()
      // Written aside and renamed: two test runs starting together never read half a file.
      const partial = `${path}.${process.pid}.partial`
      try {
        mkdirSync(dirname(path), { recursive: true })
        writeFileSync(partial, new Uint8Array(await dump.arrayBuffer()))
        renameSync(partial, path)
      } catch {
        // A read-only temporary directory costs the next run its two seconds, nothing more.
      }
      return dump
    }
  })()
  seed.catch(() => (seed = undefined))
  return seed
}

async function makeSeed(): Promise<Blob> {
  const { PGlite } = await import('@electric-sql/pglite')
  const client = await PGlite.create({ ...(await pgliteFiles()), initDbStartParams: ['--wal-segsize=1'] })
  try {
    const { drizzle } = await import('drizzle-orm/pglite')
    await migrate(drizzle({ client }) as unknown as DatabaseHandle['db'])
    for (const template of ['template0', 'template1']) {
      await client.exec(
        `update pg_database set datistemplate = false, datallowconn = false where datname = '${template}'`,
      )
      await client.exec(`drop database ${template}`)
    }
    await client.exec('checkpoint')
    return await client.dumpDataDir('none')
  } finally {
    await client.close()
  }
}

/** Names the dump for what made it: another PGlite or another set of migrations makes another dump. */
function seedStamp(): string {
  const manifest = JSON.parse(
    readFileSync(join(dirname(requireHere.resolve('@electric-sql/pglite')), '..', 'package.json'), 'utf8'),
  ) as { version: string }
  const migrations = createHash('sha256')
    .update(MIGRATIONS.map((migration) => `${migration.tag}\n${migration.sql}`).join('\n'))
    .digest('hex')
  return `pglite-${manifest.version}-${migrations.slice(0, 16)}`
}
