import process from 'node:process'
import { PROVIDER_KINDS } from '../chat/providers'
import { type Config, ConfigError, ConfigFileInvalid, type ConfigOptions, loadConfig } from '../config'
import { DataDirInUse } from '../db/data-dir-lock'
import type { RequestGate } from '../http/drain'
import type { Logger } from '../telemetry/logger'

/*
 * The life of a serving process, the same on Bun, Deno and Node: configuration that
 * fails in one line, and SIGTERM/SIGINT draining. Only `node:process` is used, which all
 * three runtimes provide.
 */

/**
 * Reads the environment and the configuration file, or stops the process: with one readable line, or one line per
 * problem of the file (`file:line:column: error …`).
 */
export function configOrExit(
  env: Record<string, string | undefined> = process.env,
  options: ConfigOptions = {},
): Config {
  try {
    return loadConfig(env, PROVIDER_KINDS, options)
  } catch (error) {
    if (error instanceof ConfigFileInvalid) {
      console.error(error.message)
      const count = error.findings.length
      console.error(
        `trellis: ${error.file} does not validate (${count} error${count === 1 ? '' : 's'}); nothing was done`,
      )
      process.exit(1)
    }
    if (error instanceof ConfigError) {
      console.error(`trellis: configuration error: ${error.message}`)
      process.exit(1)
    }
    throw error
  }
}

/**
 * Awaits a start-up step; a failure that is the operator's to fix (the embedded database in use
 * by another process) stops the process with one line instead of a stack trace.
 */
export async function startedOrExit<T>(starting: Promise<T>): Promise<T> {
  try {
    return await starting
  } catch (error) {
    if (error instanceof DataDirInUse) {
      console.error(`trellis: ${error.message}`)
      process.exit(1)
    }
    throw error
  }
}

/**
 * Configuration for a runtime that serves one process (Deno, Node): `WORKERS` > 1 is a
 * feature of the Bun server, so it stops here with one line instead of being ignored.
 */
export function singleProcessConfigOrExit(runtime: string): Config {
  const config = configOrExit()
  if (config.workers > 1) {
    console.error(
      `trellis: configuration error: WORKERS > 1 is a feature of the Bun server (\`trellis serve --workers N\`); ` +
        `run one ${runtime} process per replica instead`,
    )
    process.exit(1)
  }
  return config
}

/** What a runtime's listening server must offer to be drained. */
export type Drainable = {
  /** Stop accepting connections; resolves once the requests and streams in flight have ended. */
  drain(): Promise<unknown>
  /** End every connection still open (after the deadline). */
  force(): Promise<unknown> | void
}

export type ShutdownOptions = {
  timeoutMs: number
  logger: Logger
  /** Counts the requests being handled; the database closes only once none is (see src/http/drain.ts). */
  gate: RequestGate
  /** Closes the database; runs after the last request has been handled. */
  close(): Promise<void>
}

/** How long aborted streams get to write their final error event before connections are cut. */
const FINAL_EVENT_GRACE_MS = 500

/**
 * Call first thing, before the (possibly slow) start-up: from then on SIGTERM/SIGINT are
 * caught. Once the server listens, `serving()` arms the drain: stop accepting, let
 * requests and streams in flight finish until `timeoutMs`, then abort `signal` (open
 * streams end with an error event), cut what is left, close the database, exit 0.
 * A signal that arrived during start-up drains as soon as `serving()` is called.
 */
export function shutdownOnSignals() {
  const deadline = new AbortController()
  let received: string | undefined
  let drain: ((signal: string) => void) | undefined
  const onSignal = (signal: string) => {
    if (received) return
    received = signal
    drain?.(signal)
  }
  process.on('SIGTERM', onSignal).on('SIGINT', onSignal)

  return {
    /** Aborted when the drain deadline passes; long-lived responses listen to it. */
    signal: deadline.signal,
    serving(server: Drainable, options: ShutdownOptions) {
      drain = (signal) => void drainThenExit(signal, server, options, deadline)
      if (received) drain(received)
    },
  }
}

async function drainThenExit(signal: string, server: Drainable, options: ShutdownOptions, deadline: AbortController) {
  // From here on responses say Connection: close, and requests still arriving on open connections get 503.
  options.gate.startDraining()
  const started = performance.now()
  const drained = server.drain()
  // Logged once the listener is told to close: a reader of the log (an orchestrator, a test) that sees the line and
  // then connects must find the port closed, not win a race against the line before it.
  options.logger.info('draining', { signal, deadline_ms: options.timeoutMs })
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<'deadline'>(
    (resolve) => (timer = setTimeout(() => resolve('deadline'), options.timeoutMs)),
  )
  if ((await Promise.race([drained.then(() => 'drained' as const), expired])) === 'deadline') {
    deadline.abort(new Error('server is shutting down'))
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, FINAL_EVENT_GRACE_MS))])
    await server.force()
  }
  clearTimeout(timer)
  // Handlers may still be at work after their connections are gone (a force, a client that hung
  // up): the database stays open until the last of them is done, or the deadline has long passed.
  const left = Math.max(FINAL_EVENT_GRACE_MS, options.timeoutMs - (performance.now() - started))
  if (!(await options.gate.idle(left)))
    options.logger.warn('closing the database with requests still being handled', { in_flight: options.gate.inFlight })
  try {
    await options.close()
  } catch (error) {
    options.logger.error('closing the database failed', { error: (error as Error).message })
    options.logger.flush()
    process.exit(1)
  }
  options.logger.info('stopped')
  options.logger.flush()
  process.exit(0)
}

/**
 * SIGHUP re-reads the configuration file and the environment (see src/config/reload.ts); a file that does not
 * validate is refused and logged, and the process serves on with what it had. Without this, SIGHUP would end it.
 */
export function reloadOnHangup(reloader: { reload(trigger: string): unknown }) {
  process.on('SIGHUP', () => void reloader.reload('SIGHUP'))
}

/** Why a bind failed, in words that say what to do. */
export function listenFailure(error: unknown): string {
  const code = (error as { code?: unknown })?.code
  if (code === 'EADDRINUSE') return 'the port is in use by another process; stop it, or set PORT (or --port)'
  if (code === 'EACCES') return 'permission denied; ports below 1024 need privileges, so choose another PORT'
  return (error as Error)?.message ?? String(error)
}
