/**
 * Anthropic relay benchmark (#15 §4): the same mock upstream (bench/mock-upstream.ts, which
 * answers both `/chat/completions` and `/messages` with 64 content pieces per stream) reached
 * directly and through one Trellis process, in one run:
 * - `openai`: OpenAI's wire format relayed by the `openai` provider (the reference);
 * - `anthropic`: an OpenAI client through the `anthropic` provider, translating every Messages
 *   event into an OpenAI chunk;
 * - `messages`: an Anthropic client on `POST /v1/messages` through the same provider's native
 *   path, events passed through as they came.
 * Trellis runs as users run it by default: ledger on, a token without limits, logging at `info`
 * is not needed for the relay and stays at the default `warn` of the other relay benchmark.
 *
 *   bun bench/anthropic-relay.ts [--sequential 300] [--seconds 10] [--concurrency 64] [--rounds 3] [--gap-ms 0 |
 *   --one-pull]
 *
 * Every stream is checked: the OpenAI form has 67 `data:` events ending in `[DONE]`; the
 * Messages form 69 events (message_start, content_block_start, 64 deltas, content_block_stop,
 * message_delta, message_stop) ending in `message_stop`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createChatToken, freePort, trellisEnv } from './processes'
import {
  argument,
  median,
  startMock,
  countedStream,
  reportErrors,
  serverLog,
  openAIEvents,
  peakRssMb,
  percentile,
  printLatency,
  runConcurrent,
  type Run,
  type Sample,
  startProcess,
  stopAll,
  type Target,
  waitUntilServing,
} from './relay-driver'

const SEQUENTIAL = Number(argument('sequential', '300'))
const SECONDS = Number(argument('seconds', '10'))
const CONCURRENCY = Number(argument('concurrency', '64'))
const ROUNDS = Number(argument('rounds', '3'))
const GAP_MS = argument('gap-ms', '0')
const ONE_PULL = Bun.argv.includes('--one-pull')
const OPENAI_EVENTS = 67
const MESSAGES_EVENTS = 69
const scratch = mkdtempSync(join(tmpdir(), 'trellis-bench-'))

/** A Messages stream's check: exactly `events` events, `message_stop` last. */
const messagesEvents = (events: number) => (text: string) => {
  const found = text.split('\n\n').filter((event) => event.startsWith('event: ') && !event.startsWith('event: ping\n'))
  return found.length === events && found.at(-1)!.startsWith('event: message_stop\n')
    ? undefined
    : `expected ${events} events ending in message_stop, got ${found.length}`
}

const openAIBody = (model: string) =>
  JSON.stringify({ model, messages: [{ role: 'user', content: 'Say something.' }], stream: true })
const messagesBody = (model: string) =>
  JSON.stringify({ model, max_tokens: 1024, messages: [{ role: 'user', content: 'Say something.' }], stream: true })
const JSON_TYPE = { 'content-type': 'application/json' }

