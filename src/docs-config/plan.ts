import type { TSchema } from 'elysia'
import { resolveSchema } from './schema'

/**
 * The docs.json schema turned into plain objects of one shape, for walks that run on every validation.
 * Reading TypeBox schemas directly (many shapes, symbol keys, `$ref`s to resolve, WeakMap caches) cost
 * several times more per node than JSON.parse spends; a plan is built once per schema and shared.
 */
export interface Plan {
  kind: 'object' | 'array' | 'union' | 'leaf'
  schema: TSchema
  /** Objects: the known properties. */
  properties: Map<string, Plan>
  /** Arrays: the item plan. */
  items: Plan | undefined
  /** Unions: one plan per branch (an enum of literals is a leaf). */
  branches: Plan[]
  /** True when values of this schema can contain objects (so unknown keys), at any depth. */
  holdsObjects: boolean
}

const PLANS = new Map<TSchema, Plan>()

/** The plan of `schema`, built on first use. */
export function planOf(schema: TSchema): Plan {
  const resolved = resolveSchema(schema)
  const known = PLANS.get(resolved)
  if (known !== undefined) return known
  const plan: Plan = { kind: 'leaf', schema: resolved, properties: new Map(), items: undefined, branches: [], holdsObjects: false }
  // Registered before its children, so the recursive navigation group refers back to this same plan.
  PLANS.set(resolved, plan)
  const anyOf = resolved.anyOf as TSchema[] | undefined
  if (anyOf !== undefined && !anyOf.every((branch) => branch.const !== undefined)) {
    plan.kind = 'union'
    plan.branches = anyOf.map(planOf)
  } else if (resolved.type === 'object') {
    plan.kind = 'object'
    for (const [key, property] of Object.entries((resolved.properties ?? {}) as Record<string, TSchema>)) {
      plan.properties.set(key, planOf(property))
    }
  } else if (resolved.type === 'array' && resolved.items !== undefined) {
    plan.kind = 'array'
    plan.items = planOf(resolved.items)
  }
  plan.holdsObjects = holdsObjects(plan, new Set())
  return plan
}

function holdsObjects(plan: Plan, seen: Set<Plan>): boolean {
  if (plan.kind === 'object') return true
  if (seen.has(plan)) return false
  seen.add(plan)
  if (plan.kind === 'array') return plan.items !== undefined && holdsObjects(plan.items, seen)
  return plan.branches.some((branch) => holdsObjects(branch, seen))
}

/** True when `value` has the JSON type `schema` describes (object, array, string, …): how union branches are chosen. */
export function hasJsonType(schema: TSchema, value: unknown): boolean {
  switch (schema.type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    case 'array':
      return Array.isArray(value)
    default:
      return typeof value === schema.type
  }
}
