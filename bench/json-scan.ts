/**
 * The relay's in-place event check (src/json/scan.ts) against `JSON.parse` of the same events, in
 * one run: a stream of 64 OpenAI chunks as the bench mock writes them (tests/chat/mock-upstream.ts),
 * scanned event by event without a memo, with one ScanMemo per stream (what the relay does), and
 * decoded and parsed (what the check replaces). Rounds take turns; medians are reported.
 *
 *   bun bench/json-scan.ts [--streams 20000] [--rounds 5]
 */
import { ScanMemo, scanJsonObject } from '../src/chat/providers/event-scan'
import { eventsOf } from '../tests/chat/mock-upstream'
import { argument, median } from './relay-driver'

const STREAMS = Number(argument('streams', '20000'))
const ROUNDS = Number(argument('rounds', '5'))
const encoder = new TextEncoder()
const decoder = new TextDecoder()
const events = eventsOf({ chunks: 64 }, { model: 'mock-model', stream_options: { include_usage: true } }).map((event) =>
  encoder.encode(JSON.stringify(event)),
)

/** µs per stream of `check` over every event. */
function time(check: (memo: ScanMemo | undefined, bytes: Uint8Array) => number, withMemo: boolean): number {
  let sink = 0
  const started = performance.now()
  for (let s = 0; s < STREAMS; s++) {
    const memo = withMemo ? new ScanMemo() : undefined
    for (const bytes of events) sink += check(memo, bytes)
  }
  if (sink === 0.5) console.log(sink) // keeps the work observable
  return ((performance.now() - started) * 1000) / STREAMS
}

const scan = (memo: ScanMemo | undefined, bytes: Uint8Array) => scanJsonObject(bytes, 0, bytes.length, memo)
const parse = (_: ScanMemo | undefined, bytes: Uint8Array) => Object.keys(JSON.parse(decoder.decode(bytes))).length
const results = { scan: [] as number[], memo: [] as number[], parse: [] as number[] }
for (let round = 0; round < ROUNDS; round++) {
  results.scan.push(time(scan, false))
  results.memo.push(time(scan, true))
  results.parse.push(time(parse, false))
}
const bytes = events.reduce((sum, each) => sum + each.length, 0)
console.log(
  `# The relay's event check, ${events.length} events (${bytes} bytes) per stream, ${STREAMS} streams × ${ROUNDS} rounds, Bun ${Bun.version}\n`,
)
console.log('| check | µs per stream (median) | ÷ decode + JSON.parse |\n|---|---:|---:|')
for (const [name, label] of [
  ['scan', 'scanJsonObject, no memo'],
  ['memo', 'scanJsonObject, one ScanMemo per stream'],
  ['parse', 'TextDecoder + JSON.parse'],
] as const) {
  console.log(
    `| ${label} | ${median(results[name]).toFixed(1)} | ${(median(results[name]) / median(results.parse)).toFixed(2)} |`,
  )
}
