/**
 * Responses relay benchmark (#26 §6): the same mock upstream (bench/mock-upstream.ts, 64 content pieces per stream in
 * every wire format it speaks) reached directly and through one Trellis process, in one run:
 * - `chat`: Chat Completions relayed by the `openai` provider (the reference);
 * - `responses native`: `POST /v1/responses` through an `openai` provider with `"responses": "native"`, the upstream's
 *   Responses events passed through as they came (target: ≤ 1.1× the reference's CPU per stream);
 * - `responses translated`: `POST /v1/responses` through an `openai` provider in its default translate mode, each chat
 *   chunk of the upstream turned into Responses events (target: ≤ 1.3×);
 * - `messages`: `POST /v1/messages` through an `anthropic` provider's native path, as in bench/anthropic-relay.ts (it
 *   should stay where that benchmark put it, about 1.04×).
 * Trellis runs as users run it: ledger on, a token without limits, logging at `info` (stdout discarded).
 *
 *   bun bench/responses-relay.ts [--sequential 200] [--seconds 8] [--concurrency 64] [--rounds 3] [--gap-ms 0 |
 *   --one-pull]
 *
 * Every stream is checked: 67 `data:` events ending in `[DONE]` for chat; 72 Responses events (created, in_progress,
 * output_item.added, content_part.added, 64 deltas, output_text.done, content_part.done, output_item.done, completed)
 * ending in `response.completed`; 69 Messages events ending in `message_stop`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createChatToken, freePort, trellisEnv } from './processes'
import {
  argument,
  median,
  countedStream,
  reportErrors,
  serverLog,
  openAIEvents,
  percentile,
  printLatency,
  type Run,
  runConcurrent,
  type Sample,
  startMock,
  startProcess,
  stopAll,
  type Target,
  waitUntilServing,
} from './relay-driver'

const SEQUENTIAL = Number(argument('sequential', '200'))
const SECONDS = Number(argument('seconds', '8'))
const CONCURRENCY = Number(argument('concurrency', '64'))
const ROUNDS = Number(argument('rounds', '3'))
const GAP_MS = argument('gap-ms', '0')
const ONE_PULL = Bun.argv.includes('--one-pull')
const scratch = mkdtempSync(join(tmpdir(), 'trellis-bench-'))

/** A stream of named events: exactly `events` of them (pings and comments aside), `last` the final one. */
const namedEvents = (events: number, last: string) => (text: string) => {
  const found = text.split('\n\n').filter((event) => event.startsWith('event: ') && !event.startsWith('event: ping\n'))
  return found.length === events && found.at(-1)!.startsWith(`event: ${last}\n`)
    ? undefined
    : `expected ${events} events ending in ${last}, got ${found.length} ending in ${found.at(-1)?.split('\n')[0]}`
}

const PROMPT = 'Say something.'
const chatBody = (model: string) =>
  JSON.stringify({ model, messages: [{ role: 'user', content: PROMPT }], stream: true })
const responsesBody = (model: string) => JSON.stringify({ model, input: PROMPT, stream: true, store: false })
const messagesBody = (model: string) =>
  JSON.stringify({ model, max_tokens: 1024, messages: [{ role: 'user', content: PROMPT }], stream: true })
const JSON_TYPE = { 'content-type': 'application/json' }

