/**
 * trellis/testing (#28 §5): how long `startTrellis()` takes to the first answered request, and what a scripted stream
 * costs against echo's.
 *
 * Start: from calling `startTrellis()` to the answer of its first chat completion (a token made, the request sent and
 * read), `--runs` times after one warm-up start (the warm-up compiles PGlite and reads the migrated seed, once per
 * process); median and p95 of wall time and of the process's CPU time. The reference, in the same run and
 * interleaved: opening the same seeded in-memory PGlite alone (the floor of this way of starting), and the way the
 * suite's own helpers start a database (an empty cluster + every migration), a few times.
 *
 * Stream (with `--streams N`, and only where the `script` provider is built in): N streamed completions of the same
 * 200-token answer, one at a time, from the `script` provider and from `echo` on one test server, interleaved in
 * rounds; CPU per stream, and script ÷ echo.
 *
 *   bun bench/testing-start.ts [--runs 30] [--streams 300]
 */
import { cpus, loadavg } from 'node:os'
import { PGlite } from '@electric-sql/pglite'
import { openDatabase } from '../src/db/connect'
import { migrate } from '../src/db/migrate'
import { PROVIDER_KINDS } from '../src/chat/providers'
import { startTrellis, type Trellis } from '../src/testing'
import { seededDatabase } from '../src/testing/seed'

const argument = (name: string, fallback: string) => {
  const at = Bun.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : Bun.argv[at + 1]!
}
const RUNS = Number(argument('runs', '30'))
const STREAMS = Number(argument('streams', '0'))

const cpuMs = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

async function measure(work: () => Promise<void>): Promise<{ wall: number; cpu: number }> {
  const wall = performance.now()
  const cpu = cpuMs()
  await work()
  return { wall: performance.now() - wall, cpu: cpuMs() - cpu }
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}
const summary = (label: string, samples: { wall: number; cpu: number }[]) => {
  const walls = samples.map((sample) => sample.wall)
  const cpus = samples.map((sample) => sample.cpu)
  const fmt = (n: number) => n.toFixed(1).padStart(7)
  console.log(
    `${label.padEnd(44)} n=${String(samples.length).padStart(3)}  wall p50 ${fmt(quantile(walls, 0.5))} ms  ` +
      `p95 ${fmt(quantile(walls, 0.95))} ms   cpu p50 ${fmt(quantile(cpus, 0.5))} ms  p95 ${fmt(quantile(cpus, 0.95))} ms`,
  )
  return { wall: quantile(walls, 0.5), cpu: quantile(cpus, 0.5) }
}

const PROMPT = 'ready?'
async function firstAnswer(trellis: Trellis) {
  const response = await fetch(`${trellis.openaiBaseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await trellis.token()}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: PROMPT }] }),
  })
  if (response.status !== 200) throw new Error(`first request: ${response.status} ${await response.text()}`)
  await response.json()
}

console.log(
  `${new Date().toISOString()}  Bun ${Bun.version}, ${cpus().length} CPUs, load ${loadavg().map((l) => l.toFixed(1))}`,
)
await (await startTrellis()).close()
const starts: { wall: number; cpu: number }[] = []
const seeded: { wall: number; cpu: number }[] = []
for (let i = 0; i < RUNS; i++) {
  let trellis: Trellis | undefined
  starts.push(
    await measure(async () => {
      trellis = await startTrellis()
      await firstAnswer(trellis)
    }),
  )
  await trellis!.close()
  let database: Awaited<ReturnType<typeof seededDatabase>> | undefined
  seeded.push(
    await measure(async () => {
      database = await seededDatabase()
    }),
  )
  await database!.close()
}
const naive: { wall: number; cpu: number }[] = []
const emptyCluster = await (await PGlite.create()).dumpDataDir('none')
for (let i = 0; i < Math.min(5, RUNS); i++) {
  let database: Awaited<ReturnType<typeof openDatabase>> | undefined
  naive.push(
    await measure(async () => {
      database = await openDatabase({ pglite: { loadDataDir: emptyCluster } })
      await migrate(database.db)
    }),
  )
  await database!.close()
}
const start = summary('startTrellis() to first answer', starts)
const floor = summary('reference: the seeded PGlite alone', seeded)
summary("reference: empty cluster + migrations (helpers')", naive)
console.log(
  `startTrellis ÷ seeded PGlite alone: wall ${(start.wall / floor.wall).toFixed(2)}×, cpu ${(start.cpu / floor.cpu).toFixed(2)}×`,
)

if (STREAMS > 0) {
  if (!Object.hasOwn(PROVIDER_KINDS, 'script')) throw new Error('--streams needs the script provider (kind script)')
  const words = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ')
  await using trellis = await startTrellis({ scenario: { rules: [{ reply: [{ text: words }] }] } })
  const token = await trellis.token()
  const stream = async (model: string) => {
    const response = await fetch(`${trellis.openaiBaseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: words }] }),
    })
    const text = await response.text()
    if (!text.endsWith('data: [DONE]\n\n')) throw new Error(`${model}: the stream did not end`)
  }
  const cpu = { script: 0, echo: 0 }
  const ROUNDS = 6
  for (let round = 0; round < ROUNDS; round++)
    for (const model of round % 2 ? (['echo', 'script'] as const) : (['script', 'echo'] as const)) {
      const before = cpuMs()
      for (let i = 0; i < STREAMS / ROUNDS; i++) await stream(model)
      cpu[model] += cpuMs() - before
    }
  const per = (model: 'script' | 'echo') => (cpu[model] / STREAMS).toFixed(3)
  console.log(`200-token streams, ${STREAMS} each: CPU per stream script ${per('script')} ms, echo ${per('echo')} ms`)
  console.log(`script ÷ echo CPU per stream: ${(cpu.script / cpu.echo).toFixed(2)}×`)
}
