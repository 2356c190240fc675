import type { TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors'
import type { ValidationError } from 'elysia'
import { HttpError } from './errors'
import { unstorable } from './text'

/** `/messages/1/tool_call_id` → `messages[1].tool_call_id` (the style OpenAI's `param` uses). */
export function fieldName(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part), '')
}

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
export function describeIssues(issues: ValueError[], where: string): { message: string; param: string } {
  const issue = issues.find((i) => i.path !== '') ?? issues[0]
  if (!issue) return { message: `${where} is invalid`, param: '' }
  const param = fieldName(issue.path)
  const custom = (issue.schema as { error?: unknown }).error
  if (issue.type === ValueErrorType.ObjectAdditionalProperties) {
    const allowed = Object.keys((issue.schema as { properties?: object }).properties ?? {})
    return { message: `unknown field "${param}"${allowed.length ? `; allowed fields: ${allowed.join(', ')}` : ''}`, param }
  }
  if (issue.type === ValueErrorType.ObjectRequiredProperty) return { message: `${param} is required`, param }
  const why = typeof issue.value === 'string' ? unstorable(issue.value) : undefined
  if (why) return { message: `${param || where} must not contain ${why}`, param }
  if (typeof custom === 'string') return { message: custom, param }
  if (!param) return { message: `${where}: ${lowerFirst(issue.message)}`, param }
  return { message: `${param}: ${lowerFirst(issue.message)}${describeValue(issue.value)}`, param }
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

function describeValue(value: unknown): string {
  if (value === undefined) return ''
  const text = typeof value === 'bigint' ? value.toString() : JSON.stringify(value)
  return text && text.length <= 60 ? `, got ${text}` : ''
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1)
