import type { TSchema } from 'elysia'
import { escapePointerToken } from './json-source'
import { describeValue, fieldName, isPlainObject, quote, type Finding } from './finding'
import { resolveSchema as resolve } from './schema'
import { hasJsonType, planOf, type Plan } from './plan'
import { closestMatch } from './suggest'

/**
 * The walks stop collecting once this many findings exist. A 1 MiB body can hold half a million wrong
 * values; listing them all took seconds and a response of over 100 MB, and nobody reads past the first few.
 */
export const FINDING_LIMIT = 1000

/** Keys people commonly use for a key the schema names differently; suggested before edit distance. */
const KEY_ALIASES: Readonly<Record<string, string>> = { twitter: 'x' }

/**
 * Walks a parsed value alongside the TypeBox schema (read as the JSON Schema it is) and, in one pass,
 * reports every type, enum, pattern, required and size problem with a readable message; reports unknown
 * properties (warnings, or errors where the schema closes the object) with a suggestion.
 *
 * Unions in the docs.json schema differ by JSON type (a string or an object, a string or an array), so the
 * branch is chosen by type; a value of no branch's type gets one line naming every branch.
 */
export function inspect(schema: TSchema, value: unknown, findings: Finding[]): void {
  walk(schema, value, '', findings)
}

/**
 * Only the unknown-property findings, for a value the compiled schema has already accepted: leaves are
 * never visited, only the objects and arrays that can hold objects, which keeps the common "valid but with
 * vendor extras" case cheap.
 */
export function findUnknownProperties(schema: TSchema, value: unknown, findings: Finding[]): void {
  unknowns(planOf(schema), value, '', findings)
}

function unknowns(plan: Plan, value: unknown, pointer: string, findings: Finding[]): void {
  if (plan.kind === 'union') {
    for (const branch of plan.branches) if (hasJsonType(branch.schema, value)) return unknowns(branch, value, pointer, findings)
  } else if (plan.kind === 'array') {
    if (!Array.isArray(value) || plan.items === undefined || !plan.items.holdsObjects) return
    for (let index = 0; index < value.length; index++) {
      const item = value[index]
      // Pages are mostly strings; only objects can hold unknown keys.
      if (findings.length >= FINDING_LIMIT) return
      if (typeof item === 'object' && item !== null) unknowns(plan.items, item, `${pointer}/${index}`, findings)
    }
  } else if (plan.kind === 'object' && isPlainObject(value)) {
    for (const key in value) {
      if (findings.length >= FINDING_LIMIT) return
      const property = plan.properties.get(key)
      if (property === undefined) findings.push(unknownProperty(plan.schema, key, pointer))
      else if (property.holdsObjects) unknowns(property, value[key], `${pointer}/${escapePointerToken(key)}`, findings)
    }
  }
}

function walk(schema: TSchema, value: unknown, pointer: string, findings: Finding[]): void {
  const resolved = resolve(schema)
  if (resolved.anyOf) return union(resolved, value, pointer, findings)
  switch (resolved.type) {
    case 'object':
      return object(resolved, value, pointer, findings)
    case 'array':
      return array(resolved, value, pointer, findings)
    case 'string':
      if (typeof value !== 'string') return mismatch(resolved, value, pointer, findings)
      if (resolved.pattern !== undefined && !patternOf(resolved).test(value)) {
        const rule = resolved.patternErrorMessage ?? `does not match the pattern ${resolved.pattern}`
        findings.push(valueError(pointer, `${fieldName(pointer)}: ${quote(value)} is ${rule}`, resolved, value))
      }
      return
    case 'boolean':
      if (typeof value !== 'boolean') mismatch(resolved, value, pointer, findings)
      return
    case 'number':
      if (typeof value !== 'number') mismatch(resolved, value, pointer, findings)
      return
  }
}

function object(schema: TSchema, value: unknown, pointer: string, findings: Finding[]): void {
  if (!isPlainObject(value)) return mismatch(schema, value, pointer, findings)
  const properties: Record<string, TSchema> = schema.properties ?? {}
  const required: string[] = schema.required ?? []
  for (const key of required) {
    if (value[key] !== undefined) continue
    const path = `${pointer}/${escapePointerToken(key)}`
    const rule = required.length > 1 ? `; ${fieldName(pointer)} needs ${required.join(' and ')}` : ''
    findings.push({
      severity: 'error',
      path,
      at: pointer,
      part: 'value',
      message: `${fieldName(path)} is required${rule}`,
      expected: describeSchema(properties[key]),
    })
  }
  for (const key in properties) {
    const child = value[key]
    if (child !== undefined) walk(properties[key], child, `${pointer}/${escapePointerToken(key)}`, findings)
  }
  for (const key in value) {
    if (findings.length >= FINDING_LIMIT) return
    if (!Object.hasOwn(properties, key)) findings.push(unknownProperty(schema, key, pointer))
  }
}

const KNOWN_KEYS = new WeakMap<TSchema, string[]>()

