/** What the chat benchmarks need to run Trellis as a separate process. */
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..')

/**
 * A token (scope `chat` unless told) from the real CLI, against the storage `env` points at; `extra` adds options
 * (limits).
 */
export async function createChatToken(
  env: Record<string, string>,
  extra: string[] = [],
  scope = 'chat',
  cwd = ROOT,
): Promise<string> {
  const child = Bun.spawn(
    ['bun', 'src/cli/main.ts', 'token', 'create', '--owner', 'bench', '--scope', scope, ...extra],
    {
      cwd,
      env: { ...process.env, ...env },
      stdout: 'pipe',
      stderr: 'inherit',
    },
  )
  const output = await new Response(child.stdout).text()
  if ((await child.exited) !== 0) throw new Error(`token create failed: ${output}`)
  return output.trim().split('\n').at(-1)!.trim()
}

/** A loopback port nobody listens on right now: the kernel picks it and it is released at once. */
export async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}

/**
 * A benchmarked Trellis's environment: loopback on `port`, production mode, a log line per request (`info`, as #17
 * asks; start it with stdout `ignore`), a scratch data directory; `extra` adds or overrides.
 */
export function trellisEnv(port: number, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    PORT: String(port),
    TRELLIS_DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    NODE_ENV: 'production',
    ...extra,
  }
}
