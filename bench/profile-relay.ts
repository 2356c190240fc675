/**
 * A CPU profile of Trellis relaying streams (#17's "profile first"): the bench mock (64 chunks,
 * `--one-pull` by default), one Trellis process started with `bun --cpu-prof`, a token with
 * limits that never trigger and the ledger on (as the performance issue measures), and
 * `--seconds` of load at `--concurrency` from this process. Trellis gets SIGTERM as soon as the
 * load stops, so the profile holds start-up and the load, not idle time (which `--cpu-prof-md`
 * charges to whatever ran last). The `.cpuprofile` lands in `--out` (default /tmp/trellis-prof);
 * `bun bench/profile-summary.ts <file>` groups its samples.
 *
 *   bun bench/profile-relay.ts [--seconds 15] [--concurrency 64] [--gap-ms 0 | --one-pull] [--out /tmp/trellis-prof]
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createChatToken, freePort, trellisEnv } from './processes'
import {
  argument,
  openAIEvents,
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
const scratch = mkdtempSync(join(tmpdir(), 'trellis-prof-'))

try {
  mkdirSync(OUT, { recursive: true })
  const upstreamUrl = (await startMock({ gapMs: GAP_MS, onePull: GAP_MS === '0' })).url
  const port = await freePort()
  // Logging at `info`, as the performance issue measures.
  const env = trellisEnv(port, join(scratch, 'data'), {
    LOG_LEVEL: 'info',
    CHAT_PROVIDERS: JSON.stringify({ mock: { baseUrl: upstreamUrl, maxRetries: 0 } }),
    CHAT_MODELS: JSON.stringify({ bench: [{ provider: 'mock', model: 'mock-model' }] }),
  })
  const token = await createChatToken(env, NEVER_REACHED)
  const server = await startProcess(
    ['bun', '--cpu-prof', `--cpu-prof-dir=${OUT}`, 'src/runtimes/bun.ts'],
    env,
    'ignore',
  )
  const body = JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: 'Say something.' }], stream: true })
  const target: Target = {
    name: 'trellis',
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body,
    pid: server.pid,
    check: openAIEvents(67),
  }
  await waitUntilServing(target)
  const run = await runConcurrent(target, CONCURRENCY, SECONDS)
  server.kill('SIGTERM')
  await server.exited
  console.log(
    `${run.samples.length} streams in ${SECONDS} s (${run.perSecond.toFixed(0)}/s, ${run.errors} errors), ${run.cpuPerStreamUs.toFixed(0)} µs CPU per stream; profile in ${OUT}`,
  )
} finally {
  await stopAll()
  rmSync(scratch, { recursive: true, force: true })
}
