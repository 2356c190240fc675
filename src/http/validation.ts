import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors'
import type { ValidationError } from 'elysia'

/** `/messages/1/tool_call_id` → `messages[1].tool_call_id` (the style OpenAI's `param` uses). */
export function fieldName(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part), '')
}

/**
 * Turns Elysia's validation failure into one specific sentence naming the field and the
 * rule, plus that field. Schemas may carry their own sentence in `error`; otherwise the
 * sentence is built from TypeBox's first complaint.
 */
export function describeValidation(error: ValidationError): { message: string; param: string } {
  const issues = (error.all ?? []) as ValueError[]
  const issue = issues.find((i) => i.path !== '') ?? issues[0]
  const where = error.type === 'body' ? 'request body' : error.type
  if (!issue) return { message: `${where} is invalid`, param: '' }
  const param = fieldName(issue.path)
  const custom = (issue.schema as { error?: unknown }).error
  if (issue.type === ValueErrorType.ObjectAdditionalProperties) {
    const allowed = Object.keys((issue.schema as { properties?: object }).properties ?? {})
    return { message: `unknown field "${param}"${allowed.length ? `; allowed fields: ${allowed.join(', ')}` : ''}`, param }
  }
  if (issue.type === ValueErrorType.ObjectRequiredProperty) return { message: `${param} is required`, param }
  if (typeof custom === 'string') return { message: custom, param }
  if (!param) return { message: `${where}: ${lowerFirst(issue.message)}`, param }
  return { message: `${param}: ${lowerFirst(issue.message)}${describeValue(issue.value)}`, param }
}

function describeValue(value: unknown): string {
  if (value === undefined) return ''
  const text = typeof value === 'bigint' ? value.toString() : JSON.stringify(value)
  return text && text.length <= 60 ? `, got ${text}` : ''
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1)
