/**
 * What a JavaScript step per upstream read costs, by the way the response body is written (#31): the same relay
 * (bench/write-shape-server.ts: `Bun.serve`, `await req.json()`, `fetch` to the bench mock) in each shape, every one
 * its own process, rounds interleaved, and the server CPU per stream of each ÷ the first shape's. Not part of the
 * product; it measures Bun, to tell which writer a relay should use and what the floor (`native`) really is.
 *
 *   bun bench/relay-write-shapes.ts [--one-pull | --gap-ms 1] [--shapes native,pull,direct,generator]
 *                                   [--seconds 4] [--rounds 3] [--concurrency 64]
 */
import {
  argument,
  firstLine,
  median,
  openAIEvents,
  reportErrors,
  runConcurrent,
  startMock,
  startProcess,
  stopAll,
  type Target,
  waitUntilServing,
} from './relay-driver'

const shapes = argument('shapes', 'native,pull,direct,generator').split(',')
const onePull = process.argv.includes('--one-pull')
const seconds = Number(argument('seconds', '4'))
const rounds = Number(argument('rounds', '3'))
const concurrency = Number(argument('concurrency', '64'))

const mock = await startMock({ gapMs: argument('gap-ms', '0'), onePull })
const body = JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: 'hi' }] })
const targets: Target[] = []
for (const shape of shapes) {
  const server = await startProcess(['bun', 'bench/write-shape-server.ts'], { SHAPE: shape, FLOOR_UPSTREAM: mock.url })
  const url = (await firstLine(server)).trim()
  targets.push({
    name: shape,
    url: `${url}/`,
    headers: { 'content-type': 'application/json' },
    body,
    pid: server.pid,
    check: openAIEvents(67),
  })
}
for (const target of targets) await waitUntilServing(target)

const results = new Map<string, { perSecond: number[]; cpu: number[] }>()
// Round 0 warms every target up and is not counted; the order alternates between rounds.
for (let round = 0; round <= rounds; round++) {
  for (const target of round % 2 ? [...targets].reverse() : targets) {
    const run = await runConcurrent(target, concurrency, round === 0 ? 2 : seconds)
    if (round === 0) continue
    const result = results.get(target.name) ?? { perSecond: [], cpu: [] }
    result.perSecond.push(run.perSecond)
    result.cpu.push(run.cpuPerStreamUs)
    results.set(target.name, result)
  }
}
const reference = results.get(shapes[0])!
console.log(
  `${onePull ? 'one pull' : `--gap-ms ${argument('gap-ms', '0')}`}, c=${concurrency}, ${rounds} rounds (medians)`,
)
console.log(`| shape | streams/s | server CPU per stream | CPU ÷ ${shapes[0]} | per round |`)
console.log('|---|---:|---:|---:|---|')
for (const name of shapes) {
  const result = results.get(name)!
  const perRound = result.cpu.map((cpu, k) => (cpu / reference.cpu[k]).toFixed(2)).join(', ')
  console.log(
    `| ${name} | ${median(result.perSecond).toFixed(0)} | ${median(result.cpu).toFixed(0)} µs | ${(median(result.cpu) / median(reference.cpu)).toFixed(2)} | ${perRound} |`,
  )
}
const errors = reportErrors(targets)
await stopAll()
process.exit(errors > 0 ? 1 : 0)