async function main() {
  const upstream = await startMock({ gapMs: GAP_MS, onePull: ONE_PULL })
  const port = await freePort()
  const env = trellisEnv(port, join(scratch, 'data'), {
    CHAT_PROVIDERS: JSON.stringify({
      mock: { baseUrl: upstream.url, maxRetries: 0 },
      native: { baseUrl: upstream.url, maxRetries: 0, responses: 'native' },
      claude: { kind: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-ant-bench', maxRetries: 0 },
    }),
    CHAT_MODELS: JSON.stringify({
      bench: [{ provider: 'mock', model: 'mock-model' }],
      'bench-native': [{ provider: 'native', model: 'mock-model' }],
      'bench-anthropic': [{ provider: 'claude', model: 'mock-model' }],
    }),
  })
  const token = await createChatToken(env)
  const server = await startProcess(['bun', 'src/runtimes/bun.ts'], env, serverLog('trellis'))
  const trellis = `http://127.0.0.1:${port}/v1`
  const bearer = { ...JSON_TYPE, authorization: `Bearer ${token}` }
  const targets: Target[] = [
    {
      name: 'direct chat',
      url: `${upstream.url}/chat/completions`,
      headers: JSON_TYPE,
      body: chatBody('mock-model'),
      pid: upstream.pid,
      check: openAIEvents(67),
    },
    {
      name: 'trellis chat',
      url: `${trellis}/chat/completions`,
      headers: bearer,
      body: chatBody('bench'),
      pid: server.pid,
      check: openAIEvents(67),
    },
    {
      name: 'direct responses',
      url: `${upstream.url}/responses`,
      headers: JSON_TYPE,
      body: responsesBody('mock-model'),
      pid: upstream.pid,
      check: namedEvents(72, 'response.completed'),
    },
    {
      name: 'trellis responses native',
      url: `${trellis}/responses`,
      headers: bearer,
      body: responsesBody('bench-native'),
      pid: server.pid,
      check: namedEvents(72, 'response.completed'),
    },
    {
      name: 'trellis responses translated',
      url: `${trellis}/responses`,
      headers: bearer,
      body: responsesBody('bench'),
      pid: server.pid,
      check: namedEvents(72, 'response.completed'),
    },
    {
      name: 'trellis messages',
      url: `${trellis}/messages`,
      headers: { ...JSON_TYPE, 'x-api-key': token, 'anthropic-version': '2023-06-01' },
      body: messagesBody('bench-anthropic'),
      pid: server.pid,
      check: namedEvents(69, 'message_stop'),
    },
  ]
  for (const each of targets) await waitUntilServing(each)

  console.log(`# Responses relay benchmark\n`)
  console.log(
    `${new Date().toISOString()} · Bun ${Bun.version} · ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}`,
  )
  const shape = ONE_PULL ? ', all written in one pull' : ', one event per pull'
  const gap = GAP_MS !== '0' ? `, ${GAP_MS} ms before each event after the first` : ''
  console.log(`mock upstream: 64 content pieces per stream${gap}${shape}`)
  const storage = process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite'
  console.log(`Trellis storage: ${storage}; ledger on, a token without limits, logging at info\n`)

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
    `\n## Concurrency ${CONCURRENCY} (${SECONDS} s per target and round, ${ROUNDS} rounds interleaved; medians)\n`,
  )
  printLatency(targets, new Map([...concurrent].map(([name, run]) => [name, run.samples])))
  console.log(`\n| target | streams/s | errors | server CPU per stream |\n|---|---:|---:|---:|`)
  for (const [name, run] of concurrent) {
    const note = name.startsWith('direct') ? ' (the mock itself)' : ''
    console.log(`| ${name} | ${run.perSecond.toFixed(0)} | ${run.errors} | ${run.cpu.toFixed(0)} µs${note} |`)
  }

  const ttft = (name: string) =>
    percentile(
      sequential.get(name)!.map((sample) => sample.ttft),
      50,
    )
  const cpu = (name: string) => concurrent.get(name)!.cpu
  const perRound = (name: string) =>
    rounds
      .get(name)!
      .map((run, i) => (run.cpuPerStreamUs / rounds.get('trellis chat')![i]!.cpuPerStreamUs).toFixed(2))
      .join(', ')
  const ratio = (name: string, target: string) =>
    `${(cpu(name) / cpu('trellis chat')).toFixed(2)} (target ${target}; per round ${perRound(name)})`
  console.log(`\n## Ratios (CPU per stream ÷ the chat relay's, same run)\n`)
  console.log(`- responses native: ${ratio('trellis responses native', '≤ 1.1')}`)
  console.log(`- responses translated: ${ratio('trellis responses translated', '≤ 1.3')}`)
  console.log(`- messages native: ${ratio('trellis messages', 'unchanged, about 1.04')}`)
  console.log(
    `- added TTFT p50 at c=1: chat ${(ttft('trellis chat') - ttft('direct chat')).toFixed(3)} ms, responses native ${(ttft('trellis responses native') - ttft('direct responses')).toFixed(3)} ms, responses translated ${(ttft('trellis responses translated') - ttft('direct chat')).toFixed(3)} ms`,
  )
  const errors = [...concurrent.values()].reduce((sum, run) => sum + run.errors, 0)
  console.log(`- errors in every target and round: ${errors}`)
  reportErrors(targets)
}

try {
  await main()
} finally {
  await stopAll()
  rmSync(scratch, { recursive: true, force: true })
}
