/**
 * Idle memory of `bun start` on the embedded PGlite (#31): the server's RSS 10 s after `/ready` first answers 200,
 * with no request since, on a fresh data directory (initdb and the migrations run) and then restarted on the same
 * directory; and its peak (VmHWM) over each life, where initdb shows.
 *
 *   bun bench/pglite-idle.ts [--runs 3] [--idle-seconds 10]
 *
 * For the floor a PGlite server cannot go under, see BENCHMARKS.md, "PGlite idle memory".
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './processes'
import { argument } from './relay-driver'

const ROOT = join(import.meta.dir, '..')
const RUNS = Number(argument('runs', '3'))
const IDLE_SECONDS = Number(argument('idle-seconds', '10'))

/** A line of /proc/<pid>/status in MB (VmRSS, VmHWM). */
function statusMb(pid: number, key: string): number {
  const found = new RegExp(`^${key}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(found?.[1] ?? Number.NaN) / 1024
}

/** One life of the server on `dataDir`: ms to ready, RSS at ready, RSS after the idle wait, peak. */
async function life(dataDir: string) {
  const port = await freePort()
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    TRELLIS_DATA_DIR: dataDir,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
  }
  const { DATABASE_URL: _ignored, ...inherited } = process.env
  const child = Bun.spawn(['bun', 'src/runtimes/bun.ts'], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const started = performance.now()
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${port}/ready`).then(
      (response) => response.status,
      () => 0,
    )
    if (status === 200) break
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`)
    await Bun.sleep(100)
  }
  const ready = performance.now() - started
  const atReady = statusMb(child.pid, 'VmRSS')
  await Bun.sleep(IDLE_SECONDS * 1000)
  const idle = statusMb(child.pid, 'VmRSS')
  const peak = statusMb(child.pid, 'VmHWM')
  child.kill()
  await child.exited
  return { ready, atReady, idle, peak }
}

console.log(`# PGlite idle memory\n`)
console.log(
  `${new Date().toISOString()} · Bun ${Bun.version} · ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'} · load ${loadavg()[0]!.toFixed(1)}\n`,
)
console.log(`| run | start | ready after | RSS at ready | RSS after ${IDLE_SECONDS} s idle | peak |`)
console.log('|---|---|---:|---:|---:|---:|')
for (let run = 1; run <= RUNS; run++) {
  const scratch = mkdtempSync(join(tmpdir(), 'trellis-pglite-idle-'))
  try {
    for (const start of ['fresh', 'restart']) {
      const each = await life(join(scratch, 'data'))
      console.log(
        `| ${run} | ${start} | ${each.ready.toFixed(0)} ms | ${each.atReady.toFixed(0)} MB | ${each.idle.toFixed(0)} MB | ${each.peak.toFixed(0)} MB |`,
      )
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}
