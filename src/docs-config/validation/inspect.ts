import type { TSchema } from 'elysia'
import { escapePointerToken } from '../../json/pointer'
import { describeValue, fieldName, isPlainObject, quote } from '../../json/pointer'
import type { Finding } from './finding'
import { resolveSchema as resolve } from '../../docs-format/docs-json'
import { accepts, hasJsonType, hasOnlyKnownKeys, planOf, type Plan } from './plan'
import { closestMatch } from '../../json/closest-match'

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
 * properties (warnings, or errors where the schema closes the object) with a suggestion. Arrays of objects
 * that the compiled schema accepts as a whole (a long navigation) are only searched for unknown keys.
 *
 * Unions in the docs.json schema differ by JSON type (a string or an object, a string or an array), so the
 * branch is chosen by type; a value of no branch's type gets one line naming every branch.
 */
export function inspect(schema: TSchema, value: unknown, findings: Finding[]): void {
  walk(planOf(schema), value, '', findings)
}

/**
 * Only the unknown-property findings, for a value the compiled schema has already accepted: leaves are
 * never visited, only the objects and arrays that can hold objects, which keeps the common "valid but with
 * vendor extras" case cheap.
 */
export function findUnknownProperties(schema: TSchema, value: unknown, findings: Finding[]): void {
  unknowns(planOf(schema), value, '', [], findings)
}

/**
 * `path` holds the keys and indices below `base`; a pointer is only built for a finding, as most objects
 * visited have no unknown key.
 */
function unknowns(plan: Plan, value: unknown, base: string, path: (string | number)[], findings: Finding[]): void {
  if (plan.kind === 'union') {
    for (const branch of plan.branches)
      if (hasJsonType(branch.schema, value)) return unknowns(branch, value, base, path, findings)
  } else if (plan.kind === 'array') {
    if (!Array.isArray(value) || plan.items === undefined || !plan.items.holdsObjects) return
    for (let index = 0; index < value.length; index++) {
      if (findings.length >= FINDING_LIMIT) return
      const item = value[index]
      // Pages are mostly strings; only objects can hold unknown keys.
      if (typeof item !== 'object' || item === null) continue
      path.push(index)
      unknowns(plan.items, item, base, path, findings)
      path.pop()
    }
  } else if (plan.kind === 'object' && isPlainObject(value)) {
    for (const key in value) {
      if (findings.length >= FINDING_LIMIT) return
      const property = plan.properties.get(key)
      if (property === undefined) findings.push(unknownProperty(plan, key, pointerOf(base, path)))
      // At the top, a compiled check clears an array of objects (the navigation above all) at once; it is
      // not repeated deeper, where it would check again what the walk is about to visit anyway. Single
      // objects hold a handful of keys, which the walk reads for less than the check costs.
      else if (
        property.holdsObjects &&
        (path.length > 0 || property.kind !== 'array' || !hasOnlyKnownKeys(property, value[key]))
      ) {
        path.push(key)
        unknowns(property, value[key], base, path, findings)
        path.pop()
      }
    }
  }
}

function pointerOf(base: string, path: (string | number)[]): string {
  let pointer = base
  for (const token of path) pointer += `/${typeof token === 'number' ? token : escapePointerToken(token)}`
  return pointer
}

function walk(plan: Plan, value: unknown, pointer: string, findings: Finding[]): void {
  switch (plan.kind) {
    case 'object':
      return object(plan, value, pointer, findings)
    case 'array':
      return array(plan, value, pointer, findings)
    case 'union':
      return union(plan, value, pointer, findings)
    case 'enum':
      if (!plan.literals.includes(value)) findings.push(notAllowed(plan, value, pointer))
      return
    case 'leaf':
      if (!hasJsonType(plan.schema, value)) return mismatch(plan.schema, value, pointer, findings)
      if (plan.pattern !== undefined && typeof value === 'string' && !plan.pattern.test(value)) {
        const rule = plan.schema.patternErrorMessage ?? `does not match the pattern ${plan.schema.pattern}`
        findings.push(
          valueError(pointer, `${fieldName(pointer, 'docs.json')}: ${quote(value)} is ${rule}`, plan.schema, value),
        )
      }
  }
}

