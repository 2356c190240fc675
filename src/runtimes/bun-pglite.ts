import type { PGliteOptions } from '@electric-sql/pglite'
import initdbWasm from '@electric-sql/pglite/initdb.wasm' with { type: 'file' }
import fsBundle from '@electric-sql/pglite/pglite.data' with { type: 'file' }
import pgliteWasm from '@electric-sql/pglite/pglite.wasm' with { type: 'file' }

/**
 * PGlite's WebAssembly and file-system bundle, handed over explicitly. PGlite would
 * otherwise look for them next to its own module, a path that does not exist inside a
 * `bun build --compile` binary; `with { type: 'file' }` makes Bun embed them instead.
 * From source the same imports resolve to the files in node_modules.
 */
export async function bunPgliteFiles(): Promise<PGliteOptions> {
  const [pgliteWasmModule, initdbWasmModule] = await Promise.all([
    WebAssembly.compile(await Bun.file(pgliteWasm).arrayBuffer()),
    WebAssembly.compile(await Bun.file(initdbWasm).arrayBuffer()),
  ])
  return { pgliteWasmModule, initdbWasmModule, fsBundle: Bun.file(fsBundle) }
}
