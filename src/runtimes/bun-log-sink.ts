import type { Config, LogLevel } from '../config'
import { createLogger, type Logger } from '../telemetry/logger'

/** How long a request log line may wait in memory before it is written. */
const FLUSH_EVERY_MS = 50

/**
 * Buffered stdout for the Bun entry. A synchronous console.log per request cost the plant
 * store a measurable share of its throughput; lines are instead appended to Bun's
 * buffered stdout sink and written together every 50 ms. Warnings and errors are written
 * at once, and the lifecycle flushes before exiting, so only a hard crash can lose the
 * last 50 ms of request lines.
 */
function bunStdoutLines() {
  const sink = Bun.stdout.writer({ highWaterMark: 64 * 1024 })
  let timer: ReturnType<typeof setTimeout> | undefined
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    void sink.flush()
  }
  return {
    write(line: string, level: LogLevel) {
      sink.write(line + '\n')
      if (level === 'warn' || level === 'error') flush()
      else timer ??= setTimeout(flush, FLUSH_EVERY_MS)
    },
    flush,
  }
}

/** The logger of one worker: every line names the worker and its pid, since all workers share one stdout. */
export function workerLogger(config: Config): Logger {
  const stdout = bunStdoutLines()
  const logger = createLogger(config.logLevel, stdout.write, stdout.flush)
  const worker = config.env.TRELLIS_WORKER
  if (!worker) return logger
  const tag = { worker: Number(worker), pid: process.pid }
  return {
    debug: (message, fields) => logger.debug(message, { ...tag, ...fields }),
    info: (message, fields) => logger.info(message, { ...tag, ...fields }),
    warn: (message, fields) => logger.warn(message, { ...tag, ...fields }),
    error: (message, fields) => logger.error(message, { ...tag, ...fields }),
    flush: logger.flush,
  }
}
