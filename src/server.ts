import { bootstrap } from './bootstrap'
import { type Config, ConfigError, loadConfig } from './config'
import { bunUiAssets } from './runtimes/bun-assets'
import { bunPgliteFiles } from './runtimes/bun-pglite'
import { workerLogger } from './workers'

/**
 * The Bun entry: build the app, listen, and on SIGTERM/SIGINT drain — stop accepting,
 * let in-flight requests and streams finish until the deadline, end the streams still
 * open with an error event, close the database, exit 0.
 */
export async function serve(config: Config) {
  const shutdown = new AbortController()
  // A signal during start-up (migrations can take a while) is honoured once serving begins.
  let signalledEarly: string | undefined
  const early = (signal: string) => void (signalledEarly = signal)
  process.on('SIGTERM', early).on('SIGINT', early)
  let server: ReturnType<typeof Bun.serve> | undefined
  const { app, deps, close } = await bootstrap(config, {
    logger: workerLogger(config),
    uiAssets: bunUiAssets,
    shutdownSignal: shutdown.signal,
    // Bun closes a connection idle for `idleTimeout` seconds; a stream waiting on a slow
    // upstream must never be cut by that, so long-lived responses opt out per request.
    onLongLivedRequest: (request) => server?.timeout(request, 0),
    pglite: config.databaseUrl ? undefined : await bunPgliteFiles(),
  })
  server = Bun.serve({
    port: config.port,
    hostname: config.host,
    idleTimeout: config.idleTimeout,
    reusePort: config.workers > 1,
    fetch: app.fetch,
  })

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    deps.logger.info('draining', { signal, deadline_ms: config.shutdownTimeoutMs })
    const drained = server!.stop(false)
    const deadline = new Promise<'deadline'>((resolve) => setTimeout(() => resolve('deadline'), config.shutdownTimeoutMs))
    if ((await Promise.race([drained.then(() => 'drained' as const), deadline])) === 'deadline') {
      shutdown.abort(new Error('server is shutting down'))
      // Give aborted streams a moment to write their final error event.
      await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 500))])
      await server!.stop(true)
    }
    await close()
    deps.logger.info('stopped')
    process.exit(0)
  }
  process.off('SIGTERM', early).off('SIGINT', early)
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
  // Announced only once the signal handlers are in place, so "listening" means "drainable" too.
  deps.logger.info('listening', { url: server.url.toString(), database: deps.database.kind, pid: process.pid })
  if (signalledEarly) void stop(signalledEarly)
  return server
}

/** Reads the environment, or stops with one readable line. */
export function configOrExit(env: Record<string, string | undefined> = process.env): Config {
  try {
    return loadConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`trellis: configuration error: ${error.message}`)
      process.exit(1)
    }
    throw error
  }
}

if (import.meta.main) await serve(configOrExit())
