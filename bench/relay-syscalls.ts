/**
 * System calls per relayed stream, Trellis against Portkey and the mock itself (#17: where the CPU goes in
 * the one-event-per-read shape, where CPU per stream is the figure). For each relaying process in turn,
 * `strace -c -f` is attached for `--seconds` of load at `--concurrency`; the counts are divided by the
 * streams completed in that window. strace slows the traced process many times over, so only counts, not
 * times, are read from it; the count of read and write calls per stream does not depend on speed.
 *
 *   bun bench/relay-syscalls.ts [--gap-ms 1 | --one-pull] [--seconds 6] [--concurrency 16]
 *     [--portkey /tmp/portkey/node_modules/@portkey-ai/gateway/build/start-server.js]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
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

const SECONDS = Number(argument('seconds', '6'))
const CONCURRENCY = Number(argument('concurrency', '16'))
const ONE_PULL = Bun.argv.includes('--one-pull')
const GAP_MS = ONE_PULL ? '0' : argument('gap-ms', '1')
const PORTKEY = argument('portkey', '/tmp/portkey/node_modules/@portkey-ai/gateway/build/start-server.js')
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
const scratch = mkdtempSync(join(tmpdir(), 'trellis-strace-'))
const body = JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: 'Say something.' }], stream: true })

/** `strace -c` summary lines: calls per syscall name. */
function parseSummary(text: string): Map<string, number> {
  const calls = new Map<string, number>()
  for (const line of text.split('\n')) {
    const columns = line.trim().split(/\s+/)
    // % time, seconds, usecs/call, calls, [errors,] syscall
    if (columns.length < 5 || !/^\d/.test(columns[0]!) || columns.at(-1) === 'total') continue
    const name = columns.at(-1)!
    const count = Number(columns[3])
    if (Number.isFinite(count)) calls.set(name, (calls.get(name) ?? 0) + count)
  }
  return calls
}

async function traced(target: Target): Promise<{ streams: number; calls: Map<string, number> }> {
  const out = join(scratch, `${target.name}.strace`)
  const strace = Bun.spawn(['strace', '-c', '-f', '-o', out, '-p', String(target.pid)], {
    stdout: 'ignore',
    stderr: 'ignore',
  })
  await Bun.sleep(500)
  const run = await runConcurrent(target, CONCURRENCY, SECONDS)
  strace.kill('SIGINT')
  await strace.exited
  if (run.errors > 0) throw new Error(`${target.name}: ${run.errors} streams failed the check`)
  return { streams: run.samples.length, calls: parseSummary(readFileSync(out, 'utf8')) }
}

try {
  const mock = await startMock({ gapMs: GAP_MS, onePull: ONE_PULL })
  const port = await freePort()
  const env = trellisEnv(port, join(scratch, 'data'), {
    CHAT_PROVIDERS: JSON.stringify({ mock: { baseUrl: mock.url, maxRetries: 0 } }),
    CHAT_MODELS: JSON.stringify({ bench: [{ provider: 'mock', model: 'mock-model' }] }),
  })
  const token = await createChatToken(env, NEVER_REACHED)
  const trellis = await startProcess(['bun', 'src/runtimes/bun.ts'], env, 'ignore')
  const headers = { 'content-type': 'application/json' }
  const targets: Target[] = [
    {
      name: 'direct (the mock)',
      url: `${mock.url}/chat/completions`,
      headers,
      body: body.replace('"bench"', '"mock-model"'),
      pid: mock.pid,
      check: openAIEvents(67),
    },
    {
      name: 'trellis (limits on, ledger on, log at info)',
      url: `http://127.0.0.1:${port}/v1/chat/completions`,
      headers: { ...headers, authorization: `Bearer ${token}` },
      body,
      pid: trellis.pid,
      check: openAIEvents(67),
    },
  ]
  if (await Bun.file(PORTKEY).exists()) {
    const portkeyPort = await freePort()
    const portkey = await startProcess(['bun', PORTKEY, `--port=${portkeyPort}`], {}, 'ignore')
    targets.push({
      name: 'portkey',
      url: `http://127.0.0.1:${portkeyPort}/v1/chat/completions`,
      headers: {
        ...headers,
        authorization: 'Bearer sk-bench',
        'x-portkey-provider': 'openai',
        'x-portkey-custom-host': mock.url,
      },
      body: body.replace('"bench"', '"mock-model"'),
      pid: portkey.pid,
      check: openAIEvents(67),
    })
  }
  for (const target of targets) await waitUntilServing(target)
  for (const target of targets) await runConcurrent(target, 8, 2)

  console.log(
    `# System calls per stream (${new Date().toISOString()}, Bun ${Bun.version}; mock: 67 events per stream, ${ONE_PULL ? 'all in one pull' : `${GAP_MS} ms apart`}; c=${CONCURRENCY}, ${SECONDS} s under strace -c -f each)\n`,
  )
  const rows: { name: string; streams: number; calls: Map<string, number> }[] = []
  for (const target of targets) rows.push({ name: target.name, ...(await traced(target)) })
  const names = [
    ...new Set(
      rows.flatMap((row) =>
        [...row.calls.entries()].filter(([, count]) => count / row.streams >= 0.5).map(([name]) => name),
      ),
    ),
  ].sort()
  console.log(`| syscall | ${rows.map((row) => `${row.name} (${row.streams} streams)`).join(' | ')} |`)
  console.log(`|---|${rows.map(() => '---:').join('|')}|`)
  for (const name of names)
    console.log(`| ${name} | ${rows.map((row) => ((row.calls.get(name) ?? 0) / row.streams).toFixed(1)).join(' | ')} |`)
  const total = (row: (typeof rows)[number]) =>
    [...row.calls.values()].reduce((sum, count) => sum + count, 0) / row.streams
  console.log(`| **all** | ${rows.map((row) => total(row).toFixed(1)).join(' | ')} |`)
} finally {
  await stopAll()
  rmSync(scratch, { recursive: true, force: true })
}
