/**
 * The load driver the relay benchmarks share (bench/chat-relay.ts, bench/anthropic-relay.ts):
 * servers run as their own processes, this process only drives load and reads their CPU time
 * from /proc. Every stream is read to the end and checked; a stream that fails its target's
 * check counts as an error, never as a result.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'

const ROOT = join(import.meta.dir, '..')

/**
 * `pid` is the process whose CPU time a stream through this target costs (the mock's for a
 * direct target); `check` returns why a whole response body is wrong, or undefined.
 */
export type Target = {
  name: string
  url: string
  headers: Record<string, string>
  body: string
  pid: number
  check: (body: string) => string | undefined
}
export type Sample = { ttft: number; total: number }
export type Run = { samples: Sample[]; errors: number; perSecond: number; cpuPerStreamUs: number }

/** An OpenAI stream's check: exactly `events` `data:` events, `[DONE]` last. */
export const openAIEvents = (events: number) => (text: string) => {
  const found = text.split('\n\n').filter((event) => event.startsWith('data: '))
  return found.length === events && found.at(-1) === 'data: [DONE]'
    ? undefined
    : `expected ${events} events ending in [DONE], got ${found.length}`
}

/** The command line's `--name value`, or `fallback`. */
export const argument = (name: string, fallback: string) => {
  const at = Bun.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : Bun.argv[at + 1]!
}

/** The peak resident memory of a process in MB (VmHWM), where garbage shows. */
export function peakRssMb(pid: number): string {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmHWM:'))
  return line ? (Number(line.split(/\s+/)[1]) / 1024).toFixed(0) : '?'
}

/** User + system CPU time of a process in ms, from /proc (Linux); NaN elsewhere. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
  } catch {
    return Number.NaN
  }
}
const CLOCK_TICKS = 100

const decoder = new TextDecoder()

/** One checked stream; throws if it is not what the target must send. */
export async function oneStream(each: Target): Promise<Sample> {
  const started = performance.now()
  const response = await fetch(each.url, { method: 'POST', headers: each.headers, body: each.body })
  if (response.status !== 200) throw new Error(`${each.name}: HTTP ${response.status}: ${await response.text()}`)
  const reader = response.body!.getReader()
  let ttft = -1
  let text = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (ttft < 0) ttft = performance.now() - started
    text += decoder.decode(value, { stream: true })
  }
  const total = performance.now() - started
  const wrong = each.check(text)
  if (wrong) throw new Error(`${each.name}: ${wrong}`)
  return { ttft, total }
}

/** `concurrency` clients stream back to back for `seconds`; streams/s and the target's CPU per stream. */
export async function runConcurrent(each: Target, concurrency: number, seconds: number): Promise<Run> {
  const samples: Sample[] = []
  let errors = 0
  let lastError: unknown
  const started = performance.now()
  const cpuBefore = cpuMs(each.pid)
  const deadline = started + seconds * 1000
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        try {
          samples.push(await oneStream(each))
        } catch (error) {
          errors++
          lastError = error
        }
      }
    }),
  )
  if (errors) console.log(`(${each.name}: ${errors} failed streams, last: ${lastError})`)
  const cpuPerStreamUs = ((cpuMs(each.pid) - cpuBefore) * 1000) / samples.length
  return { samples, errors, perSecond: samples.length / ((performance.now() - started) / 1000), cpuPerStreamUs }
}

export function printLatency(targets: Target[], samples: Map<string, Sample[]>) {
  console.log('| target | streams | TTFT p50 | TTFT p90 | TTFT p99 | whole p50 | whole p90 | whole p99 |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
  for (const { name } of targets) {
    const list = samples.get(name)!
    const ttft = list.map((sample) => sample.ttft)
    const total = list.map((sample) => sample.total)
    const ms = (values: number[], p: number) => `${percentile(values, p).toFixed(2)} ms`
    console.log(
      `| ${name} | ${list.length} | ${ms(ttft, 50)} | ${ms(ttft, 90)} | ${ms(ttft, 99)} | ${ms(total, 50)} | ${ms(total, 90)} | ${ms(total, 99)} |`,
    )
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

/** Processes started here; {@link stopAll} ends them. */
const children: Subprocess[] = []

/** `stdout: 'ignore'` for a server that logs a line per request: a pipe nobody reads would fill and stall it. */
export async function startProcess(
  command: string[],
  env: Record<string, string>,
  stdout: 'pipe' | 'ignore' = 'pipe',
  cwd = ROOT,
): Promise<Subprocess<'ignore', 'pipe', 'inherit'>> {
  const child = Bun.spawn(command, {
    cwd,
    env: { ...process.env, ...env },
    stdout,
    stderr: 'inherit',
  }) as Subprocess<'ignore', 'pipe', 'inherit'>
  children.push(child)
  return child
}

export async function stopAll(): Promise<void> {
  for (const child of children) child.kill()
  await Promise.all(children.map((child) => child.exited))
}

export async function firstLine(child: Subprocess<'ignore', 'pipe', 'inherit'>): Promise<string> {
  const reader = child.stdout.getReader()
  let text = ''
  while (!text.includes('\n')) {
    const { done, value } = await reader.read()
    if (done) throw new Error(`process exited before printing: ${text}`)
    text += decoder.decode(value)
  }
  reader.releaseLock()
  return text.slice(0, text.indexOf('\n'))
}

export async function waitUntilServing(each: Target) {
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      await oneStream(each)
      return
    } catch {
      await Bun.sleep(100)
    }
  }
  throw new Error(`${each.name} did not start serving at ${each.url}`)
}

/**
 * The bench mock (bench/mock-upstream.ts, 64 chunks per stream) in its own process, in the shape asked: one event per
 * pull, `gapMs` between events, or all in one pull.
 */
export async function startMock(shape: { gapMs: string; onePull: boolean }): Promise<{ pid: number; url: string }> {
  const mock = await startProcess(
    [
      'bun',
      'bench/mock-upstream.ts',
      '--port',
      '0',
      '--chunks',
      '64',
      '--gap-ms',
      shape.gapMs,
      ...(shape.onePull ? ['--one-pull'] : []),
    ],
    {},
  )
  return { pid: mock.pid, url: (await firstLine(mock)).trim() }
}
