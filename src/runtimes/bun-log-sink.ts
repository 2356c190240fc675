import type { LogLevel } from '../config'

/** How long a request log line may wait in memory before it is written. */
const FLUSH_EVERY_MS = 50

/**
 * Buffered stdout for the Bun entry. A synchronous console.log per request cost the plant
 * store a measurable share of its throughput; lines are instead appended to Bun's
 * buffered stdout sink and written together every 50 ms. Warnings and errors are written
 * at once, and the lifecycle flushes before exiting, so only a hard crash can lose the
 * last 50 ms of request lines.
 */
export function bunStdoutLines() {
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
