import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import lockfile from 'proper-lockfile'

/** How old a lock may grow without its holder touching it before it counts as abandoned. */
const STALE_MS = 10_000

/** The embedded database is in use by a live process: stop it first, or use PostgreSQL. */
export class DataDirInUse extends Error {
  override name = 'DataDirInUse'
  constructor(dataDir: string) {
    super(
      `the embedded database in ${dataDir} is in use by another process (a running server?); stop it first, or ` +
        `point DATABASE_URL at PostgreSQL to share one database between processes`,
    )
  }
}

/**
 * PGlite is a single-process database: two processes writing one data directory corrupt it.
 * The lock is a directory made inside the data directory (`mkdir` is atomic, on a shared volume
 * too) and touched every few seconds by its holder, with `proper-lockfile`. So it needs no pid:
 * two containers sharing one volume both run as pid 1, and each took the other's pid lock for
 * its own stale one. A holder killed with SIGKILL stops touching it; after {@link STALE_MS} the
 * next process takes it over.
 *
 * `waitMs` is how long to wait for a lock held by someone else (a server restarting after a
 * crash waits out the stale time; a CLI command fails at once). Refused: {@link DataDirInUse}.
 * Should the lock be lost while held (the process stalled past the stale time, and another took
 * it over), `onLost` is called: carrying on would risk the data.
 */
export async function lockDataDir(
  dataDir: string,
  options: { waitMs?: number; onLost: (error: Error) => void },
): Promise<() => Promise<void>> {
  mkdirSync(dataDir, { recursive: true })
  const waitMs = options.waitMs ?? 0
  try {
    return await lockfile.lock(dataDir, {
      lockfilePath: join(dataDir, 'trellis.lockdir'),
      realpath: false,
      stale: STALE_MS,
      onCompromised: options.onLost,
      retries: waitMs > 0 ? { retries: Math.ceil(waitMs / 500), factor: 1, minTimeout: 500, maxTimeout: 500 } : 0,
    })
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ELOCKED') throw new DataDirInUse(dataDir)
    throw error
  }
}

/** Long enough for a server restarting after a crash to wait out the stale lock its predecessor left. */
export const RESTART_WAIT_MS = STALE_MS + 2_000
