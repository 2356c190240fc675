import type { TSchema } from 'elysia'
import { isPlainObject } from '../json/pointer'
import { hasJsonType, planOf, type Plan } from './validation/plan'

/**
 * Fills in the schema's `default`s, in place, where a property is missing. Only the parts of the schema that
 * hold defaults are visited, so the (large) navigation tree costs nothing. Values of the wrong type are left
 * alone: the validator reports them.
 */
export function applyDefaults(schema: TSchema, value: unknown): void {
  fill(planOf(schema), value)
}

function fill(plan: Plan, value: unknown): void {
  if (!plan.holdsDefaults) return
  if (plan.kind === 'union') {
    for (const branch of plan.branches) if (hasJsonType(branch.schema, value)) return fill(branch, value)
  } else if (plan.kind === 'array' && Array.isArray(value) && plan.items !== undefined) {
    for (const item of value) fill(plan.items, item)
  } else if (plan.kind === 'object' && isPlainObject(value)) {
    // Only the properties that have or hold a default: most of an object's keys have neither.
    plan.defaultIndices ??= plan.propertyPlans.flatMap((property, index) =>
      property.schema.default !== undefined || property.holdsDefaults ? [index] : [],
    )
    for (const index of plan.defaultIndices) {
      const key = plan.keys[index]
      const property = plan.propertyPlans[index]
      if (value[key] === undefined) {
        if (property.schema.default !== undefined) value[key] = copy(property.schema.default)
      } else fill(property, value[key])
    }
  }
}

/** Defaults are small JSON values; each normalised config gets its own copy. */
function copy(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? JSON.parse(JSON.stringify(value)) : value
}
