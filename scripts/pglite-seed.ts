import { PGlite } from '@electric-sql/pglite'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/**
 * Build step of `bun run build`: writes a gzip dump of an empty PGlite cluster, which the
 * compiled binary embeds and unpacks into a data directory that has no database yet
 * (see src/runtimes/bun-pglite.ts). `initdb` inside WebAssembly takes seconds; unpacking, well under one.
 * The dump is kept next to a stamp of the PGlite version that made it, and made again only
 * when that version changes.
 *
 *   bun scripts/pglite-seed.ts dist/pglite-seed.tgz
 */
export async function writeEmptyCluster(path: string): Promise<'written' | 'up to date'> {
  const version = pgliteVersion()
  const stamp = `${path}.version`
  if (existsSync(path) && existsSync(stamp) && readFileSync(stamp, 'utf8') === version) return 'up to date'
  const db = await PGlite.create()
  const dump = await db.dumpDataDir('gzip')
  await db.close()
  // Written aside and renamed, so a build running at the same time never embeds half a file.
  const partial = `${path}.${process.pid}.partial`
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(partial, new Uint8Array(await dump.arrayBuffer()))
  renameSync(partial, path)
  writeFileSync(stamp, version)
  return 'written'
}

function pgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite')
  return (JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }).version
}

if (import.meta.main) {
  const path = process.argv[2] ?? 'dist/pglite-seed.tgz'
  console.log(`${path}: ${await writeEmptyCluster(path)}`)
}
