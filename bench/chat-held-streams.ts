/**
 * Held-streams benchmark: how many concurrent chat streams Trellis holds, and what each costs.
 *
 * Starts Trellis in its own process (this file with `--serve`: `serve()` from src/runtimes/bun.ts,
 * so exactly what `bun start` runs, on embedded PGlite in a scratch directory unless
 * DATABASE_URL is set, plus a way to ask it for a full GC) with the `echo` provider paced
 * at `--rate` tokens per second, then opens
 * `--streams` concurrent `stream: true` requests from this process over raw HTTP/1.1 sockets
 * (no client-side connection pool to get in the way), each asking for `--tokens` tokens.
 *
 * Checks every stream: status 200, exactly tokens + 2 `data:` chunk events (role, one per
 * token, finish), no error event, and `data: [DONE]` last. Any other outcome is a drop.
 *
 * Reports the server's RSS per held stream two ways, both over the RSS idle after a warm-up:
 * - retained: RSS after a full GC (Bun.gc(true)) in the server while all streams are open,
 *   compared with the same after the warm-up: what holding a stream costs;
 * - peak: the highest RSS sampled (VmRSS from /proc, every 100 ms) while all streams are
 *   open, with the garbage of 100,000 events a second that the GC has not yet collected.
 * Plus the pace each stream saw, and whether a second round peaks higher (a leak) or not.
 *
 * With `--smol`, the server runs as `bun --smol` (Bun's smaller-heap mode: the GC runs more often,
 * so less garbage is resident at the peak, for some CPU).
 *
 * The floor (#31): bench/held-floor.ts, a bare `Bun.serve` writing the same events at the same pace from a
 * `ReadableStream`, started as a second server and measured the same way (same driver, checks, warm-up, idle
 * baseline after a full GC, peak and after-GC figures). Rounds alternate between the two (floor first in odd rounds),
 * and each round prints Trellis ÷ floor per held stream (target ≤ 1.25×), the medians at the end. Before the warm-up
 * one stream from each is fetched whole and compared, id and `created` aside, so the floor writes the same bytes.
 * `--no-floor` measures Trellis alone, as before. `--baseline DIR` adds another checkout's Trellis to the same rounds. `--census` adds, per round, live objects by type per held stream.
 *
 *   bun bench/chat-held-streams.ts [--streams 5000] [--rate 20] [--tokens 200] [--rounds 2] [--batch 250]
 *   [--batch-pause 25] [--smol] [--no-floor] [--census] [--baseline DIR]
 */
import { PROVIDER_KINDS } from '../src/chat/providers'
import { mkdtempSync, rmSync } from 'node:fs'
import { type AfterGc, answerGcProbes } from './held-probe'
import { loadConfig } from '../src/config'
import { serve } from '../src/runtimes/bun'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createChatToken, freePort, trellisEnv } from './processes'
import type { Subprocess } from 'bun'
import { median, oneStream, type Outcome, rssOf, waitUntilServing } from './held-driver'
import { percentile } from './relay-driver'

const ROOT = join(import.meta.dir, '..')
const argument = (name: string, fallback: string) => {
  const at = Bun.argv.indexOf(`--${name}`)
  return Number(at === -1 ? fallback : Bun.argv[at + 1])
}
const STREAMS = argument('streams', '5000')
const RATE = argument('rate', '20')
const TOKENS = argument('tokens', '200')
/**
 * Rounds of STREAMS streams against the same server: a second round that peaks no higher shows a high-water mark, not a
 * leak.
 */
const ROUNDS = argument('rounds', '2')
/** Connections opened per batch, and the pause between batches, so the accept queue never overflows. */
const BATCH = argument('batch', '250')
const BATCH_PAUSE_MS = argument('batch-pause', '25')
const SMOL = Bun.argv.includes('--smol')
const FLOOR = !Bun.argv.includes('--no-floor')
/**
 * `--baseline DIR`: a second Trellis, from another checkout (a worktree of an earlier commit with this file and
 * held-probe.ts copied in), measured in the same rounds, for a change's before and after in one run.
 */
const BASELINE = Bun.argv.includes('--baseline') ? Bun.argv[Bun.argv.indexOf('--baseline') + 1] : undefined
/** Prints, per round, the heap's capacity and the object types that grew most per held stream (after a full GC). */
const CENSUS = Bun.argv.includes('--census')

let scratch = ''
const servers: Subprocess[] = []

