import type { PGliteOptions } from '@electric-sql/pglite'
import initdbWasm from '@electric-sql/pglite/initdb.wasm' with { type: 'file' }
import fsBundle from '@electric-sql/pglite/pglite.data' with { type: 'file' }
import pgliteWasm from '@electric-sql/pglite/pglite.wasm' with { type: 'file' }
import { existsSync } from 'node:fs'
import { join } from 'node:path'

/**
 * PGlite's WebAssembly and file-system bundle, handed over explicitly. PGlite would
 * otherwise look for them next to its own module, a path that does not exist inside a
 * `bun build --compile` binary; `with { type: 'file' }` makes Bun embed them instead.
 * From source the same imports resolve to the files in node_modules.
 *
 * When `dataDir` holds no database yet and the binary embeds an empty cluster
 * (scripts/pglite-seed.ts, added by `bun run build`), the cluster is unpacked instead of running
 * `initdb`: the first start takes under a second instead of several.
 */
export async function bunPgliteFiles(dataDir: string): Promise<PGliteOptions> {
  const [pgliteWasmModule, initdbWasmModule] = await Promise.all([
    WebAssembly.compile(await Bun.file(pgliteWasm).arrayBuffer()),
    WebAssembly.compile(await Bun.file(initdbWasm).arrayBuffer()),
  ])
  const files: PGliteOptions = { pgliteWasmModule, initdbWasmModule, fsBundle: Bun.file(fsBundle) }
  const seed = Bun.embeddedFiles.find((file) => (file as Blob & { name: string }).name.startsWith('pglite-seed'))
  return seed && !existsSync(join(dataDir, 'PG_VERSION')) ? { ...files, loadDataDir: seed } : files
}
