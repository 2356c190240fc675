/**
 * Groups the samples of a `.cpuprofile` (from `bun --cpu-prof`, e.g. bench/profile-relay.ts):
 * self time by function and by file, and total (inclusive) time of the functions that hold most,
 * each as a share of the samples taken while the process was busy (idle and GC samples are shown
 * apart). Only the samples after `--skip-ms` count, so start-up can be left out.
 *
 *   bun bench/profile-summary.ts /tmp/trellis-prof/CPU.*.cpuprofile [--skip-ms 2000] [--top 40]
 */
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'

type Frame = { functionName: string; url: string; lineNumber: number }
type Node = { id: number; callFrame: Frame; children?: number[] }
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number }

const file = Bun.argv[2]
const option = (name: string, fallback: number) => {
  const at = Bun.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : Number(Bun.argv[at + 1])
}
if (!file) throw new Error('usage: bun bench/profile-summary.ts <file.cpuprofile> [--skip-ms N] [--top N]')
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
const SKIP_US = option('skip-ms', 2000) * 1000
const TOP = option('top', 40)
const ROOT = `${process.cwd()}/`

const byId = new Map(profile.nodes.map((node) => [node.id, node]))
const parent = new Map<number, number>()
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)

const where = (frame: Frame) => {
  const url = frame.url.replace(/^file:\/\//, '')
  if (!url) return '(native)'
  return url.startsWith(ROOT) ? relative(ROOT, url) : url
}
const label = (frame: Frame) => `${frame.functionName || '(anonymous)'} ${where(frame)}:${frame.lineNumber + 1}`

const self = new Map<string, number>()
const selfByFile = new Map<string, number>()
const total = new Map<string, number>()
let elapsed = 0
let counted = 0
let idle = 0
for (let i = 0; i < profile.samples.length; i++) {
  elapsed += profile.timeDeltas[i] ?? 0
  if (elapsed < SKIP_US) continue
  const leaf = byId.get(profile.samples[i]!)!
  const name = leaf.callFrame.functionName
  if (name === '(idle)' || name === '(program)') {
    idle++
    continue
  }
  counted++
  self.set(label(leaf.callFrame), (self.get(label(leaf.callFrame)) ?? 0) + 1)
  selfByFile.set(where(leaf.callFrame), (selfByFile.get(where(leaf.callFrame)) ?? 0) + 1)
  // Each function once per sample, however often it recurs in the stack.
  const seen = new Set<string>()
  for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
    const key = label(byId.get(id)!.callFrame)
    if (seen.has(key)) continue
    seen.add(key)
    total.set(key, (total.get(key) ?? 0) + 1)
  }
}

const share = (n: number) => `${((100 * n) / counted).toFixed(1)}%`
const table = (title: string, rows: Map<string, number>) => {
  console.log(`\n## ${title}\n\n| share | samples | where |\n|---:|---:|---|`)
  for (const [key, n] of [...rows].sort((a, b) => b[1] - a[1]).slice(0, TOP))
    console.log(`| ${share(n)} | ${n} | ${key} |`)
}
console.log(
  `# ${relative(process.cwd(), file)}\n\n${counted} busy samples after the first ${SKIP_US / 1000} ms (${idle} idle or program samples left out)`,
)
table('Self time by file', selfByFile)
table('Self time by function', self)
table('Total time by function', total)
