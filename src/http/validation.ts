import type { TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors'
import type { ValidationError } from 'elysia'
import { describeValue, fieldName } from '../json/pointer'
import { HttpError } from './errors'
import { unstorable } from '../db/storable-text'

/**
 * Turns Elysia's validation failure (query, params) into one specific sentence naming the field
 * and the rule, plus that field. See {@link describeIssues}.
 */
export function describeValidation(error: ValidationError): { message: string; param: string } {
  return describeIssues((error.all ?? []) as ValueError[], error.type === 'body' ? 'request body' : error.type)
}

/**
 * One specific sentence for TypeBox's complaints about a value, naming the field and the rule.
 * Schemas may carry their own sentence in `error`; otherwise it is built from the first
 * complaint. Text that PostgreSQL cannot store (NUL, lone surrogates) is said so, whatever
 * rule caught it.
 */
function describeIssues(issues: ValueError[], where: string): { message: string; param: string } {
  const issue = issues.find((i) => i.path !== '') ?? issues[0]
  if (!issue) return { message: `${where} is invalid`, param: '' }
  const param = fieldName(issue.path)
  const custom = (issue.schema as { error?: unknown }).error
  if (issue.type === ValueErrorType.Union && typeof custom !== 'string') {
    const branches = (issue.errors ?? []).map((branch) => [...branch]).filter((branch) => branch.length > 0)
    const chosen = telling(branches, issue)
    if (chosen) return describeIssues(chosen, where)
    if (param && branches.length > 0 && branches.every((branch) => KIND_ERRORS.has(branch[0]!.type))) {
      const kinds = branches.map((branch) => lowerFirst(branch[0]!.message).replace(/^expected /, ''))
      return { message: `${param}: expected ${kinds.join(' or ')}${got(issue.value)}`, param }
    }
  }
  if (issue.type === ValueErrorType.ObjectAdditionalProperties) {
    const allowed = Object.keys((issue.schema as { properties?: object }).properties ?? {})
    return {
      message: `unknown field "${param}"${allowed.length ? `; allowed fields: ${allowed.join(', ')}` : ''}`,
      param,
    }
  }
  if (issue.type === ValueErrorType.ObjectRequiredProperty) return { message: `${param} is required`, param }
  const why = typeof issue.value === 'string' ? unstorable(issue.value) : undefined
  if (why) return { message: `${param || where} must not contain ${why}`, param }
  if (typeof custom === 'string') return { message: custom, param }
  // Only the lossless body parser makes bigints, for integers past 2^53; a field refusing one refuses its size.
  if (typeof issue.value === 'bigint')
    return { message: `${param || where} must be at most ${Number.MAX_SAFE_INTEGER}, got ${issue.value}`, param }
  if (!param) return { message: `${where}: ${lowerFirst(issue.message)}`, param }
  return { message: `${param}: ${lowerFirst(issue.message)}${got(issue.value)}`, param }
}

/** Errors that only say "not this kind of value". */
const KIND_ERRORS = new Set([
  ValueErrorType.Null,
  ValueErrorType.String,
  ValueErrorType.Number,
  ValueErrorType.Integer,
  ValueErrorType.Boolean,
  ValueErrorType.Object,
  ValueErrorType.Array,
])
const NUMERIC_KIND = new Set([ValueErrorType.Number, ValueErrorType.Integer])

/**
 * Of a union's branches (`T | null`, and Elysia's `string | integer` for numbers), the one whose
 * complaint says most about the value: one that got deeper into it, else one with a rule beyond
 * its kind (a minimum), else the numeric one for a number. Undefined when none stands out.
 */
function telling(branches: ValueError[][], issue: ValueError): ValueError[] | undefined {
  const deeper = branches
    .filter((branch) => branch[0]!.path.length > issue.path.length)
    .sort((a, b) => b[0]!.path.length - a[0]!.path.length)[0]
  if (deeper) return deeper
  const specific = branches.find((branch) => !KIND_ERRORS.has(branch[0]!.type))
  if (specific) return specific
  if (typeof issue.value === 'number' || typeof issue.value === 'bigint')
    return branches.find((branch) => NUMERIC_KIND.has(branch[0]!.type))
  return undefined
}

/**
 * A checker for a body schema, for parse hooks: the value when it validates, else a 400 naming
 * the field. Validating in the parse hook keeps Elysia's own ValidationError away from bodies
 * that hold a `bigint` (an int64 above 2^53): its constructor JSON-serialises the value, which
 * throws on a bigint and turned a client's mistake into a 500.
 */
export function bodyValidator<S extends TSchema>(schema: S): (value: unknown) => unknown {
  const check = TypeCompiler.Compile(schema)
  return (value) => {
    if (check.Check(value)) return value
    throw new HttpError(400, describeIssues([...check.Errors(value)], 'request body').message)
  }
}

/** `, got <the value>` for a message, or nothing when there is no value (a missing field). */
function got(value: unknown): string {
  return value === undefined ? '' : `, got ${describeValue(value)}`
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1)
