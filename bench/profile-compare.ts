/**
 * Two server profiles of bench/profile-relay.ts side by side, per stream: the inclusive time of the call paths under a
 * root function (`streamEvents` by default: everything a stream's reads cost), and of the samples outside it that
 * differ most (the collector's, the route's). What one path costs more than another where it costs it, which a
 * share of each profile's busy samples cannot say when the two ran at different rates.
 *
 * Only the samples between the root's first and last are counted (start-up and the wind-down are left out), and
 * the streams in that window are estimated from the run's count and length (`--seconds`, as given to
 * profile-relay.ts, default 8): `<streams>` is the count profile-relay.ts printed.
 *
 *   bun bench/profile-compare.ts <a.cpuprofile> <streams> <b.cpuprofile> <streams> [--root streamEvents] [--depth 2]
 *     [--seconds 8] [--top 25]
 */
import { readFileSync } from 'node:fs'
import { argument } from './relay-driver'

type Frame = { functionName: string; url: string; lineNumber: number }
type Profile = {
  nodes: { id: number; callFrame: Frame; children?: number[] }[]
  samples: number[]
  timeDeltas: number[]
}

const [fileA, streamsA, fileB, streamsB] = Bun.argv.slice(2)
if (!fileA || !streamsA || !fileB || !streamsB)
  throw new Error('usage: bun bench/profile-compare.ts <a.cpuprofile> <streams> <b.cpuprofile> <streams> [--root f]')
const ROOT = argument('root', 'streamEvents')
const DEPTH = Number(argument('depth', '2'))
const SECONDS = Number(argument('seconds', '8'))
const TOP = Number(argument('top', '25'))
/** The start of the window is this far after the root's first sample, past the first streams' warm-up. */
const SETTLE_US = 300_000

/** Microseconds per stream by call path: under the root (`> `-joined, from below it), and outside it (`outside: f`). */
function perStream(file: string, streams: number): { paths: Map<string, number>; total: number } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const name = (id: number) => {
    const frame = byId.get(id)!.callFrame
    return `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber}`
  }
  const stacks = profile.samples.map((sample) => {
    const chain: string[] = []
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) chain.push(name(id))
    return chain.reverse()
  })
  const isRoot = (frame: string) => frame.startsWith(`${ROOT} `)
  let clock = 0
  let first = -1
  let last = 0
  const times = profile.timeDeltas.map((delta, i) => {
    clock += delta
    if (stacks[i]!.some(isRoot)) {
      if (first < 0) first = clock
      last = clock
    }
    return clock
  })
  const from = first + SETTLE_US
  const inWindow = (streams * (last - from)) / (SECONDS * 1_000_000)
  const paths = new Map<string, number>()
  let total = 0
  stacks.forEach((chain, i) => {
    const at = times[i]!
    const leaf = chain.at(-1)!
    if (at < from || at > last || leaf.startsWith('(idle)') || leaf.startsWith('(program)')) return
    const delta = profile.timeDeltas[i]!
    total += delta
    const root = chain.findIndex(isRoot)
    const path = root < 0 ? `outside: ${leaf}` : chain.slice(root + 1, root + 1 + DEPTH).join(' > ') || `${ROOT} (self)`
    paths.set(path, (paths.get(path) ?? 0) + delta)
  })
  for (const [path, time] of paths) paths.set(path, time / inWindow)
  return { paths, total: total / inWindow }
}

const a = perStream(fileA, Number(streamsA))
const b = perStream(fileB, Number(streamsB))
console.log(`busy µs per stream: a ${a.total.toFixed(0)}, b ${b.total.toFixed(0)}\n`)
console.log('| a − b | a | b | call path |\n|---:|---:|---:|---|')
const rows = [...new Set([...a.paths.keys(), ...b.paths.keys()])].map((path) => {
  const x = a.paths.get(path) ?? 0
  const y = b.paths.get(path) ?? 0
  return { path, x, y }
})
rows.sort((p, q) => Math.abs(q.x - q.y) - Math.abs(p.x - p.y))
for (const { path, x, y } of rows.slice(0, TOP))
  console.log(`| ${(x - y).toFixed(1)} | ${x.toFixed(1)} | ${y.toFixed(1)} | ${path} |`)
