import { bootstrap } from './bootstrap'
import type { Config } from '../config'
import { bunUiAssets } from './bun-assets'
import { workerLogger } from './bun-log-sink'
import { bunPgliteFiles } from './bun-pglite'
import { startGcPacer } from './gc-pacer'
import { configOrExit, listenFailure, reloadOnHangup, shutdownOnSignals, startedOrExit } from './lifecycle'

/**
 * The Bun entry: build the app, listen, and on SIGTERM/SIGINT drain — stop accepting,
 * let in-flight requests and streams finish until the deadline, end the streams still
 * open with an error event, close the database, exit 0. SIGHUP reloads the configuration.
 */
export async function serve(config: Config) {
  const shutdown = shutdownOnSignals()
  let server: ReturnType<typeof Bun.serve> | undefined
  const { app, deps, gate, close, firstToken, reloader } = await startedOrExit(
    bootstrap(config, {
      logger: workerLogger(config),
      uiAssets: bunUiAssets,
      shutdownSignal: shutdown.signal,
      // Bun closes a connection idle for `idleTimeout` seconds; a stream waiting on a slow
      // upstream must never be cut by that, so long-lived responses opt out per request.
      onLongLivedRequest: (request) => server?.timeout(request, 0),
      peerAddress: (request) => server?.requestIP(request)?.address,
      pglite: config.databaseUrl ? undefined : await bunPgliteFiles(config.dataDir),
    }),
  )
  try {
    server = Bun.serve({
      port: config.port,
      hostname: config.host,
      idleTimeout: config.idleTimeout,
      reusePort: config.workers > 1,
      fetch: gate.track(app.fetch),
    })
  } catch (error) {
    // Nothing was announced yet: a port in use ends the start with one line, and no token made for nobody.
    deps.logger.error('cannot listen', { host: config.host, port: config.port, error: (error as Error).message })
    deps.logger.flush()
    await close()
    console.error(`trellis: cannot listen on ${config.host}:${config.port}: ${listenFailure(error)}`)
    process.exit(1)
  }
  const stopGcPacer = startGcPacer({
    intervalMs: config.gcIntervalMs,
    busy: () => server!.pendingRequests > 0,
    collect: () => Bun.gc(true),
  })
  reloadOnHangup(reloader)
  // Bound, so the token's curl line names a server that answers; announced before "listening", which is what
  // scripts (and the tests) wait for before they read what the server printed.
  await firstToken(server.url.toString())
  deps.logger.info('listening', { url: server.url.toString(), database: deps.database.kind, pid: process.pid })
  const listening = server
  // Signals have been caught since start-up; one that already arrived drains now.
  shutdown.serving(
    { drain: () => listening.stop(false), force: () => listening.stop(true) },
    {
      timeoutMs: config.shutdownTimeoutMs,
      logger: deps.logger,
      gate,
      close: async () => {
        stopGcPacer()
        await close()
      },
    },
  )
  return server
}

if (import.meta.main) await serve(configOrExit())