function unknownProperty(schema: TSchema, key: string, pointer: string): Finding {
  let known = KNOWN_KEYS.get(schema)
  if (known === undefined) KNOWN_KEYS.set(schema, (known = Object.keys(schema.properties ?? {})))
  const alias = KEY_ALIASES[key]
  const suggestion = alias !== undefined && known.includes(alias) ? alias : closestMatch(key, known)
  const path = `${pointer}/${escapePointerToken(key)}`
  const closed = schema.additionalProperties === false
  return {
    severity: closed ? 'error' : 'warning',
    path,
    at: path,
    part: 'key',
    message: closed
      ? `${fieldName(path)}: ${quote(key)} is not an allowed key of ${fieldName(pointer)}; use one of ${known.join(', ')}`
      : `${fieldName(path)}: unknown property; it is kept but not checked`,
    ...(closed ? { expected: `one of ${known.join(', ')}`, received: quote(key) } : {}),
    ...(suggestion !== undefined ? { suggestion } : {}),
  }
}

function array(schema: TSchema, value: unknown, pointer: string, findings: Finding[]): void {
  if (!Array.isArray(value)) return mismatch(schema, value, pointer, findings)
  const minimum: number | undefined = schema.minItems
  if (minimum !== undefined && value.length < minimum) {
    findings.push(
      valueError(pointer, `${fieldName(pointer)} is empty; it needs at least ${minimum} item${minimum === 1 ? '' : 's'}`, schema, value),
    )
  }
  if (schema.items === undefined) return
  for (let index = 0; index < value.length && findings.length < FINDING_LIMIT; index++) {
    walk(schema.items, value[index], `${pointer}/${index}`, findings)
  }
}

/** What a union needs at validation time, worked out once per schema. */
type UnionShape = { branches: TSchema[]; literals: unknown[] | undefined }
const UNION_SHAPES = new WeakMap<TSchema, UnionShape>()

function unionShape(schema: TSchema): UnionShape {
  let shape = UNION_SHAPES.get(schema)
  if (shape === undefined) {
    const branches: TSchema[] = schema.anyOf.map(resolve)
    const literals = branches.every((branch) => branch.const !== undefined) ? branches.map((branch) => branch.const) : undefined
    shape = { branches, literals }
    UNION_SHAPES.set(schema, shape)
  }
  return shape
}

function union(schema: TSchema, value: unknown, pointer: string, findings: Finding[]): void {
  const { branches, literals } = unionShape(schema)
  if (literals !== undefined) {
    if (literals.includes(value)) return
    const names = literals.map(String)
    const suggestion = typeof value === 'string' ? closestMatch(value, names) : undefined
    const shown = typeof value === 'string' ? quote(value) : describeValue(value)
    findings.push({
      ...valueError(pointer, `${fieldName(pointer)}: ${shown} is not allowed; use one of ${names.join(', ')}`, schema, value),
      ...(suggestion !== undefined ? { suggestion } : {}),
    })
    return
  }
  let branch: TSchema | undefined
  for (const candidate of branches) {
    if (hasJsonType(candidate, value)) {
      branch = candidate
      break
    }
  }
  if (branch === undefined) return mismatch(schema, value, pointer, findings)
  const before = findings.length
  walk(branch, value, pointer, findings)
  for (let index = before; index < findings.length; index++) {
    const finding = findings[index]
    if (finding.severity !== 'error' || finding.path !== pointer) continue
    const others = branches.filter((candidate) => candidate !== branch).map(describeSchema)
    finding.message += ` (or use ${others.join(' or ')})`
    finding.expected = describeSchema(schema)
  }
}

function mismatch(schema: TSchema, value: unknown, pointer: string, findings: Finding[]): void {
  const expected = describeSchema(schema)
  findings.push(
    valueError(pointer, `${fieldName(pointer)}: expected ${expected}, received ${describeValue(value)}`, schema, value),
  )
}

function valueError(pointer: string, message: string, schema: TSchema, value: unknown): Finding {
  return {
    severity: 'error',
    path: pointer,
    at: pointer,
    part: 'value',
    message,
    expected: describeSchema(schema),
    received: typeof value === 'string' ? quote(value) : describeValue(value),
  }
}

/** What a schema accepts, in a few words: its title when it has one. */
export function describeSchema(schema: TSchema): string {
  const resolved = resolve(schema)
  if (typeof resolved.title === 'string') return resolved.title
  if (resolved.anyOf) {
    const branches: TSchema[] = resolved.anyOf.map(resolve)
    if (branches.every((branch) => branch.const !== undefined)) {
      return `one of ${branches.map((branch) => String(branch.const)).join(', ')}`
    }
    return branches.map(describeSchema).join(' or ')
  }
  switch (resolved.type) {
    case 'object':
      return 'an object'
    case 'array':
      return resolved.items ? `an array (each item ${describeSchema(resolved.items)})` : 'an array'
    case 'boolean':
      return 'true or false'
    case 'number':
      return 'a number'
    case 'string':
      return 'a string'
    default:
      return 'a value'
  }
}

const PATTERNS = new WeakMap<TSchema, RegExp>()

function patternOf(schema: TSchema): RegExp {
  let pattern = PATTERNS.get(schema)
  if (pattern === undefined) {
    pattern = new RegExp(schema.pattern as string)
    PATTERNS.set(schema, pattern)
  }
  return pattern
}
