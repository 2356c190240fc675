/**
 * Plant store throughput: Trellis vs the raw Bun.serve + postgres.js floor, in one run,
 * on PostgreSQL. `bun bench/plants.ts` (needs wrk; PostgreSQL at BENCH_DATABASE_URL,
 * default postgres://postgres@127.0.0.1:5432/test, where a scratch database is made).
 * Prints a markdown table of req/s, p99 and the Trellis/floor ratio per route.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { scratchPostgresDatabase } from '../tests/helpers/database'
import { seedPlantStore, startPlantServer } from './plant-bench'

const ROOT = join(import.meta.dir, '..')
const DURATION = process.env.BENCH_DURATION ?? '10s'
const CONNECTIONS = process.env.BENCH_CONNECTIONS ?? '32'
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)

const scratch = await scratchPostgresDatabase(
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
)
const children: ReturnType<typeof Bun.spawn>[] = []
const pids: Record<string, number> = {}
try {
  const token = await seedPlantStore(scratch.url)

  const env = {
    ...process.env,
    DATABASE_URL: scratch.url,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  }
  const targets = {
    floor: await start(['bun', join(ROOT, 'bench/plants-floor.ts')], { ...env, PORT: '3101' }, 'http://127.0.0.1:3101'),
    trellis: await start(['bun', join(ROOT, 'src/runtimes/bun.ts')], { ...env, PORT: '3102' }, 'http://127.0.0.1:3102'),
  }
  const results: Record<string, { rps: number[]; p99: number[]; cpu: number[] }> = {}
  let offset = 10_000_000_000
  const load = (url: string, route: string, duration: string) =>
    wrk([
      '-t1',
      `-c${CONNECTIONS}`,
      `-d${duration}`,
      '--latency',
      '-H',
      `Authorization: Bearer ${token}`,
      ...(route.startsWith('GET')
        ? [`${url}/plants?limit=10`]
        : [
            '-s',
            join(ROOT, 'bench/wrk-post-plants.lua'),
            `${url}/plants`,
            '--',
            String((offset += 1_000_000_000_000)),
          ]),
    ])
  // Warm-up, unmeasured: both servers JIT-compile their hot paths before anything counts.
  for (const route of ['GET /plants?limit=10', 'POST /plants'])
    for (const url of Object.values(targets)) load(url, route, '3s')
  for (let round = 0; round < ROUNDS; round++)
    for (const route of ['GET /plants?limit=10', 'POST /plants'] as const)
      for (const [name, url] of Object.entries(targets)) {
        const cpuBefore = cpuSeconds(pids[name])
        const out = load(url, route, DURATION)
        const key = `${route} | ${name}`
        results[key] ??= { rps: [], p99: [], cpu: [] }
        results[key].rps.push(out.rps)
        results[key].p99.push(out.p99)
        results[key].cpu.push(((cpuSeconds(pids[name]) - cpuBefore) * 1e6) / out.requests)
        if (out.non2xx) throw new Error(`${key}: ${out.non2xx} non-2xx responses`)
      }

  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
  console.log(`\nwrk -t1 -c${CONNECTIONS} -d${DURATION}, ${ROUNDS} rounds (mean), Trellis LOG_LEVEL=${env.LOG_LEVEL}\n`)
  console.log(
    '| route | floor req/s | floor p99 | floor CPU/req | Trellis req/s | Trellis p99 | Trellis CPU/req | Trellis / floor (req/s) | floor / Trellis (CPU per request) |',
  )
  console.log('|---|---|---|---|---|---|---|---|---|')
  for (const route of ['GET /plants?limit=10', 'POST /plants']) {
    const floor = results[`${route} | floor`]
    const trellis = results[`${route} | trellis`]
    console.log(
      `| ${route} | ${mean(floor.rps).toFixed(0)} | ${mean(floor.p99).toFixed(2)} ms | ${mean(floor.cpu).toFixed(0)} µs | ${mean(trellis.rps).toFixed(0)} | ${mean(trellis.p99).toFixed(2)} ms | ${mean(trellis.cpu).toFixed(0)} µs | **${(mean(trellis.rps) / mean(floor.rps)).toFixed(2)}×** | ${(mean(floor.cpu) / mean(trellis.cpu)).toFixed(2)}× |`,
    )
  }
} finally {
  for (const child of children) child.kill()
  await Promise.all(children.map((c) => c.exited))
  await scratch.drop()
}

async function start(command: string[], env: Record<string, string | undefined>, url: string) {
  const child = await startPlantServer(command, env, url)
  children.push(child)
  pids[url.endsWith('3101') ? 'floor' : 'trellis'] = child.pid
  return url
}

function wrk(args: string[]) {
  const run = Bun.spawnSync(['wrk', ...args], { stdout: 'pipe', stderr: 'pipe' })
  const text = run.stdout.toString()
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1])
  const p99raw = /\s99%\s+([\d.]+)(us|ms|s)/.exec(text)
  const p99 = p99raw ? Number(p99raw[1]) * { us: 0.001, ms: 1, s: 1000 }[p99raw[2] as 'us' | 'ms' | 's'] : NaN
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0)
  const requests = Number(/(\d+) requests in/.exec(text)?.[1])
  if (!rps) throw new Error(`wrk failed: ${text}\n${run.stderr}`)
  return { rps, p99, non2xx, requests }
}

/** User + system CPU time of a process so far (Linux /proc), the steady figure on a shared machine. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}
