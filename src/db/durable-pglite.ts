import { PGlite } from '@electric-sql/pglite'
import { NodeFS } from '@electric-sql/pglite/nodefs'
import { fsyncSync } from 'node:fs'

/*
 * Durable commits on the embedded database. PGlite starts PostgreSQL with `-F` (fsync off), and
 * its file system (emscripten's NODEFS) has no fsync at all, so an acknowledged write survived
 * `kill -9` (it was in the OS's page cache) but not a host crash or power loss: 1,521 acknowledged
 * writes, not one fsync. Here PostgreSQL runs with fsync on, syncing the WAL with fsync() (its
 * fdatasync() is a no-op in emscripten), and NODEFS's fsync reaches the real file. Measured: one
 * fsync per commit, and about 0.2 ms more per insert (BENCHMARKS.md).
 */

/**
 * PGlite's own start parameters, with fsync on and a WAL sync method that reaches the disk, and shared buffers of
 * 16 MB instead of PostgreSQL's 128 MB. PGlite's shared memory lives in its WebAssembly heap, and the whole buffer pool
 * is resident from the start, idle or not (112 MB less pool measured as about 120 MB less RSS). 16 MB took a fresh
 * idle server from 325–329 MB to 205–211 MB (BENCHMARKS.md, "PGlite idle memory"); what it costs is a scan of a table
 * larger than the pool, which then reads through the file system (the OS's page cache) instead of the pool.
 */
export const DURABLE_START_PARAMS: string[] = [
  ...(PGlite as unknown as { defaultStartParams: string[] }).defaultStartParams.filter((param) => param !== '-F'),
  '-c',
  'wal_sync_method=fsync',
  '-c',
  'shared_buffers=16MB',
]

type EmscriptenModule = { NODEFS: { stream_ops: { fsync?: (stream: { nfd?: number }) => number } } }

/** PGlite's Node file system, with an fsync that syncs the file it names. */
export class DurableNodeFS extends NodeFS {
  /** How many fsyncs reached the disk (for tests). */
  syncs = 0

  override async init(pg: PGlite, options: Parameters<NodeFS['init']>[1]) {
    const result = await super.init(pg, options)
    const preRun = [
      ...(result.emscriptenOpts.preRun ?? []),
      (module: EmscriptenModule) => {
        module.NODEFS.stream_ops.fsync = (stream) => {
          // A failed fsync throws: PostgreSQL must not acknowledge what may not be on disk.
          if (typeof stream.nfd === 'number') fsyncSync(stream.nfd)
          this.syncs++
          return 0
        }
      },
    ]
    return { ...result, emscriptenOpts: { ...result.emscriptenOpts, preRun } }
  }
}
