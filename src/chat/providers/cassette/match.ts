import { isObject } from '../provider'

/**
 * The request fields replay ignores unless told otherwise: `user` and `metadata` carry who asked and from which
 * session (Claude Code's `metadata.user_id` changes every run), not what was asked. Everything else counts,
 * `stream_options` included: the provider sets it the same way every time.
 */
export const DEFAULT_IGNORED = ['user', 'metadata']

/**
 * A request body as replay compares it: the `ignored` fields removed (a dotted path reaches inside objects:
 * `metadata.user_id`), keys sorted at every level, so that key order never matters.
 */
export function normalised(body: unknown, ignored: readonly string[]): unknown {
  const paths = ignored.map((path) => path.split('.'))
  return strip(body, paths)
}

function strip(value: unknown, paths: readonly string[][]): unknown {
  if (Array.isArray(value)) return value.map((item) => strip(item, []))
  if (!isObject(value)) return value
  const sorted: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) {
    if (paths.some((path) => path.length === 1 && path[0] === key)) continue
    const deeper = paths.filter((path) => path.length > 1 && path[0] === key).map((path) => path.slice(1))
    sorted[key] = strip(value[key], deeper)
  }
  return sorted
}

/** The text two normalised requests share exactly when they match. */
export const matchKey = (method: string, path: string, body: unknown) => `${method} ${path} ${JSON.stringify(body)}`

/** Where two normalised values differ, as `path: recorded …, got …`, at most `limit` of them (leaves first found). */
export function differences(recorded: unknown, got: unknown, limit = 3): string[] {
  const found: string[] = []
  walk(recorded, got, '', found, limit)
  return found
}

function walk(recorded: unknown, got: unknown, path: string, found: string[], limit: number): void {
  if (found.length >= limit) return
  if (Array.isArray(recorded) && Array.isArray(got)) {
    const length = Math.max(recorded.length, got.length)
    for (let i = 0; i < length; i++) walk(recorded[i], got[i], `${path}[${i}]`, found, limit)
    return
  }
  if (isObject(recorded) && isObject(got)) {
    const keys = [...new Set([...Object.keys(recorded), ...Object.keys(got)])].sort()
    for (const key of keys) walk(recorded[key], got[key], path === '' ? key : `${path}.${key}`, found, limit)
    return
  }
  if (JSON.stringify(recorded) === JSON.stringify(got)) return
  found.push(`${path || '(the body)'}: recorded ${shown(recorded)}, got ${shown(got)}`)
}

/** A value in a message: JSON, cut short. */
function shown(value: unknown): string {
  if (value === undefined) return 'nothing'
  const text = JSON.stringify(value)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

/** How many leaves differ (capped), for choosing the nearest recorded request. */
export const distance = (recorded: unknown, got: unknown) => differences(recorded, got, 1000).length