function object(plan: Plan, value: unknown, pointer: string, findings: Finding[]): void {
  if (!isPlainObject(value)) return mismatch(plan.schema, value, pointer, findings)
  const required = plan.required
  for (const key of required) {
    if (value[key] !== undefined) continue
    const path = `${pointer}/${escapePointerToken(key)}`
    const rule = required.length > 1 ? `; ${fieldName(pointer, 'docs.json')} needs ${required.join(' and ')}` : ''
    const property = plan.properties.get(key)
    findings.push({
      severity: 'error',
      path,
      at: pointer,
      part: 'value',
      message: `${fieldName(path, 'docs.json')} is required${rule}`,
      ...(property !== undefined ? { expected: describeSchema(property.schema) } : {}),
    })
  }
  for (let index = 0; index < plan.keys.length; index++) {
    const key = plan.keys[index]
    const child = value[key]
    if (child !== undefined) walk(plan.propertyPlans[index], child, `${pointer}/${escapePointerToken(key)}`, findings)
  }
  for (const key in value) {
    if (findings.length >= FINDING_LIMIT) return
    if (!plan.properties.has(key)) findings.push(unknownProperty(plan, key, pointer))
  }
}

function unknownProperty(plan: Plan, key: string, pointer: string): Finding {
  const known = plan.keys
  const alias = Object.hasOwn(KEY_ALIASES, key) ? KEY_ALIASES[key] : undefined
  const suggestion = alias !== undefined && known.includes(alias) ? alias : closestMatch(key, known)
  const path = `${pointer}/${escapePointerToken(key)}`
  // Built field by field rather than with spreads: a file can carry many vendor extras.
  const finding: Finding = {
    severity: plan.closed ? 'error' : 'warning',
    path,
    at: path,
    part: 'key',
    message: plan.closed
      ? `${fieldName(path, 'docs.json')}: ${quote(key)} is not an allowed key of ${fieldName(pointer, 'docs.json')}; use one of ${known.join(', ')}`
      : `${fieldName(path, 'docs.json')}: unknown property; it is kept but not checked`,
  }
  if (plan.closed) {
    finding.expected = `one of ${known.join(', ')}`
    finding.received = quote(key)
  }
  if (suggestion !== undefined) finding.suggestion = suggestion
  return finding
}

function array(plan: Plan, value: unknown, pointer: string, findings: Finding[]): void {
  if (!Array.isArray(value)) return mismatch(plan.schema, value, pointer, findings)
  if (plan.holdsObjects && accepts(plan, value)) {
    if (!hasOnlyKnownKeys(plan, value)) unknowns(plan, value, pointer, [], findings)
    return
  }
  const minimum = plan.minItems
  if (minimum !== undefined && value.length < minimum) {
    const needs = `it needs at least ${minimum} item${minimum === 1 ? '' : 's'}`
    const rule = value.length === 0 ? `is empty; ${needs}` : `has only ${value.length}; ${needs}`
    findings.push(valueError(pointer, `${fieldName(pointer, 'docs.json')} ${rule}`, plan.schema, value))
  }
  const items = plan.items
  if (items === undefined) return
  for (let index = 0; index < value.length && findings.length < FINDING_LIMIT; index++) {
    walk(items, value[index], `${pointer}/${index}`, findings)
  }
}

function notAllowed(plan: Plan, value: unknown, pointer: string): Finding {
  const names = plan.literals.map(String)
  const suggestion = typeof value === 'string' ? closestMatch(value, names) : undefined
  const shown = typeof value === 'string' ? quote(value) : describeValue(value)
  return {
    ...valueError(
      pointer,
      `${fieldName(pointer, 'docs.json')}: ${shown} is not allowed; use one of ${names.join(', ')}`,
      plan.schema,
      value,
    ),
    ...(suggestion !== undefined ? { suggestion } : {}),
  }
}

function union(plan: Plan, value: unknown, pointer: string, findings: Finding[]): void {
  let branch: Plan | undefined
  for (const candidate of plan.branches) {
    if (hasJsonType(candidate.schema, value)) {
      branch = candidate
      break
    }
  }
  if (branch === undefined) return mismatch(plan.schema, value, pointer, findings)
  const before = findings.length
  walk(branch, value, pointer, findings)
  for (let index = before; index < findings.length; index++) {
    const finding = findings[index]
    if (finding.severity !== 'error' || finding.path !== pointer) continue
    const others = plan.branches
      .filter((candidate) => candidate !== branch)
      .map((other) => describeSchema(other.schema))
    finding.message += ` (or use ${others.join(' or ')})`
    finding.expected = describeSchema(plan.schema)
  }
}

function mismatch(schema: TSchema, value: unknown, pointer: string, findings: Finding[]): void {
  const expected = describeSchema(schema)
  findings.push(
    valueError(
      pointer,
      `${fieldName(pointer, 'docs.json')}: expected ${expected}, received ${describeValue(value)}`,
      schema,
      value,
    ),
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
function describeSchema(schema: TSchema): string {
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
