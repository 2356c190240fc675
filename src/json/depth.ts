import { MAX_DEPTH } from './grammar'

/**
 * The path (keys and array indexes, as strings) to a value nested more than {@link MAX_DEPTH}
 * levels deep in a parsed JSON value, or undefined when there is none. `JSON.parse` takes any
 * depth, but every later walk of a request (a prompt estimate, a translation, `JSON.stringify` of
 * the body sent upstream) recurses, and a body 100,000 levels deep overflowed the stack in them:
 * a 500 for a client's mistake. Its own recursion stops at the limit, and it allocates only on
 * failure.
 */
export function deepestPath(value: unknown, depth = 1): string[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  if (depth > MAX_DEPTH) return []
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const path = deepestPath(value[i], depth + 1)
      if (path) return [String(i), ...path]
    }
    return undefined
  }
  for (const key in value) {
    const path = deepestPath((value as Record<string, unknown>)[key], depth + 1)
    if (path) return [key, ...path]
  }
  return undefined
}
