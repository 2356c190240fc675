/**
 * A CPU profile of Trellis serving the plant store under steady load (#31: the plant store ÷ its raw floor), as
 * bench/plants.ts runs it: PostgreSQL, a scratch database with 1,000 plants, `NODE_ENV=production`, `info` logging,
 * and wrk at 32 connections on one route for `--seconds`. Trellis runs under `bun --cpu-prof` and gets SIGTERM as soon
 * as the load stops, so the profile holds start-up and the load only; `bun bench/profile-summary.ts <file>` groups it.
 *
 * With `--floor`, the raw floor (bench/plants-floor.ts) is profiled instead, for the two side by side.
 *
 *   bun bench/profile-plants.ts [--route get|post] [--seconds 8] [--out /tmp/plants-prof] [--floor]
 */
import { join } from 'node:path'
import { scratchPostgresDatabase } from '../tests/helpers/database'
import { seedPlantStore, startPlantServer } from './plant-bench'
import { argument } from './relay-driver'

const ROOT = join(import.meta.dir, '..')
const ROUTE = argument('route', 'get')
const SECONDS = argument('seconds', '8')
const OUT = argument('out', '/tmp/plants-prof')
const PORT = '3103'
const SERVER = process.argv.includes('--floor') ? 'bench/plants-floor.ts' : 'src/runtimes/bun.ts'

const scratch = await scratchPostgresDatabase(
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
)
try {
  const token = await seedPlantStore(scratch.url)
  const url = `http://127.0.0.1:${PORT}`
  const env = {
    ...process.env,
    DATABASE_URL: scratch.url,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT,
    LOG_LEVEL: 'info',
  }
  const server = await startPlantServer(['bun', '--cpu-prof', '--cpu-prof-dir', OUT, SERVER], env, url)
  const args = ['-t1', '-c32', `-d${SECONDS}s`, '-H', `Authorization: Bearer ${token}`]
  const target =
    ROUTE === 'post' ? ['-s', join(ROOT, 'bench/wrk-post-plants.lua'), `${url}/plants`] : [`${url}/plants?limit=10`]
  const run = Bun.spawnSync(['wrk', ...args, ...target], { stdout: 'pipe' })
  console.log(
    run.stdout
      .toString()
      .split('\n')
      .filter((line) => /Requests\/sec|Non-2xx/.test(line))
      .join('\n'),
  )
  server.kill('SIGTERM')
  await server.exited
  console.log(`profile in ${OUT}`)
} finally {
  await scratch.drop()
}
