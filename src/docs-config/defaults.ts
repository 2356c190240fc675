import type { TSchema } from 'elysia'
import { planOf, type Plan } from './validation/plan'

/**
 * Fills in the schema's `default`s, in place, where a property is missing. Only the parts of the schema that
 * hold defaults are visited, so the (large) navigation tree costs nothing. Values of the wrong type are left
 * alone: the validator reports them.
 *
 * A filler is compiled once per schema, as TypeBox compiles its checks: each property is then read by
 * name at a place of its own in the code. A walk reading the plan did the same work through one
 * lookup by a variable key for every property of every kind of object, and took four times as long
 * (0.45 µs against 0.12 µs for the typical docs.json; see BENCHMARKS.md, issue #17).
 */
export function applyDefaults(schema: TSchema, value: unknown): void {
  let filler = FILLERS.get(schema)
  if (filler === undefined) {
    filler = compileFiller(planOf(schema))
    FILLERS.set(schema, filler)
  }
  filler(value)
}

const FILLERS = new Map<TSchema, (value: unknown) => void>()

/**
 * One function per plan that holds defaults (recursive schemas call back into theirs), each doing what
 * its plan says: an object gets its missing defaults, in the schema's key order, and its present
 * properties that hold defaults are filled in turn; an array fills each item; a union fills the first
 * branch of the value's JSON type (see hasJsonType).
 */
function compileFiller(root: Plan): (value: unknown) => void {
  const names = new Map<Plan, string>()
  const functions: string[] = []
  const nameOf = (plan: Plan): string => {
    const known = names.get(plan)
    if (known !== undefined) return known
    const name = `fill${names.size}`
    names.set(plan, name)
    functions.push(`function ${name}(value) {\n${bodyOf(plan, nameOf)}\n}`)
    return name
  }
  if (!root.holdsDefaults) return () => {}
  const entry = nameOf(root)
  return new Function(`${functions.join('\n')}\nreturn ${entry}`)() as (value: unknown) => void
}

const IS_OBJECT = `typeof value === 'object' && value !== null && !Array.isArray(value)`

function bodyOf(plan: Plan, nameOf: (plan: Plan) => string): string {
  const lines: string[] = []
  if (plan.kind === 'union') {
    for (const branch of plan.branches) {
      const call = branch.holdsDefaults ? `${nameOf(branch)}(value); ` : ''
      lines.push(`  if (${jsonTypeTest(branch)}) { ${call}return }`)
    }
  } else if (plan.kind === 'array' && plan.items !== undefined) {
    if (plan.items.holdsDefaults)
      lines.push(`  if (Array.isArray(value)) for (const item of value) ${nameOf(plan.items)}(item)`)
  } else if (plan.kind === 'object') {
    lines.push(`  if (!(${IS_OBJECT})) return`, '  let present')
    plan.keys.forEach((key, index) => {
      const property = plan.propertyPlans[index]
      if (property.schema.default === undefined && !property.holdsDefaults) return
      const at = `value[${JSON.stringify(key)}]`
      lines.push(`  present = ${at}`)
      const fill = property.holdsDefaults ? `${nameOf(property)}(present)` : undefined
      if (property.schema.default === undefined) lines.push(`  if (present !== undefined) ${fill}`)
      else
        lines.push(
          `  if (present === undefined) ${at} = ${copyOf(property.schema.default)}${fill ? `\n  else ${fill}` : ''}`,
        )
    })
  }
  return lines.join('\n')
}

/** The test hasJsonType makes, written out for one plan. */
function jsonTypeTest(plan: Plan): string {
  const type: unknown = plan.schema.type
  switch (type) {
    case 'object':
      return IS_OBJECT
    case 'array':
      return 'Array.isArray(value)'
    case undefined:
      return 'true'
    default:
      return typeof type === 'string' ? `typeof value === ${JSON.stringify(type)}` : 'false'
  }
}

/** Defaults are small JSON values; an object default is parsed from its text, so each config gets its own copy. */
function copyOf(value: unknown): string {
  const json = JSON.stringify(value)
  return typeof value === 'object' && value !== null ? `JSON.parse(${JSON.stringify(json)})` : json
}
