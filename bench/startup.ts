/**
 * Cold start: from spawning the process to the first 200 on `GET /health`, for the
 * compiled binary (`dist/trellis`) and for `bun src/runtimes/bun.ts`, against PostgreSQL (an
 * already migrated database; the start still checks migrations) and against the embedded
 * PGlite (a fresh, empty data directory every run, so initdb is included; and an existing one).
 *
 * Runs alternate between the two commands so drift on the machine hits both alike. The
 * clock starts just before spawn and stops at the first 200; /health is polled every 5 ms.
 *
 *   bun run build
 *   bun bench/startup.ts [--runs 15] [--database-url postgres://postgres@127.0.0.1:5432/postgres]
 *
 * The PostgreSQL runs use a scratch database created on that server and dropped at the end.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'

const ROOT = join(import.meta.dir, '..')
const argument = (name: string, fallback: string) => {
  const at = Bun.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : Bun.argv[at + 1]
}
const RUNS = Number(argument('runs', '15'))
const DATABASE_URL = argument('database-url', 'postgres://postgres@127.0.0.1:5432/postgres')
const BINARY = join(ROOT, 'dist/trellis')
const COMMANDS = { binary: [BINARY], source: ['bun', join(ROOT, 'src/runtimes/bun.ts')] } as const
type Target = keyof typeof COMMANDS

/** A port nobody listens on right now: the kernel picks it, we release it at once. */
function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}

/** Milliseconds from spawn to the first 200 on /health; the process is then killed and reaped. */
async function coldStart(target: Target, env: Record<string, string>): Promise<number> {
  const port = freePort()
  const started = performance.now()
  const child = Bun.spawn([...COMMANDS[target]], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      ...env,
    },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  try {
    while (true) {
      if (child.exitCode !== null) throw new Error(`${target} exited with ${child.exitCode} before answering`)
      try {
        const response = await fetch(`http://127.0.0.1:${port}/health`)
        if (response.status === 200) return performance.now() - started
      } catch {
        // not listening yet
      }
      if (performance.now() - started > 120_000) throw new Error(`${target} did not answer within 120 s`)
      await Bun.sleep(5)
    }
  } finally {
    child.kill('SIGKILL')
    await child.exited
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

type Scenario = { name: string; env: () => Promise<{ env: Record<string, string>; cleanup: () => void }> }

async function measure(scenario: Scenario) {
  const times: Record<Target, number[]> = { binary: [], source: [] }
  // One unmeasured start each, so the page cache holds both programs like it would on a server.
  for (const target of ['binary', 'source'] as const) {
    const { env, cleanup } = await scenario.env()
    await coldStart(target, env)
    cleanup()
  }
  for (let run = 0; run < RUNS; run++) {
    for (const target of run % 2 ? (['source', 'binary'] as const) : (['binary', 'source'] as const)) {
      const { env, cleanup } = await scenario.env()
      times[target].push(await coldStart(target, env))
      cleanup()
    }
  }
  const binary = median(times.binary)
  const source = median(times.source)
  return { scenario: scenario.name, binary, source, ratio: source / binary, times }
}

if (!existsSync(BINARY)) throw new Error('dist/trellis is missing: run `bun run build` first')

const admin = postgres(DATABASE_URL, { max: 1, onnotice: () => {} })
const scratch = `trellis_bench_startup_${Date.now().toString(36)}`
await admin.unsafe(`create database "${scratch}"`)
const pgUrl = new URL(DATABASE_URL)
pgUrl.pathname = `/${scratch}`
const persistentDir = mkdtempSync(join(tmpdir(), 'trellis-startup-pglite-'))

const scenarios: Scenario[] = [
  {
    name: 'PostgreSQL (migrated database)',
    env: async () => ({ env: { DATABASE_URL: pgUrl.toString() }, cleanup: () => {} }),
  },
  {
    name: 'PGlite, fresh data directory',
    env: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'trellis-startup-'))
      return {
        env: { TRELLIS_DATA_DIR: join(dir, 'data') },
        cleanup: () => rmSync(dir, { recursive: true, force: true }),
      }
    },
  },
  {
    name: 'PGlite, existing data directory',
    env: async () => ({ env: { TRELLIS_DATA_DIR: persistentDir }, cleanup: () => {} }),
  },
]

const loadAtStart = loadavg()[0]
const results = []
try {
  for (const scenario of scenarios) {
    const result = await measure(scenario)
    results.push(result)
    console.error(`${result.scenario}: binary ${result.binary.toFixed(0)} ms, source ${result.source.toFixed(0)} ms`)
  }
} finally {
  await admin.unsafe(`drop database if exists "${scratch}" with (force)`)
  await admin.end()
  rmSync(persistentDir, { recursive: true, force: true })
}

const fmt = (ms: number) => `${ms.toFixed(0)} ms`
const spread = (values: number[]) => `${fmt(Math.min(...values))}–${fmt(Math.max(...values))}`
console.log(`Cold start to the first 200 on /health, median of ${RUNS} runs (min–max in brackets)`)
console.log(
  `${cpus().length} CPUs, Bun ${Bun.version}; 1-minute load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end\n`,
)
console.log('| storage | `dist/trellis` | `bun src/runtimes/bun.ts` | source ÷ binary |')
console.log('|---|---|---|---|')
for (const r of results)
  console.log(
    `| ${r.scenario} | ${fmt(r.binary)} (${spread(r.times.binary)}) | ${fmt(r.source)} (${spread(r.times.source)}) | ${r.ratio.toFixed(2)}× |`,
  )
