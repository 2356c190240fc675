import type { TSchema } from 'elysia'
import { isPlainObject } from './finding'
import { hasJsonType } from './plan'
import { resolveSchema as resolve } from './schema'

const HAS_DEFAULTS = new WeakMap<TSchema, boolean>()

/**
 * Fills in the schema's `default`s, in place, where a property is missing. Only the parts of the schema that
 * hold defaults are visited, so the (large) navigation tree costs nothing. Values of the wrong type are left
 * alone: the validator reports them.
 */
export function applyDefaults(schema: TSchema, value: unknown): void {
  const resolved = resolve(schema)
  if (!hasDefaults(resolved)) return
  if (resolved.anyOf) {
    for (const branch of resolved.anyOf as TSchema[]) {
      const candidate = resolve(branch)
      if (hasJsonType(candidate, value)) return applyDefaults(candidate, value)
    }
    return
  }
  if (resolved.type === 'array' && Array.isArray(value)) {
    for (const item of value) applyDefaults(resolved.items, item)
    return
  }
  if (resolved.type !== 'object' || !isPlainObject(value)) return
  const properties: Record<string, TSchema> = resolved.properties
  for (const key in properties) {
    const property = properties[key]
    if (value[key] === undefined) {
      if (property.default !== undefined) value[key] = copy(property.default)
    } else applyDefaults(property, value[key])
  }
}

function hasDefaults(schema: TSchema): boolean {
  const known = HAS_DEFAULTS.get(schema)
  if (known !== undefined) return known
  // Provisional answer, so a recursive schema terminates; recursion adds no defaults of its own.
  HAS_DEFAULTS.set(schema, false)
  const children: TSchema[] = [
    ...(schema.anyOf ?? []),
    ...(schema.items ? [schema.items] : []),
    ...Object.values((schema.properties ?? {}) as Record<string, TSchema>),
  ].map(resolve)
  const answer = children.some((child) => child.default !== undefined || hasDefaults(child))
  HAS_DEFAULTS.set(schema, answer)
  return answer
}

/** Defaults are small JSON values; each normalised config gets its own copy. */
function copy(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? JSON.parse(JSON.stringify(value)) : value
}
