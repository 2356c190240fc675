import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * PGlite is a single-process database: two processes writing one data directory corrupt
 * it. A lock file holding the owner's pid keeps a second `trellis` (a CLI command while
 * the server runs, a second worker) out, with a message that says what to do instead.
 * A lock left by a process that no longer exists is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true })
  const file = join(dataDir, 'trellis.lock')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' })
      return () => rmSync(file, { force: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const holder = Number(readFileSync(file, 'utf8'))
      if (holder && holder !== process.pid && isAlive(holder))
        throw new Error(
          `the embedded database in ${dataDir} is in use by process ${holder}; stop it first, or point DATABASE_URL at PostgreSQL to share one database between processes`,
        )
      rmSync(file, { force: true })
    }
  }
  throw new Error(`could not lock ${dataDir}`)
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
