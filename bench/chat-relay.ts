/**
 * Relay benchmark: the same OpenAI-compatible mock upstream (bench/mock-upstream.ts, 64 content
 * chunks per stream) reached directly, through Trellis's `openai` provider, and through Portkey's
 * open-source gateway, in one run. Every server is its own process; this process only drives load.
 *
 * Measures, per target:
 * - TTFT: request start to the first body bytes (the role chunk), and whole-stream time to the end
 *   of the body, at concurrency 1 (sequential streams, targets interleaved) and 64;
 * - throughput: completed streams per second with 64 concurrent clients for `--seconds`, and the
 *   CPU time the relaying process spent per stream (from /proc), which depends far less than
 *   streams/s on what else the machine is running.
 * Every stream is checked: status 200, exactly 67 `data:` events (role, 64 content, finish,
 * `[DONE]`), and `[DONE]` last; a stream that fails the check counts as an error, not a result.
 * The run ends with every target's errors by kind (a status other than 200, such as a 503; a body
 * cut off; a body that fails the check), and exits non-zero when there was any; with `--governance`, a
 * governed stream of the rounds without its ledger row is a failure too. `--server-logs DIR` keeps
 * each Trellis's log (DIR/trellis.log, DIR/trellis+gov.log), where each 503 names its cause.
 *
 * Portkey is not a dependency of Trellis; install it outside the repository first:
 *   npm install --prefix /tmp/portkey @portkey-ai/gateway@1.15.2
 * Then:
 *   bun bench/chat-relay.ts [--portkey /tmp/portkey/node_modules/@portkey-ai/gateway/build/start-server.js]
 *                           [--sequential 300] [--seconds 10] [--concurrency 64] [--gap-ms 0 | --one-pull] [--rounds 1]
 *                           [--governance] [--baseline DIR] [--server-logs DIR]
 * `--gap-ms N` makes the mock pause N ms before each event after the first, so that every event
 * reaches the relay in its own read, as a model's tokens do; streams/s is then bounded by the
 * pauses (64 × 66 gaps), and CPU per stream is the figure to compare. `--one-pull` makes the mock
 * write every event of a stream in one pull (the performance issue's referee shape).
 * `--baseline DIR` adds a second Trellis run from another checkout (`git worktree add DIR <commit>`, with its own
 * `bun install`), configured alike, ledger on, the model priced (`TRELLIS_PRICES`, which a checkout without a price
 * table ignores): CPU per stream of this checkout ÷ the baseline's, per round, isolates what the code between them
 * costs (#30: the ledger with cost ÷ the ledger without). With `--governance` the baseline is governed as `trellis+gov` is
 * (its token has the limits that never trigger) and compared with it (#31: a change to governance, before ÷ after).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createChatToken, freePort, trellisEnv } from './processes'
import {
  argument,
  firstLine,
  median,
  openAIEvents,
  peakRssMb,
  percentile,
  printLatency,
  runConcurrent,
  type Run,
  type Sample,
  startMock,
  startProcess,
  stopAll,
  type Target,
  waitUntilServing,
  countedStream,
  reportErrors,
  serverLog,
} from './relay-driver'

const PORTKEY = argument('portkey', '/tmp/portkey/node_modules/@portkey-ai/gateway/build/start-server.js')
const SEQUENTIAL = Number(argument('sequential', '300'))
const SECONDS = Number(argument('seconds', '10'))
const CONCURRENCY = Number(argument('concurrency', '64'))
const GAP_MS = argument('gap-ms', '0')
const ONE_PULL = Bun.argv.includes('--one-pull')
const ROUNDS = Number(argument('rounds', '1'))
/** With `--governance`: Trellis twice, without limits or ledger, and with both (limits that never trigger). */
const GOVERNANCE = Bun.argv.includes('--governance')
const BASELINE = argument('baseline', '')
/** Limits far above what a run can reach: checked on every request, never refusing. */
const NEVER_REACHED = [
  '--rpm',
  '1000000000',
  '--tpm',
  '1000000000000',
  '--streams',
  '1000000',
  '--budget-tokens',
  '1000000000000',
]
const EXPECTED_EVENTS = 67