/** A server under test: Trellis, or the floor. */
type Target = { name: string; pid: number; probe: GcProbe; idle: AfterGc; rounds: RoundResult[] }
type RoundResult = { peak: number; afterGc: number; heap: number }

type GcProbe = { afterGc: () => Promise<AfterGc> }

async function main() {
  scratch = mkdtempSync(join(tmpdir(), 'trellis-held-'))
  const port = await freePort()
  const env = trellisEnv(port, join(scratch, 'data'), { ECHO_TOKEN_DELAY_MS: String(1000 / RATE), LOG_LEVEL: 'warn' })
  const token = await createChatToken(env)
  const smol = SMOL ? ['--smol'] : []
  const trellis = start('Trellis', ['bun', ...smol, 'bench/chat-held-streams.ts', '--serve'], env)
  const basePort = BASELINE ? await freePort() : 0
  const baseEnv = trellisEnv(basePort, join(scratch, 'base-data'), {
    ECHO_TOKEN_DELAY_MS: String(1000 / RATE),
    LOG_LEVEL: 'warn',
  })
  const baseToken = BASELINE ? await createChatToken(baseEnv, [], 'chat', BASELINE) : ''
  const base = BASELINE
    ? start('baseline', ['bun', ...smol, 'bench/chat-held-streams.ts', '--serve'], baseEnv, BASELINE)
    : undefined
  const floorPort = FLOOR ? await freePort() : 0
  const floor = FLOOR
    ? start('floor', ['bun', ...smol, 'bench/held-floor.ts'], {
        PORT: String(floorPort),
        FLOOR_TOKEN_DELAY_MS: String(1000 / RATE),
      })
    : undefined
  await waitUntilServing(port)
  if (floor) await waitUntilServing(floorPort)
  if (base) await waitUntilServing(basePort)

  const words = Array.from({ length: TOKENS }, (_, i) => `w${i}`).join(' ')
  const body = JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: words }], stream: true })
  const requestTo = (at: number, bearer = token) =>
    new TextEncoder().encode(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1:${at}\r\nauthorization: Bearer ${bearer}\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    )
  const targets = [
    { ...trellis, port, request: requestTo(port) },
    ...(floor ? [{ ...floor, port: floorPort, request: requestTo(floorPort) }] : []),
    ...(base ? [{ ...base, port: basePort, request: requestTo(basePort, baseToken) }] : []),
  ]
  const floorTarget = targets.find((target) => target.name === 'floor')
  const measured = targets.filter((target) => target !== floorTarget)
  console.log(
    `streams: ${STREAMS} per round, ${TOKENS} tokens each at ${RATE} tokens/s (ECHO_TOKEN_DELAY_MS=${1000 / RATE})${SMOL ? '; servers run with bun --smol' : ''}`,
  )

  // The floor must write what Trellis writes: one whole stream from each, compared with the id and `created` blanked.
  const same = floor ? sameEvents(port, floorPort, token, body) : undefined
  // Warm-up: JIT, first allocations, the token cache; then let the heap settle.
  for (const target of targets) {
    const warm = await Promise.all(Array.from({ length: 100 }, () => oneStream(target.port, target.request, TOKENS)))
    if (warm.some((outcome) => !outcome.ok))
      throw new Error(`${target.name} warm-up failed: ${warm.find((outcome) => !outcome.ok)!.reason}`)
  }
  if (same) console.log(await same)
  await Bun.sleep(2000)
  for (const target of targets) {
    target.idle = await target.probe.afterGc()
    console.log(
      `${target.name} idle after warm-up and a full GC: RSS ${mb(target.idle.rss)} MB, JS heap ${mb(target.idle.heap)} MB`,
    )
  }

  let dropped = 0
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? [...targets].reverse() : targets
    for (const target of order) {
      const result = await holdRound(target.port, target.request, target.pid, target.probe)
      dropped += result.dropped
      await Bun.sleep(2000)
      // A round whose streams were never all open at once (a slow or busy machine) measures nothing: NaN, not 0 − idle.
      const perStream = (bytes: number, base: number) => (bytes ? (bytes - base) / STREAMS : NaN)
      const figures = {
        peak: perStream(result.peakRss, target.idle.rss),
        afterGc: perStream(result.held.rss, target.idle.rss),
        heap: perStream(result.held.heap, target.idle.heap),
      }
      target.rounds.push(figures)
      console.log(`round ${round}, ${target.name}: ${result.report}`)
      console.log(
        `  all ${STREAMS} open: RSS peak ${mb(result.peakRss)} MB → ${kb(figures.peak)} KB per stream; ` +
          `after a full GC: RSS ${mb(result.held.rss)} MB (→ ${kb(figures.afterGc)} KB per stream; freed pages stay mapped), ` +
          `JS heap ${mb(result.held.heap)} MB → ${kb(figures.heap)} KB per stream live`,
      )
      if (CENSUS) console.log(`  ${census(target.idle, result.held)}`)
    }
    for (const target of floorTarget ? measured : []) {
      const [mine, floors] = [target.rounds[round - 1]!, floorTarget!.rounds[round - 1]!]
      console.log(
        `round ${round}: ${target.name} ÷ floor per held stream: peak ${ratio(mine.peak, floors.peak)} (target ≤ 1.25), ` +
          `after a full GC ${ratio(mine.afterGc, floors.afterGc)}; live JS heap ${kb(mine.heap)} KB against ${kb(floors.heap)} KB`,
      )
    }
  }
  for (const target of targets) {
    const middle = (key: keyof RoundResult) => kb(median(target.rounds.map((figures) => figures[key])))
    console.log(
      `${target.name}, median of ${measuredRounds(target)} rounds per held stream: peak ${middle('peak')} KB, after a full GC ${middle('afterGc')} KB, live JS heap ${middle('heap')} KB`,
    )
  }
  for (const target of floorTarget ? measured : []) {
    const ratios = (key: keyof RoundResult) =>
      target.rounds.map((figures, round) => figures[key] / floorTarget!.rounds[round]![key])
    console.log(
      `${target.name} ÷ floor, median of ${measuredRounds(target)} rounds: peak ${median(ratios('peak')).toFixed(2)}× (target ≤ 1.25×), ` +
        `after a full GC ${median(ratios('afterGc')).toFixed(2)}×`,
    )
  }
  return dropped === 0 ? 0 : 1
}

