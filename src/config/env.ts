/** Reading one environment variable of each kind; every reader refuses what it cannot use, naming the variable. */

/** A configuration value that stops the process at start, with one readable line. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

export type Env = Record<string, string | undefined>

/** The one integer parser of the environment: a whole number from `min` to `max`, or `fallback` when unset. */
export function integer(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name]
  if (raw === undefined || raw.trim() === '') return fallback
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`)
  const value = Number(raw.trim())
  if (value < min || value > max) {
    throw new ConfigError(
      max === Number.MAX_SAFE_INTEGER
        ? `${name} must be at least ${min}, got ${value}`
        : `${name} must be between ${min} and ${max}, got ${value}`,
    )
  }
  return value
}

export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = raw.trim().toLowerCase()
  if (['1', 'true', 'yes', 'on'].includes(value)) return true
  if (['0', 'false', 'no', 'off'].includes(value)) return false
  throw new ConfigError(`${name} must be true or false, got "${raw}"`)
}

/** `1mb`, `512kb`, `1048576` → bytes. */
export function byteSize(env: Env, name: string, fallback: number, maxMib = 64): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = sizeInBytes(raw)
  if (value === undefined) throw new ConfigError(`${name} must be a size such as 1048576, 512kb or 1mb, got "${raw}"`)
  if (value < 1024 || value > maxMib * 1024 * 1024)
    throw new ConfigError(`${name} must be between 1kb and ${maxMib}mb, got "${raw}"`)
  return value
}

/** `1mb`, `512kb`, `1048576` → bytes; undefined for anything else. */
export function sizeInBytes(text: string): number | undefined {
  const match = /^(\d+)\s*(b|kb|kib|mb|mib)?$/i.exec(text.trim())
  if (!match) return undefined
  const unit = (match[2] ?? 'b').toLowerCase()
  return Number(match[1]) * (unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1024 * 1024 : 1)
}
