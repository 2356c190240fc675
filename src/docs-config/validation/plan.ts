import type { TSchema } from 'elysia'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import { closeObjects, copySchema, resolveSchema } from '../../docs-format/docs-json'

/**
 * The docs.json schema turned into plain objects of one shape, for the walks that run on every validation.
 * Reading TypeBox schemas directly (many shapes, symbol keys, `$ref`s to resolve, WeakMap caches) cost
 * several times more per node than JSON.parse spends; a plan is built once per schema and shared.
 */
export interface Plan {
  /** `enum` is a union of literals; `leaf` a string, boolean or number. */
  kind: 'object' | 'array' | 'union' | 'enum' | 'leaf'
  schema: TSchema
  /** Objects: the known properties, their names, the required ones, and whether others are errors. */
  properties: Map<string, Plan>
  keys: string[]
  /** The properties' plans in `keys` order, for loops that must not allocate. */
  propertyPlans: Plan[]
  required: string[]
  closed: boolean
  /** Arrays. */
  items: Plan | undefined
  minItems: number | undefined
  /** Unions: one plan per branch. Enums: the allowed values. */
  branches: Plan[]
  /** Unions: the branches {@link hasJsonType} chooses for an object and for an array, found once. */
  objectBranch: Plan | undefined
  arrayBranch: Plan | undefined
  literals: unknown[]
  /** Strings. */
  pattern: RegExp | undefined
  /** True when values of this schema can contain objects (so unknown keys), at any depth. */
  holdsObjects: boolean
  /** True when some property below this schema has a default to fill in. */
  holdsDefaults: boolean
  /**
   * Objects: the keys of the last object of this plan the key count met, as far as they are known, and
   * their plans (see key-count.ts).
   */
  recentKeys: string[]
  recentPlans: Plan[]
  /** This schema compiled on its own, on first use by {@link accepts}. */
  compiled: TypeCheck<TSchema> | undefined
  /** This schema with every object closed, compiled on first use by {@link hasOnlyKnownKeys}. */
  closedCompiled: TypeCheck<TSchema> | undefined
}

const PLANS = new Map<TSchema, Plan>()

/** The plan of `schema`, built on first use. */
export function planOf(schema: TSchema): Plan {
  const resolved = resolveSchema(schema)
  // Asked on every validation: kept apart from the building, so the optimising compiler has little to compile.
  return PLANS.get(resolved) ?? buildPlan(resolved)
}

function buildPlan(resolved: TSchema): Plan {
  const plan: Plan = {
    kind: 'leaf',
    schema: resolved,
    properties: new Map(),
    keys: [],
    propertyPlans: [],
    required: resolved.required ?? [],
    closed: resolved.additionalProperties === false,
    items: undefined,
    minItems: resolved.minItems,
    branches: [],
    objectBranch: undefined,
    arrayBranch: undefined,
    literals: [],
    pattern: typeof resolved.pattern === 'string' ? new RegExp(resolved.pattern) : undefined,
    holdsObjects: false,
    holdsDefaults: false,
    recentKeys: [],
    recentPlans: [],
    compiled: undefined,
    closedCompiled: undefined,
  }
  // Registered before its children, so the recursive navigation group refers back to this same plan.
  PLANS.set(resolved, plan)
  const anyOf = resolved.anyOf as TSchema[] | undefined
  if (anyOf !== undefined && anyOf.every((branch) => branch.const !== undefined)) {
    plan.kind = 'enum'
    plan.literals = anyOf.map((branch) => branch.const)
  } else if (anyOf !== undefined) {
    plan.kind = 'union'
    plan.branches = anyOf.map(planOf)
    plan.objectBranch = plan.branches.find((branch) => hasJsonType(branch.schema, {}))
    plan.arrayBranch = plan.branches.find((branch) => hasJsonType(branch.schema, []))
    // The key walk (key-count.ts) follows one branch per JSON type to find unknown keys; a union with two
    // object (or two array) branches would hide the second one's. No docs.json union has; fail loudly if one ever does.
    for (const sample of [{}, []]) {
      if (plan.branches.filter((branch) => hasJsonType(branch.schema, sample)).length > 1) {
        throw new Error(
          `docs.json schema: a union has two ${Array.isArray(sample) ? 'array' : 'object'} branches; the unknown-key walk cannot tell them apart`,
        )
      }
    }
  } else if (resolved.type === 'object' && resolved.patternProperties !== undefined) {
    // A record (seo.metatags, variables): any key is known; the compiled check looks at its values.
    plan.kind = 'leaf'
  } else if (resolved.type === 'object') {
    plan.kind = 'object'
    for (const [key, property] of Object.entries((resolved.properties ?? {}) as Record<string, TSchema>)) {
      plan.properties.set(key, planOf(property))
    }
    plan.keys = [...plan.properties.keys()]
    plan.propertyPlans = [...plan.properties.values()]
  } else if (resolved.type === 'array' && resolved.items !== undefined) {
    plan.kind = 'array'
    plan.items = planOf(resolved.items)
  }
  plan.holdsObjects = holds(plan, (candidate) => candidate.kind === 'object', new Set())
  plan.holdsDefaults = holds(
    plan,
    (candidate) => [...candidate.properties.values()].some((property) => property.schema.default !== undefined),
    new Set(),
  )
  return plan
}

/** Whether `test` holds for the plan or anything below it; recursion (nested groups) is visited once. */
function holds(plan: Plan, test: (plan: Plan) => boolean, seen: Set<Plan>): boolean {
  if (seen.has(plan)) return false
  seen.add(plan)
  if (test(plan)) return true
  const children = [...plan.properties.values(), ...plan.branches, ...(plan.items ? [plan.items] : [])]
  return children.some((child) => holds(child, test, seen))
}

/** True when `value` has the JSON type `schema` describes (object, array, string, …): how union branches are chosen. */
export function hasJsonType(schema: TSchema, value: unknown): boolean {
  switch (schema.type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    case 'array':
      return Array.isArray(value)
    case undefined:
      // An enum (a union of literals) has the JSON type of its values.
      return Array.isArray(schema.anyOf) ? schema.anyOf.some((branch: TSchema) => hasJsonType(branch, value)) : true
    default:
      return typeof value === schema.type
  }
}

/**
 * Whether the compiled schema accepts `value`. The explaining walk asks this of big subtrees (arrays of
 * objects, such as navigation) so that, when only one field elsewhere is wrong, it does not explain-walk
 * thousands of valid pages.
 */
export function accepts(plan: Plan, value: unknown): boolean {
  plan.compiled ??= TypeCompiler.Compile(inlineReferences(plan.schema))
  return plan.compiled.Check(value)
}

/**
 * Whether `value`, which the compiled schema accepts, has no property the schema does not name, at any
 * depth. One compiled check costs far less than walking the value to look for unknown keys.
 */
export function hasOnlyKnownKeys(plan: Plan, value: unknown): boolean {
  plan.closedCompiled ??= TypeCompiler.Compile(closeObjects(inlineReferences(plan.schema)))
  return plan.closedCompiled.Check(value)
}

/**
 * A part of the schema cut out on its own may point (`$ref`) at the recursive navigation group it sits in;
 * compiled alone, that reference would dangle, so it is replaced by the whole recursive schema.
 */
function inlineReferences(schema: TSchema): TSchema {
  return typeof schema.$ref === 'string' ? resolveSchema(schema) : copySchema(schema, inlineReferences)
}
