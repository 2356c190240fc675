import type { TSchema } from '@sinclair/typebox'
import { closestMatch } from '../json/closest-match'
import { REQUIRED_UNLESS } from './chat'
import { type ConfigFile, describeValue } from './file'
import { settingPath } from './finding'

type Segment = string | number
type Schema = TSchema & Record<string, any>

/**
 * Checks a configuration file's settings against its schema (read as the JSON Schema it is) and reports every
 * problem where it is written: a wrong type, a number out of range, a value not among those allowed (with the
 * closest one suggested), a required setting missing, an unknown key (with the closest known key suggested).
 * `envOf` names the environment variable of a setting, for the hint when `${VAR}` was written where a number
 * or a boolean belongs.
 */
export function checkSettings(schema: TSchema, file: ConfigFile, envOf: (path: string) => string | undefined): void {
  walk(schema as Schema, file.value, [], file, envOf)
}

function walk(
  schema: Schema,
  value: unknown,
  path: Segment[],
  file: ConfigFile,
  envOf: (path: string) => string | undefined,
): void {
  if (file.unresolved(path)) return
  const label = settingPath(path) || 'the file'
  const shown = () => {
    const written = file.written(path)
    return written === undefined ? describeValue(value) : `the string ${JSON.stringify(written)}`
  }
  const mismatch = () => {
    let hint = ''
    if (typeof value === 'string' && file.written(path) !== undefined && schema.type !== 'string') {
      const variable = envOf(settingPath(path))
      hint = `; \${…} fills in text only: ${variable ? `set ${variable} in the environment instead` : 'write the value itself'}`
    }
    file.report(path, `${label}: expected ${describe(schema)}, got ${shown()}${hint}`)
  }
  if (Array.isArray(schema.anyOf)) {
    const branches = schema.anyOf as Schema[]
    if (branches.every((branch) => 'const' in branch)) {
      const allowed = branches.map((branch) => branch.const)
      if (allowed.includes(value)) return
      const names = allowed.map(String)
      const suggestion = typeof value === 'string' ? closestMatch(value, names) : undefined
      const given = typeof value === 'string' && file.written(path) === undefined ? JSON.stringify(value) : shown()
      file.report(path, `${label}: ${given} is not one of ${names.join(', ')}`, { suggestion })
      return
    }
    const branch = branches.find((candidate) => hasType(candidate, value))
    return branch ? walk(branch, value, path, file, envOf) : mismatch()
  }
  if ('const' in schema) {
    if (value !== schema.const) file.report(path, `${label}: must be ${JSON.stringify(schema.const)}, got ${shown()}`)
    return
  }
  if (!hasType(schema, value)) return mismatch()
  switch (schema.type) {
    case 'object':
      return object(schema, value as Record<string, unknown>, path, file, envOf)
    case 'array': {
      const items = value as unknown[]
      if (typeof schema.minItems === 'number' && items.length < schema.minItems)
        file.report(path, `${label}: needs at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'}`)
      if (schema.items) items.forEach((item, index) => walk(schema.items, item, [...path, index], file, envOf))
      return
    }
    case 'integer':
    case 'number': {
      const number = value as number
      const { minimum, maximum } = schema
      if ((minimum !== undefined && number < minimum) || (maximum !== undefined && number > maximum))
        file.report(path, `${label}: must be ${range(schema)}, got ${number}`)
      return
    }
    case 'string': {
      const text = value as string
      if (typeof schema.minLength === 'number' && text.length < schema.minLength)
        file.report(path, `${label}: must not be empty`)
      else if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(text))
        file.report(path, `${label}: expected ${describe(schema)}, got ${shown()}`)
      return
    }
  }
}

function object(
  schema: Schema,
  value: Record<string, unknown>,
  path: Segment[],
  file: ConfigFile,
  envOf: (path: string) => string | undefined,
): void {
  const label = settingPath(path) || 'the file'
  const properties = (schema.properties ?? {}) as Record<string, Schema>
  const unless = schema[REQUIRED_UNLESS] as { property: string; values: unknown[]; required: string[] } | undefined
  const required = [...((schema.required ?? []) as string[])]
  if (unless && !unless.values.includes(value[unless.property])) required.push(...unless.required)
  for (const key of required)
    if (!Object.hasOwn(value, key)) file.report(path, `${label}: ${key} is required`, { part: 'key' })
  const known = Object.keys(properties)
  const patterns = Object.entries((schema.patternProperties ?? {}) as Record<string, Schema>)
  for (const [key, item] of Object.entries(value)) {
    const child = [...path, key]
    const pattern = patterns.find(([expression]) => new RegExp(expression).test(key))
    if (Object.hasOwn(properties, key)) walk(properties[key]!, item, child, file, envOf)
    else if (pattern) walk(pattern[1], item, child, file, envOf)
    else if (typeof schema.additionalProperties === 'object')
      walk(schema.additionalProperties, item, child, file, envOf)
    else if (schema.additionalProperties === false) {
      const suggestion = closestMatch(key, known)
      const takes = suggestion === undefined ? `; ${label} takes ${known.join(', ')}` : ''
      file.report(child, `${settingPath(child)}: unknown setting${takes}`, { part: 'key', suggestion })
    }
  }
}

function hasType(schema: Schema, value: unknown): boolean {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Schema[]).some((branch) => hasType(branch, value))
  if ('const' in schema) return typeof value === typeof schema.const
  switch (schema.type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    case 'array':
      return Array.isArray(value)
    case 'integer':
      return Number.isInteger(value)
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
    case 'string':
      return typeof value === 'string'
    case 'boolean':
      return typeof value === 'boolean'
    default:
      return true
  }
}

/** What a schema accepts, in a few words: its title when it has one. */
function describe(schema: Schema): string {
  if (typeof schema.title === 'string') return schema.title
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Schema[]).map(describe).join(' or ')
  switch (schema.type) {
    case 'object':
      return 'a mapping'
    case 'array':
      return 'a list'
    case 'integer':
      return `a whole number ${range(schema)}`
    case 'number':
      return 'a number'
    case 'string':
      return 'text'
    case 'boolean':
      return 'true or false'
    default:
      return 'a value'
  }
}

function range(schema: Schema): string {
  const { minimum, maximum } = schema
  if (minimum !== undefined && maximum !== undefined) return `from ${minimum} to ${maximum}`
  if (minimum !== undefined) return `at least ${minimum}`
  return maximum !== undefined ? `at most ${maximum}` : 'of any size'
}