async function main() {
  const upstream = await startMock({ gapMs: GAP_MS, onePull: ONE_PULL })
  const upstreamUrl = upstream.url
  const port = await freePort()
  const env = trellisEnv(port, join(scratch, 'data'), {
    CHAT_PROVIDERS: JSON.stringify({
      mock: { baseUrl: upstreamUrl, maxRetries: 0 },
      claude: { kind: 'anthropic', baseUrl: upstreamUrl, apiKey: 'sk-ant-bench', maxRetries: 0 },
    }),
    CHAT_MODELS: JSON.stringify({
      bench: [{ provider: 'mock', model: 'mock-model' }],
      'bench-anthropic': [{ provider: 'claude', model: 'mock-model' }],
    }),
  })
  const token = await createChatToken(env)
  const server = await startProcess(['bun', 'src/runtimes/bun.ts'], env, serverLog('trellis'))
  const trellis = `http://127.0.0.1:${port}/v1`
  const bearer = { ...JSON_TYPE, authorization: `Bearer ${token}` }
  const anthropicHeaders = { ...JSON_TYPE, 'x-api-key': 'sk-ant-bench', 'anthropic-version': '2023-06-01' }
  const targets: Target[] = [
    {
      name: 'direct openai',
      url: `${upstreamUrl}/chat/completions`,
      headers: JSON_TYPE,
      body: openAIBody('mock-model'),
      pid: upstream.pid,
      check: openAIEvents(OPENAI_EVENTS),
    },
    {
      name: 'trellis openai',
      url: `${trellis}/chat/completions`,
      headers: bearer,
      body: openAIBody('bench'),
      pid: server.pid,
      check: openAIEvents(OPENAI_EVENTS),
    },
    {
      name: 'direct anthropic',
      url: `${upstreamUrl}/messages`,
      headers: anthropicHeaders,
      body: messagesBody('mock-model'),
      pid: upstream.pid,
      check: messagesEvents(MESSAGES_EVENTS),
    },
    {
      name: 'trellis anthropic',
      url: `${trellis}/chat/completions`,
      headers: bearer,
      body: openAIBody('bench-anthropic'),
      pid: server.pid,
      check: openAIEvents(OPENAI_EVENTS),
    },
    {
      name: 'trellis messages',
      url: `${trellis}/messages`,
      headers: { ...anthropicHeaders, 'x-api-key': token },
      body: messagesBody('bench-anthropic'),
      pid: server.pid,
      check: messagesEvents(MESSAGES_EVENTS),
    },
  ]
  for (const each of targets) await waitUntilServing(each)

  console.log(`# Anthropic relay benchmark\n`)
  console.log(
    `${new Date().toISOString()} · Bun ${Bun.version} · ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}`,
  )
  console.log(
    `mock upstream: 64 content pieces per stream${GAP_MS !== '0' ? `, ${GAP_MS} ms before each event after the first` : ''}${ONE_PULL ? ', all written in one pull' : ', one event per pull'}`,
  )
  console.log(
    `Trellis storage: ${process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite'}; ledger on, a token without limits\n`,
  )

  for (const each of targets) await runConcurrent(each, 8, 2) // warm-up: JIT, connection pools, token cache

  const sequential = new Map<string, Sample[]>(targets.map((each) => [each.name, []]))
  for (let i = 0; i < SEQUENTIAL; i++)
    for (const each of targets) {
      const sample = await countedStream(each)
      if (sample) sequential.get(each.name)!.push(sample)
    }
  console.log(`## Concurrency 1 (${SEQUENTIAL} sequential streams per target, targets interleaved)\n`)
  printLatency(targets, sequential)

  const rounds = new Map<string, Run[]>(targets.map((each) => [each.name, []]))
  for (let round = 0; round < ROUNDS; round++)
    for (const each of targets) rounds.get(each.name)!.push(await runConcurrent(each, CONCURRENCY, SECONDS))
  const concurrent = new Map(
    [...rounds].map(([name, runs]) => [
      name,
      {
        perSecond: median(runs.map((run) => run.perSecond)),
        cpu: median(runs.map((run) => run.cpuPerStreamUs)),
        errors: runs.reduce((sum, run) => sum + run.errors, 0),
        samples: runs.flatMap((run) => run.samples),
      },
    ]),
  )
  console.log(
    `\n## Concurrency ${CONCURRENCY} (${SECONDS} s per target and round, ${ROUNDS} rounds interleaved; streams/s and CPU are medians of the rounds)\n`,
  )
  printLatency(targets, new Map([...concurrent].map(([name, run]) => [name, run.samples])))
  console.log(`\n| target | streams/s | errors | server CPU per stream |\n|---|---:|---:|---:|`)
  for (const [name, run] of concurrent)
    console.log(
      `| ${name} | ${run.perSecond.toFixed(0)} | ${run.errors} | ${run.cpu.toFixed(0)} µs${name.startsWith('direct') ? ' (the mock itself)' : ''} |`,
    )
  console.log(`\npeak RSS: mock ${peakRssMb(upstream.pid)} MB, trellis ${peakRssMb(server.pid)} MB`)

  const ttft = (name: string, p: number) =>
    percentile(
      sequential.get(name)!.map((sample) => sample.ttft),
      p,
    )
  const added = (relay: string, direct: string) =>
    `p50 ${(ttft(relay, 50) - ttft(direct, 50)).toFixed(3)} ms, p99 ${(ttft(relay, 99) - ttft(direct, 99)).toFixed(3)} ms`
  const rate = (relay: string, direct: string) =>
    (concurrent.get(relay)!.perSecond / concurrent.get(direct)!.perSecond).toFixed(2)
  const perRound = (a: string, b: string) =>
    rounds
      .get(a)!
      .map((run, i) => (run.cpuPerStreamUs / rounds.get(b)![i]!.cpuPerStreamUs).toFixed(2))
      .join(', ')
  console.log(`\n## Ratios\n`)
  console.log(`- added TTFT at c=1, openai relay − direct openai: ${added('trellis openai', 'direct openai')}`)
  console.log(
    `- added TTFT at c=1, anthropic relay − direct anthropic: ${added('trellis anthropic', 'direct anthropic')}`,
  )
  console.log(
    `- added TTFT at c=1, messages passthrough − direct anthropic: ${added('trellis messages', 'direct anthropic')}`,
  )
  console.log(
    `- streams/s at c=${CONCURRENCY}, relay ÷ its direct mock: openai ${rate('trellis openai', 'direct openai')}, anthropic ${rate('trellis anthropic', 'direct anthropic')}, messages ${rate('trellis messages', 'direct anthropic')}`,
  )
  const cpu = (name: string) => concurrent.get(name)!.cpu
  console.log(
    `- CPU per stream, anthropic relay ÷ openai relay: ${(cpu('trellis anthropic') / cpu('trellis openai')).toFixed(2)} (target ≤ 1.3; per round ${perRound('trellis anthropic', 'trellis openai')})`,
  )
  console.log(
    `- CPU per stream, messages passthrough ÷ openai relay: ${(cpu('trellis messages') / cpu('trellis openai')).toFixed(2)} (per round ${perRound('trellis messages', 'trellis openai')})`,
  )
  reportErrors(targets)
}

try {
  await main()
} finally {
  await stopAll()
  rmSync(scratch, { recursive: true, force: true })
}
