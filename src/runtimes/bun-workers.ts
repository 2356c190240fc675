import type { Config } from '../config'
import { createLogger } from '../telemetry/logger'

/**
 * `trellis serve --workers N`: N copies of this process share one port through
 * SO_REUSEPORT, so the kernel spreads connections across them. The parent only
 * supervises: it has migrated once before they start, forwards SIGTERM/SIGINT (and SIGHUP, which
 * makes each worker reload its configuration), and exits
 * when every worker has. A worker that dies on its own takes the others down with it, so
 * the orchestrator sees one failed process instead of a silently shrunken one.
 * Requires PostgreSQL (checked in config): PGlite cannot be opened by two processes.
 */
export async function runWorkers(config: Config): Promise<number> {
  const logger = createLogger(config.logLevel)
  // With PORT=0 each worker would get a port of its own; they must share one.
  const port = config.port === 0 ? freePort(config.host) : config.port
  // From source (`bun src/cli/main.ts`) the script path comes along; a compiled binary is its own script.
  const script = process.argv[1]
  const command =
    script && /\.(ts|js)$/.test(script) && !script.startsWith('/$bunfs/')
      ? [process.execPath, script, 'serve']
      : [process.execPath, 'serve']
  let stopping = false
  const children = Array.from({ length: config.workers }, (_, index) =>
    Bun.spawn(command, {
      // The parent already migrated and announced any development token; workers only serve.
      env: {
        ...process.env,
        PORT: String(port),
        WORKERS: String(config.workers),
        // The file the parent read (`--config` included), so that every worker reads the same one, also on reload.
        ...(config.file ? { TRELLIS_CONFIG: config.file.path } : {}),
        TRELLIS_WORKER: String(index + 1),
        MIGRATE_ON_START: 'false',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
      onExit: (child, code) => {
        if (stopping) return
        stopping = true
        logger.error('worker exited; stopping the others', { worker: index + 1, pid: child.pid, code })
        for (const other of children) if (other !== child) other.kill('SIGTERM')
      },
    }),
  )
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.on(signal, () => {
      stopping = true
      for (const child of children) child.kill(signal)
    })
  process.on('SIGHUP', () => {
    for (const child of children) child.kill('SIGHUP')
  })
  const codes = await Promise.all(children.map((child) => child.exited))
  return codes.find((code) => code !== 0) ?? 0
}

/** A port nobody listens on right now: the kernel picks it and we release it at once. */
function freePort(hostname: string): number {
  const probe = Bun.listen({ hostname, port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}