let metricsToken = ''
let metricsUrl = ''

/** The governed server's ledger counters, from its /metrics. */
async function ledgerWrites(): Promise<{ inserts: number; rows: number; dropped: number }> {
  const text = await (await fetch(metricsUrl, { headers: { authorization: `Bearer ${metricsToken}` } })).text()
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN)
  return {
    inserts: read('trellis_ledger_writes'),
    rows: read('trellis_ledger_written_rows'),
    dropped: read('trellis_ledger_dropped_rows'),
  }
}
const scratch = mkdtempSync(join(tmpdir(), 'trellis-bench-'))

async function main() {
  const upstream = await startMock({ gapMs: GAP_MS, onePull: ONE_PULL })
  const upstreamUrl = upstream.url
  const targets: Target[] = [target('direct', `${upstreamUrl}/chat/completions`, {}, 'mock-model', upstream.pid)]
  // The floor (#31): the least any Bun relay must do, in the same run (bench/relay-floor.ts).
  const floorEnv = { FLOOR_UPSTREAM: upstreamUrl, FLOOR_TOKEN: 'sk-floor', FLOOR_MODEL: 'mock-model' }
  const floor = await startProcess(['bun', 'bench/relay-floor.ts'], floorEnv)
  const floorUrl = `${(await firstLine(floor)).trim()}/v1/chat/completions`
  targets.push(target('floor', floorUrl, { authorization: 'Bearer sk-floor' }, 'bench', floor.pid))

  const trellisPort = await freePort()
  const env = trellisEnv(trellisPort, join(scratch, 'data'), {
    CHAT_PROVIDERS: JSON.stringify({ mock: { baseUrl: upstreamUrl, maxRetries: 0 } }),
    CHAT_MODELS: JSON.stringify({ bench: [{ provider: 'mock', model: 'mock-model' }] }),
    TRELLIS_PRICES: JSON.stringify({ bench: { input: 2.5, cached_input: 1.25, output: 10 } }),
  })
  // Without --governance, Trellis as users run it by default: ledger on, a token without limits.
  const baseEnv = GOVERNANCE ? { ...env, USAGE_LEDGER: 'false' } : env
  const token = await createChatToken(baseEnv)
  const server = await startProcess(['bun', 'src/runtimes/bun.ts'], baseEnv, serverLog('trellis'))
  const trellisUrl = `http://127.0.0.1:${trellisPort}/v1/chat/completions`
  targets.push(target('trellis', trellisUrl, { authorization: `Bearer ${token}` }, 'bench', server.pid))
  if (BASELINE) {
    const basePort = await freePort()
    const baselineEnv = { ...env, PORT: String(basePort), TRELLIS_DATA_DIR: join(scratch, 'data-baseline') }
    const baseToken = await createChatToken(baselineEnv, GOVERNANCE ? NEVER_REACHED : [], 'chat', BASELINE)
    const base = await startProcess(['bun', 'src/runtimes/bun.ts'], baselineEnv, serverLog('baseline'), BASELINE)
    targets.push(
      target(
        'baseline',
        `http://127.0.0.1:${basePort}/v1/chat/completions`,
        { authorization: `Bearer ${baseToken}` },
        'bench',
        base.pid,
      ),
    )
  }
  if (GOVERNANCE) {
    const governedPort = await freePort()
    const governedEnv = { ...env, PORT: String(governedPort), TRELLIS_DATA_DIR: join(scratch, 'data-governed') }
    const limited = await createChatToken(governedEnv, NEVER_REACHED)
    metricsToken = (await createChatToken(governedEnv, [], 'metrics')).trim()
    const governed = await startProcess(['bun', 'src/runtimes/bun.ts'], governedEnv, serverLog('trellis+gov'))
    metricsUrl = `http://127.0.0.1:${governedPort}/metrics`
    targets.push(
      target(
        'trellis+gov',
        `http://127.0.0.1:${governedPort}/v1/chat/completions`,
        { authorization: `Bearer ${limited}` },
        'bench',
        governed.pid,
      ),
    )
  }

  if (await Bun.file(PORTKEY).exists()) {
    const portkeyPort = await freePort()
    const portkey = await startProcess(['bun', PORTKEY, `--port=${portkeyPort}`], {}, 'ignore')
    targets.push(
      target(
        'portkey',
        `http://127.0.0.1:${portkeyPort}/v1/chat/completions`,
        { authorization: 'Bearer sk-bench', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': upstreamUrl },
        'mock-model',
        portkey.pid,
      ),
    )
  } else {
    console.log(
      `Portkey not found at ${PORTKEY}; install it with: npm install --prefix /tmp/portkey @portkey-ai/gateway@1.15.2`,
    )
  }
  for (const each of targets) await waitUntilServing(each)

  console.log(`# Chat relay benchmark\n`)
  console.log(
    `${new Date().toISOString()} · Bun ${Bun.version} · ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}`,
  )
  console.log(
    `mock upstream: 64 content chunks per stream (${EXPECTED_EVENTS} events with role, finish and [DONE])${GAP_MS !== '0' ? `, ${GAP_MS} ms before each event after the first` : ''}${ONE_PULL ? ', all written in one pull' : ''}`,
  )
  // Storage matters to the relay's CPU (see GC_INTERVAL_MS in the README), so every report says which.
  console.log(
    `Trellis storage: ${process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite'}${process.env.GC_INTERVAL_MS ? `, GC_INTERVAL_MS=${process.env.GC_INTERVAL_MS}` : ''}\n`,
  )

  for (const each of targets) await runConcurrent(each, 8, 2) // warm-up: JIT, connection pools, token cache

  const sequential = new Map<string, Sample[]>(targets.map((each) => [each.name, []]))
  for (let i = 0; i < SEQUENTIAL; i++) {
    for (const each of targets) {
      const sample = await countedStream(each)
      if (sample) sequential.get(each.name)!.push(sample)
    }
  }
  console.log(`## Concurrency 1 (${SEQUENTIAL} sequential streams per target, targets interleaved)\n`)
  printLatency(targets, sequential)

  // With --rounds N the targets take turns N times, so that drift in machine load hits all alike;
  // streams/s and CPU per stream are then the medians of the rounds.
  const rounds = new Map<string, Run[]>(targets.map((each) => [each.name, []]))
  let ledger = { inserts: 0, rows: 0, seconds: 0 }
  // Read once the rows of the sequential streams are written (a second after the last), so that the rounds' are counted.
  const ledgerAtStart = GOVERNANCE ? (await Bun.sleep(1_500), await ledgerWrites()) : undefined
  for (let round = 0; round < ROUNDS; round++) {
    for (const each of targets) {
      const before = each.name === 'trellis+gov' ? await ledgerWrites() : undefined
      const started = performance.now()
      rounds.get(each.name)!.push(await runConcurrent(each, CONCURRENCY, SECONDS))
      if (before) {
        // The rows of the run's last second are written a second later.
        await Bun.sleep(1_500)
        const after = await ledgerWrites()
        ledger = {
          inserts: ledger.inserts + after.inserts - before.inserts,
          rows: ledger.rows + after.rows - before.rows,
          seconds: ledger.seconds + (performance.now() - started) / 1000 - 1.5,
        }
      }
    }
  }
  if (ledgerAtStart) {
    // Every governed stream of the rounds is a row in the ledger, none dropped: a row not written is an error too.
    await Bun.sleep(2_500)
    const end = await ledgerWrites()
    const streams = rounds.get('trellis+gov')!.reduce((sum, run) => sum + run.samples.length + run.errors, 0)
    const written = end.rows - ledgerAtStart.rows
    console.log(
      `\nledger (trellis+gov): ${written} rows written for ${streams} streams in the rounds; ${end.dropped} dropped since start`,
    )
    if (written !== streams || end.dropped !== 0) {
      console.log(`**FAILED: the ledger lost rows.**`)
      process.exitCode = 1
    }
  }
  const concurrent = new Map<string, Run>(
    [...rounds].map(([name, runs]) => [
      name,
      {
        samples: runs.flatMap((run) => run.samples),
        errors: runs.reduce((sum, run) => sum + run.errors, 0),
        perSecond: median(runs.map((run) => run.perSecond)),
        cpuPerStreamUs: median(runs.map((run) => run.cpuPerStreamUs)),
      },
    ]),
  )
  console.log(
    `\n## Concurrency ${CONCURRENCY} (${SECONDS} s per target${ROUNDS > 1 ? ` and round, ${ROUNDS} rounds interleaved; streams/s and CPU are medians of the rounds` : ''})\n`,
  )
  printLatency(targets, new Map([...concurrent].map(([name, run]) => [name, run.samples])))
  console.log(`\n| target | streams/s | errors | server CPU per stream |\n|---|---:|---:|---:|`)
  for (const [name, run] of concurrent) {
    const whose = name === 'direct' ? ' (the mock itself)' : ''
    console.log(
      `| ${name} | ${run.perSecond.toFixed(0)} | ${run.errors} | ${run.cpuPerStreamUs.toFixed(0)} µs${whose} |`,
    )
  }
  // The peak resident memory of each server over the whole run (VmHWM), where garbage shows.
  console.log(`\npeak RSS: ${targets.map((each) => `${each.name} ${peakRssMb(each.pid)} MB`).join(', ')}`)

  const governed = concurrent.get('trellis+gov')
  if (governed) {
    const base = concurrent.get('trellis')!
    console.log(`\n## Governance\n`)
    console.log(
      `- trellis+gov (limits that never trigger, ledger on) ÷ trellis (no limits, no ledger), streams/s at c=${CONCURRENCY}: ${(governed.perSecond / base.perSecond).toFixed(2)} (target ≥ 0.9)`,
    )
    console.log(
      `- CPU per stream, trellis ÷ trellis+gov: ${(base.cpuPerStreamUs / governed.cpuPerStreamUs).toFixed(2)}`,
    )
    if (ROUNDS > 1) {
      const each = (key: 'perSecond' | 'cpuPerStreamUs', flip: boolean) =>
        rounds
          .get('trellis+gov')!
          .map((run, i) =>
            (flip ? rounds.get('trellis')![i]![key] / run[key] : run[key] / rounds.get('trellis')![i]![key]).toFixed(2),
          )
          .join(', ')
      console.log(
        `- per round, streams/s ratio: ${each('perSecond', false)}; CPU ratio: ${each('cpuPerStreamUs', true)}`,
      )
    }
    const p50 = (name: string) =>
      percentile(
        sequential.get(name)!.map((sample) => sample.ttft),
        50,
      )
    console.log(
      `- added p50 TTFT at c=1, trellis+gov − trellis: ${(p50('trellis+gov') - p50('trellis')).toFixed(3)} ms (target ≤ 0.1 ms)`,
    )
    console.log(
      `- the ledger at full load: ${(ledger.inserts / ledger.seconds).toFixed(1)} writes/s (one COPY each) carrying ${(ledger.rows / ledger.seconds).toFixed(0)} rows/s (${(ledger.rows / Math.max(1, ledger.inserts)).toFixed(0)} rows each)`,
    )
  }
  const baseline = concurrent.get('baseline')
  if (baseline) {
    // With --governance the baseline is governed: it compares with this checkout's governed server.
    const mine = GOVERNANCE ? 'trellis+gov' : 'trellis'
    const ours = concurrent.get(mine)!
    const perRound = rounds
      .get(mine)!
      .map((run, i) => (run.cpuPerStreamUs / rounds.get('baseline')![i]!.cpuPerStreamUs).toFixed(3))
    console.log(`\n## Against the baseline (${BASELINE}${GOVERNANCE ? ', both governed' : ''})\n`)
    console.log(
      `- CPU per stream, this checkout ÷ baseline: ${(ours.cpuPerStreamUs / baseline.cpuPerStreamUs).toFixed(3)} (medians); per round ${perRound.join(', ')}`,
    )
    console.log(`- streams/s, this checkout ÷ baseline: ${(ours.perSecond / baseline.perSecond).toFixed(3)}`)
  }
  const trellis = concurrent.get('trellis')!
  const portkey = concurrent.get('portkey')
  const direct = concurrent.get('direct')!
  const p50 = (name: string, key: keyof Sample) =>
    percentile(
      sequential.get(name)!.map((sample) => sample[key]),
      50,
    )
  console.log(`\n## Ratios\n`)
  console.log(
    `- added p50 TTFT at c=1, Trellis − direct: ${(p50('trellis', 'ttft') - p50('direct', 'ttft')).toFixed(3)} ms (target ≤ 1 ms)`,
  )
  console.log(
    `- added p50 whole-stream at c=1, Trellis − direct: ${(p50('trellis', 'total') - p50('direct', 'total')).toFixed(3)} ms`,
  )
  console.log(
    `- Trellis streams/s ÷ direct streams/s at c=${CONCURRENCY}: ${(trellis.perSecond / direct.perSecond).toFixed(2)}`,
  )
  if (portkey) {
    console.log(
      `- added p50 TTFT at c=1, Portkey − direct: ${(p50('portkey', 'ttft') - p50('direct', 'ttft')).toFixed(3)} ms`,
    )
    console.log(
      `- Trellis streams/s ÷ Portkey streams/s at c=${CONCURRENCY}: ${(trellis.perSecond / portkey.perSecond).toFixed(2)} (target ≥ 3)`,
    )
    console.log(
      `- Portkey CPU per stream ÷ Trellis CPU per stream: ${(portkey.cpuPerStreamUs / trellis.cpuPerStreamUs).toFixed(2)} (streams one core could relay, Trellis over Portkey)`,
    )
  }
  // #31's targets: the relay as users run it (limits that never trigger and the ledger with --governance) ÷ the floor.
  const relay = concurrent.has('trellis+gov') ? 'trellis+gov' : 'trellis'
  const floorRun = concurrent.get('floor')!
  const ours = concurrent.get(relay)!
  console.log(`\n## Against the floor (${relay})\n`)
  console.log(
    `- ${relay} streams/s ÷ floor streams/s at c=${CONCURRENCY}: ${(ours.perSecond / floorRun.perSecond).toFixed(2)} (target ≥ 0.67, one pull)`,
  )
  console.log(
    `- added p50 TTFT at c=1, ${relay} − floor: ${(p50(relay, 'ttft') - p50('floor', 'ttft')).toFixed(3)} ms (target ≤ 0.10 ms)`,
  )
  console.log(
    `- CPU per stream, ${relay} ÷ floor: ${(ours.cpuPerStreamUs / floorRun.cpuPerStreamUs).toFixed(2)} (target ≤ 1.15, one event per read)`,
  )
  if (ROUNDS > 1) {
    const perRound = rounds
      .get(relay)!
      .map((run, i) => {
        const base = rounds.get('floor')![i]!
        return `${(run.perSecond / base.perSecond).toFixed(2)} / ${(run.cpuPerStreamUs / base.cpuPerStreamUs).toFixed(2)}`
      })
      .join(', ')
    console.log(`- per round, streams/s ratio / CPU ratio: ${perRound}`)
  }
  reportErrors(targets)
}

function target(name: string, url: string, headers: Record<string, string>, model: string, pid: number): Target {
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: 'Say something.' }], stream: true })
  return {
    name,
    url,
    headers: { 'content-type': 'application/json', ...headers },
    body,
    pid,
    check: openAIEvents(EXPECTED_EVENTS),
  }
}

try {
  await main()
} finally {
  await stopAll()
  rmSync(scratch, { recursive: true, force: true })
}
