/**
 * A CPU profile of Trellis relaying streams (#17's "profile first"): the bench mock (64 chunks,
 * `--one-pull` by default), one Trellis process started with `bun --cpu-prof`, a token with
 * limits that never trigger and the ledger on (as the performance issue measures), and
 * `--seconds` of load at `--concurrency` from this process. Trellis gets SIGTERM as soon as the
 * load stops, so the profile holds start-up and the load, not idle time (which `--cpu-prof-md`
 * charges to whatever ran last). The `.cpuprofile` lands in `--out` (default /tmp/trellis-prof);
 * `bun bench/profile-summary.ts <file>` groups its samples.
 *
 * With `--responses translated` (or `native`), the streams are `POST /v1/responses` instead, through the same `openai`
 * provider translating them to Chat Completions (or with `"responses": "native"`, relayed as they are), as in
 * bench/responses-relay.ts. `--per-pull` writes one event per pull without pauses (that benchmark's default shape)
 * instead of all in one.
 *
 * `--ungoverned` profiles governance off instead (#31: `USAGE_LEDGER=false` and a token without limits), as
 * `bench/chat-relay.ts --governance` runs its `trellis` target: the two profiles side by side show what governance costs.
 *
 *   bun bench/profile-relay.ts [--seconds 15] [--concurrency 64] [--gap-ms 0 | --one-pull] [--out /tmp/trellis-prof]
 *   [--responses translated|native] [--per-pull] [--ungoverned]
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createChatToken, freePort, trellisEnv } from './processes'
import {
  argument,
  openAIEvents,
  reportErrors,
  runConcurrent,
  startMock,
  startProcess,
  stopAll,
  type Target,
  waitUntilServing,
} from './relay-driver'

const SECONDS = Number(argument('seconds', '15'))
const CONCURRENCY = Number(argument('concurrency', '64'))
const GAP_MS = argument('gap-ms', '0')
const OUT = argument('out', '/tmp/trellis-prof')
const RESPONSES = argument('responses', '')
/** One event per pull without pauses, as bench/responses-relay.ts's default shape. */
const PER_PULL = Bun.argv.includes('--per-pull')
/** Governance off: no ledger, a token without limits. */
const UNGOVERNED = Bun.argv.includes('--ungoverned')
/** The floor (bench/relay-floor.ts) under the same load instead of Trellis, for its own breakdown (#31). */
const FLOOR = Bun.argv.includes('--floor')
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
/** A Responses stream's check: 72 events, `response.completed` last. */
const responsesEvents = (text: string) => {
  const events = text.split('\n\n').filter((event) => event.startsWith('event: '))
  return events.length === 72 && events.at(-1)!.startsWith('event: response.completed\n')
    ? undefined
    : `expected 72 events ending in response.completed, got ${events.length}`
}
const scratch = mkdtempSync(join(tmpdir(), 'trellis-prof-'))

try {
  mkdirSync(OUT, { recursive: true })
  const upstreamUrl = (await startMock({ gapMs: GAP_MS, onePull: GAP_MS === '0' && !PER_PULL })).url
  const port = await freePort()
  // Logging at `info`, as the performance issue measures.
  const env = trellisEnv(port, join(scratch, 'data'), {
    LOG_LEVEL: 'info',
    ...(UNGOVERNED ? { USAGE_LEDGER: 'false' } : {}),
    CHAT_PROVIDERS: JSON.stringify({
      mock: { baseUrl: upstreamUrl, maxRetries: 0 },
      native: { baseUrl: upstreamUrl, maxRetries: 0, responses: 'native' },
    }),
    CHAT_MODELS: JSON.stringify({
      bench: [{ provider: 'mock', model: 'mock-model' }],
      'bench-native': [{ provider: 'native', model: 'mock-model' }],
    }),
  })
  const token = await createChatToken(env, UNGOVERNED ? [] : NEVER_REACHED)
  const floorEnv = { FLOOR_UPSTREAM: upstreamUrl, FLOOR_TOKEN: token, FLOOR_MODEL: 'mock-model', PORT: String(port) }
  const server = await startProcess(
    ['bun', '--cpu-prof', `--cpu-prof-dir=${OUT}`, FLOOR ? 'bench/relay-floor.ts' : 'src/runtimes/bun.ts'],
    FLOOR ? floorEnv : env,
    'ignore',
  )
  const prompt = 'Say something.'
  const body = RESPONSES
    ? JSON.stringify({
        model: RESPONSES === 'native' ? 'bench-native' : 'bench',
        input: prompt,
        stream: true,
        store: false,
      })
    : JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: prompt }], stream: true })
  const target: Target = {
    name: FLOOR ? 'floor' : 'trellis',
    url: `http://127.0.0.1:${port}/v1/${RESPONSES ? 'responses' : 'chat/completions'}`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body,
    pid: server.pid,
    check: RESPONSES ? responsesEvents : openAIEvents(67),
  }
  await waitUntilServing(target)
  const run = await runConcurrent(target, CONCURRENCY, SECONDS)
  server.kill('SIGTERM')
  await server.exited
  console.log(
    `${run.samples.length} streams in ${SECONDS} s (${run.perSecond.toFixed(0)}/s, ${run.errors} errors), ${run.cpuPerStreamUs.toFixed(0)} µs CPU per stream; profile in ${OUT}`,
  )
  reportErrors([target])
} finally {
  await stopAll()
  rmSync(scratch, { recursive: true, force: true })
}
