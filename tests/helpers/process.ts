import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { scratchPostgresDatabase } from './database'

export const ROOT = join(import.meta.dir, '../..')

/**
 * Where a real server process keeps its data: a fresh PGlite directory, or (when the
 * suite runs against PostgreSQL) a fresh database on that server.
 */
export async function storageEnv(): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  const url = process.env.DATABASE_URL
  if (url) {
    const scratch = await scratchPostgresDatabase(url)
    return { env: { DATABASE_URL: scratch.url }, cleanup: scratch.drop }
  }
  const dir = mkdtempSync(join(tmpdir(), 'trellis-e2e-'))
  return {
    env: { TRELLIS_DATA_DIR: join(dir, 'data') },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** The environment every child gets: the machine's, minus the suite's own DATABASE_URL. */
function childEnv(env: Record<string, string>) {
  const base: Record<string, string | undefined> = { ...process.env, LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1' }
  delete base.DATABASE_URL
  return { ...base, ...env }
}

export type RunningServer = Awaited<ReturnType<typeof startServer>>

/**
 * Starts `command` (default: `bun src/runtimes/bun.ts`) in `cwd` (default: the checkout) and waits for its "listening"
 * log line,
 * which carries the port it was given. Collects everything it prints.
 */
export async function startServer(
  env: Record<string, string>,
  command = ['bun', join(ROOT, 'src/runtimes/bun.ts')],
  cwd = ROOT,
) {
  const child = Bun.spawn(command, { cwd, env: childEnv(env), stdout: 'pipe', stderr: 'pipe' })
  const output: string[] = []
  const errors: string[] = []
  void collect(child.stderr, errors)
  let resolveUrl: (url: string) => void
  const listening = new Promise<string>((resolve) => (resolveUrl = resolve))
  void collect(child.stdout, output, (line) => {
    if (line.includes('"msg":"listening"')) resolveUrl(JSON.parse(line).url.replace('0.0.0.0', '127.0.0.1'))
  })
  const url = await Promise.race([
    listening,
    child.exited.then((code) => {
      throw new Error(`server exited with ${code} before listening:\n${output.join('\n')}\n${errors.join('\n')}`)
    }),
    Bun.sleep(60_000).then(() => {
      throw new Error(`server did not start in 60 s:\n${output.join('\n')}\n${errors.join('\n')}`)
    }),
  ])
  return {
    url: url.replace(/\/$/, ''),
    child,
    output,
    errors,
    /** SIGTERM, then the exit code. */
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      child.kill(signal)
      return child.exited
    },
  }
}

async function collect(stream: ReadableStream<Uint8Array>, into: string[], onLine?: (line: string) => void) {
  const decoder = new TextDecoder()
  let buffered = ''
  const reader = stream.getReader()
  for (;;) {
    const { done, value: chunk } = await reader.read()
    if (done) break
    buffered += decoder.decode(chunk, { stream: true })
    let newline
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline)
      buffered = buffered.slice(newline + 1)
      into.push(line)
      onLine?.(line)
    }
  }
  if (buffered) into.push(buffered)
}

/** Runs the CLI (`bun src/cli/main.ts …` by default) to completion. */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
  command = ['bun', join(ROOT, 'src/cli/main.ts')],
  stdin?: string,
) {
  const child = Bun.spawn([...command, ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdout: 'pipe',
    stderr: 'pipe',
    stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin),
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { stdout, stderr, code }
}
