import type { LogLevel } from '../config'

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 }

export type Logger = {
  debug(message: string, fields?: Record<string, unknown>): void
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
  /** Writes out anything the sink still buffers; called before the process exits. */
  flush(): void
}

/**
 * One JSON object per line on `write` (stdout by default): easy to grep, easy to ship.
 * Lines below `level` are dropped before any formatting work is done. A buffering sink
 * passes its own `flush`.
 */
export function createLogger(
  level: LogLevel,
  write: (line: string, level: LogLevel) => void = (line) => console.log(line),
  flush: () => void = () => {},
): Logger {
  const emit = (at: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (RANK[at] < RANK[level]) return
    const entry = { time: new Date().toISOString(), level: at, msg: message, ...fields }
    let line: string
    try {
      line = JSON.stringify(entry)
    } catch {
      // Only a bigint (an int64 id) gets here; a replacer on every line would cost every request.
      line = JSON.stringify(entry, bigintSafe)
    }
    write(line, at)
  }
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error'), flush }
}

const bigintSafe = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)