/** Starts a server under test with a GC probe on its stdin and stdout. */
function start(name: string, command: string[], env: Record<string, string>, cwd = ROOT): Target {
  const child = Bun.spawn(command, {
    cwd,
    env: { ...process.env, ...env },
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'inherit',
  })
  servers.push(child)
  return { name, pid: child.pid, probe: gcProbe(child), idle: { rss: 0, heap: 0, capacity: 0, counts: {} }, rounds: [] }
}

/** One stream from Trellis and one from the floor, read whole; says whether they match with ids and times blanked. */
async function sameEvents(port: number, floorPort: number, token: string, body: string): Promise<string> {
  const read = async (at: number) => {
    const response = await fetch(`http://127.0.0.1:${at}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    })
    return (await response.text())
      .replaceAll(/"id":"chatcmpl-[0-9a-f]+","object"/g, '"id":"…","object"')
      .replaceAll(/"created":\d+,/g, '"created":…,')
  }
  const [mine, floors] = await Promise.all([read(port), read(floorPort)])
  if (mine !== floors)
    throw new Error(`the floor does not write Trellis's events:\n${floors.slice(0, 600)}\n---\n${mine.slice(0, 600)}`)
  return `the floor's events equal Trellis's (ids and created aside): ${Buffer.byteLength(mine)} bytes, ${mine.split('\n\n').length - 1} events`
}

const measuredRounds = (target: Target) =>
  `${target.rounds.filter((figures) => !Number.isNaN(figures.peak)).length} of ${ROUNDS}`
const ratio = (mine: number, floor: number) => `${(mine / floor).toFixed(2)}× (${kb(mine)} ÷ ${kb(floor)} KB)`
const kb = (bytes: number) => (bytes / 1024).toFixed(1)
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1)

/** Opens STREAMS streams in batches, waits for all of them, and sums up. */
async function holdRound(port: number, request: Uint8Array, pid: number, probe: GcProbe) {
  let peakRss = 0
  let held: Promise<AfterGc> | undefined
  let open = 0
  let allOpenAt = 0
  let ended = 0
  const sampler = setInterval(() => {
    if (open === STREAMS) peakRss = Math.max(peakRss, rssOf(pid))
  }, 100)
  const progress = setInterval(
    () => console.error(`… ${open} open, ${ended} ended, server RSS ${mb(rssOf(pid))} MB`),
    2000,
  )

  const started = performance.now()
  const pending: Promise<Outcome>[] = []
  for (let i = 0; i < STREAMS; i++) {
    pending.push(
      oneStream(port, request, TOKENS, () => {
        open++
        if (open === STREAMS && !allOpenAt) {
          allOpenAt = performance.now()
          // A probe answered after a stream ended (a slow machine: the last opened as the first ended) measured less
          // than all of them: left out, like a round never all open.
          held = probe
            .afterGc()
            .then((figures) => (ended === 0 ? figures : { rss: NaN, heap: NaN, capacity: NaN, counts: {} }))
        }
      }).then((outcome) => {
        if (outcome.firstEventAt) open--
        ended++
        return outcome
      }),
    )
    if ((i + 1) % BATCH === 0) await Bun.sleep(BATCH_PAUSE_MS)
  }
  const outcomes = await Promise.all(pending)
  clearInterval(sampler)
  clearInterval(progress)
  const finished = performance.now()

  const failed = outcomes.filter((outcome) => !outcome.ok)
  const reasons = new Map<string, number>()
  for (const outcome of failed) reasons.set(outcome.reason!, (reasons.get(outcome.reason!) ?? 0) + 1)
  const paces = outcomes
    .filter((outcome) => outcome.ok)
    .map((outcome) => TOKENS / ((outcome.endedAt - outcome.firstEventAt) / 1000))
  const ttfts = outcomes.map((outcome) => outcome.firstEventAt - outcome.startedAt)
  const firstEnd = Math.min(...outcomes.map((outcome) => outcome.endedAt))
  const report = [
    `completed ${outcomes.length - failed.length}, dropped ${failed.length}${failed.length ? ` (${[...reasons].map(([reason, count]) => `${count}× ${reason}`).join(', ')})` : ''}`,
    `all ${STREAMS} open at once: ${allOpenAt ? `yes, from ${((allOpenAt - started) / 1000).toFixed(1)} s until the first stream ended at ${((firstEnd - started) / 1000).toFixed(1)} s` : 'no'}`,
    `pace per stream p50 ${percentile(paces, 50).toFixed(1)} tokens/s (p5 ${percentile(paces, 5).toFixed(1)}, min ${Math.min(...paces).toFixed(1)})`,
    `first event p50 ${percentile(ttfts, 50).toFixed(0)} ms, p99 ${percentile(ttfts, 99).toFixed(0)} ms; round took ${((finished - started) / 1000).toFixed(1)} s`,
  ].join('; ')
  return {
    dropped: failed.length,
    peakRss,
    held: held ? await held : { rss: NaN, heap: NaN, capacity: NaN, counts: {} },
    report,
  }
}

/** Asks the `--serve` child for a full GC and its RSS and JS heap size afterwards, one line each way. */
function gcProbe(child: Subprocess<'pipe', 'pipe', 'inherit'>): GcProbe {
  const reader = child.stdout.getReader()
  const decoder = new TextDecoder()
  let buffered = ''
  return {
    async afterGc() {
      child.stdin.write('gc\n')
      child.stdin.flush()
      while (!buffered.includes('\n')) {
        const { done, value } = await reader.read()
        if (done) throw new Error('server exited')
        buffered += decoder.decode(value, { stream: true })
      }
      const line = buffered.slice(0, buffered.indexOf('\n'))
      buffered = buffered.slice(line.length + 1)
      return JSON.parse(line) as AfterGc
    },
  }
}

/**
 * The `--serve` child: Trellis exactly as src/runtimes/bun.ts serves it, answering `gc` on stdin with its RSS and heap
 * after a full GC.
 */
async function serveForBench() {
  await serve(loadConfig(process.env, PROVIDER_KINDS))
  await answerGcProbes()
}

/** The object types whose live count grew most between `idle` and `held`, per held stream. */
function census(idle: AfterGc, held: AfterGc): string {
  const grown = Object.entries(held.counts)
    .map(([type, count]) => [type, (count - (idle.counts[type] ?? 0)) / STREAMS] as const)
    .filter(([, count]) => count >= 0.5)
    .sort((a, b) => b[1] - a[1])
  return (
    `heap capacity ${kb((held.capacity - idle.capacity) / STREAMS)} KB per stream; objects per stream: ` +
    grown.map(([type, count]) => `${type} ${count.toFixed(1)}`).join(', ')
  )
}

if (Bun.argv.includes('--serve')) {
  await serveForBench()
} else {
  let code = 1
  try {
    code = await main()
  } finally {
    for (const server of servers) server.kill()
    await Promise.all(servers.map((server) => server.exited))
    if (scratch) rmSync(scratch, { recursive: true, force: true })
  }
  process.exit(code)
}
