import type { TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors'
import { fieldName } from '../json/pointer'
import { deepestPath } from '../json/depth'
import { MAX_DEPTH } from '../json/grammar'
import { ChatCompletionRequest } from './model'
import { OpenAIError } from '../http/openai-errors'

const requestCheck = TypeCompiler.Compile(ChatCompletionRequest)

/**
 * Parses and validates a `POST /chat/completions` body. Throws a 400 `OpenAIError` naming
 * the first offending field in OpenAI's `param` style (`messages[1].tool_call_id`).
 * Fields the schema does not list are kept, so they reach the upstream untouched.
 */
export function parseChatRequest(text: string): ChatCompletionRequest {
  const body = parseOpenAIBody(text)
  // Check first: walking Errors() on a valid body costs far more than the compiled check.
  if (!requestCheck.Check(body)) throw describeIssue(requestCheck.Errors(body).First()!)
  const request = body as ChatCompletionRequest
  checkRules(request)
  return request
}

/**
 * The JSON object of a body on an OpenAI route, nesting at most {@link MAX_DEPTH} levels; a 400 in
 * OpenAI's words for anything else.
 */
export function parseOpenAIBody(text: string): Record<string, unknown> {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw badRequest(
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP " +
        'library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)',
      null,
    )
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('The request body must be a JSON object.', null)
  }
  // JSON.parse takes any depth, but the prompt estimate and the body sent upstream recurse.
  const deep = deepestPath(body)
  if (deep) {
    const param = fieldName(
      `/${deep
        .slice(0, 5)
        .map((key) => key.slice(0, 64).replace(/~/g, '~0').replace(/\//g, '~1'))
        .join('/')}`,
    )
    throw badRequest(
      `Invalid '${param}': objects and arrays may nest at most ${MAX_DEPTH} levels deep.`,
      param,
      'invalid_value',
    )
  }
  return body as Record<string, unknown>
}

function badRequest(message: string, param: string | null, code: string | null = null): OpenAIError {
  return new OpenAIError({ status: 400, message, param, code })
}

/** Rules that span fields or depend on a message's role, which the schema cannot say precisely. */
function checkRules(request: ChatCompletionRequest): void {
  request.messages.forEach((message, i) => {
    const at = `messages[${i}]`
    if (message.role === 'tool' && message.tool_call_id === undefined) {
      throw badRequest(
        `Missing required parameter: '${at}.tool_call_id'.`,
        `${at}.tool_call_id`,
        'missing_required_parameter',
      )
    }
    const hasContent = message.content !== undefined && message.content !== null
    if (message.role === 'assistant' && !hasContent && !message.tool_calls?.length) {
      throw badRequest(`Invalid '${at}': an assistant message needs 'content' or 'tool_calls'.`, `${at}.content`)
    }
    if (message.role !== 'assistant' && !hasContent) {
      throw badRequest(`Missing required parameter: '${at}.content'.`, `${at}.content`, 'missing_required_parameter')
    }
  })
  if (request.top_logprobs !== undefined && request.top_logprobs !== null && request.logprobs !== true) {
    throw badRequest(
      "Invalid 'top_logprobs': 'logprobs' must be set to true when 'top_logprobs' is used.",
      'top_logprobs',
    )
  }
  const choice = request.tool_choice
  const toolNames = (request.tools ?? []).map((tool) => tool.function.name)
  if ((choice === 'required' || typeof choice === 'object') && toolNames.length === 0) {
    throw badRequest(
      "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      'tool_choice',
    )
  }
  if (typeof choice === 'object' && !toolNames.includes(choice.function.name)) {
    throw badRequest(
      `Invalid value for 'tool_choice': no function named '${choice.function.name}' in 'tools'.`,
      'tool_choice.function.name',
    )
  }
  if (request.response_format?.type === 'json_schema' && request.response_format.json_schema === undefined) {
    throw badRequest(
      "Missing required parameter: 'response_format.json_schema'.",
      'response_format.json_schema',
      'missing_required_parameter',
    )
  }
}

/**
 * One sentence for TypeBox's first complaint. A union (every nullable field is one) is
 * explained through the branch that matches the value's JSON type, so `temperature: 3`
 * reads "expected a value <= 2" rather than "expected union value". `prefix` is the JSON
 * Pointer of the value that was checked, when it is a part of the body (`/input/3`).
 */
export function describeIssue(issue: ValueError, prefix = ''): OpenAIError {
  const param = fieldName(prefix + issue.path)
  // JSON.parse reads 1e999 as Infinity, which no number field takes: say so rather than "expected a number, but got a
  // number".
  if (typeof issue.value === 'number' && !Number.isFinite(issue.value)) {
    return badRequest(
      `Invalid value for '${param}': the number is too large to be represented.`,
      param,
      'invalid_value',
    )
  }
  if (issue.type === ValueErrorType.ObjectRequiredProperty) {
    return badRequest(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter')
  }
  if (issue.type === ValueErrorType.Union) {
    const branches = (issue.schema.anyOf ?? []) as TSchema[]
    const matching = branches.findIndex((branch) => accepts(branch, issue.value))
    const nested = matching >= 0 ? issue.errors[matching]?.First() : undefined
    if (nested) return describeIssue(nested, prefix)
    const values = branches.filter((branch) => 'const' in branch && typeof branch.const === typeof issue.value)
    if (values.length) {
      const others = branches.filter((branch) => !('const' in branch)).map(typeName)
      const allowed = [...values.map((branch) => `'${branch.const}'`), ...others].join(', ')
      return badRequest(
        `Invalid value for '${param}': ${shown(issue.value)}. Supported values are: ${allowed}.`,
        param,
        'invalid_value',
      )
    }
    const expected = branches.map(typeName).join(' or ')
    return badRequest(
      `Invalid type for '${param}': expected ${expected}, but got ${jsonType(issue.value)} instead.`,
      param,
      'invalid_type',
    )
  }
  if (issue.type === ValueErrorType.Literal) {
    return badRequest(
      `Invalid value for '${param}': ${shown(issue.value)}. Supported values are: '${issue.schema.const}'.`,
      param,
      'invalid_value',
    )
  }
  if (issue.type === ValueErrorType.ArrayMaxItems || issue.type === ValueErrorType.ArrayMinItems) {
    const most = issue.type === ValueErrorType.ArrayMaxItems
    const bound = most ? issue.schema.maxItems : issue.schema.minItems
    const count = Array.isArray(issue.value) ? issue.value.length : 0
    return badRequest(
      `Invalid '${param}': expected an array with at ${most ? 'most' : 'least'} ${bound} item${bound === 1 ? '' : 's'}, but got ${count}.`,
      param,
      most ? 'array_above_max_length' : 'empty_array',
    )
  }
  if (issue.type === ValueErrorType.ObjectMaxProperties) {
    const bound = issue.schema.maxProperties as number
    const count = typeof issue.value === 'object' && issue.value !== null ? Object.keys(issue.value).length : 0
    return badRequest(
      `Invalid '${param}': too many keys. Expected at most ${bound}, but got ${count}.`,
      param,
      'object_above_max_size',
    )
  }
  if (TYPE_ERRORS.has(issue.type)) {
    return badRequest(
      `Invalid type for '${param}': expected ${typeName(issue.schema)}, but got ${jsonType(issue.value)} instead.`,
      param,
      'invalid_type',
    )
  }
  const where = param ? `'${param}'` : 'request body'
  return badRequest(
    `Invalid ${where}: ${lowerFirst(issue.message)}, but got ${shown(issue.value)}.`,
    param || null,
    'invalid_value',
  )
}

const TYPE_ERRORS = new Set<ValueErrorType>([
  ValueErrorType.Array,
  ValueErrorType.Boolean,
  ValueErrorType.Integer,
  ValueErrorType.Null,
  ValueErrorType.Number,
  ValueErrorType.Object,
  ValueErrorType.String,
])

/** Whether a union branch is meant for values of this JSON type (the branch may still reject the value). */
function accepts(schema: TSchema, value: unknown): boolean {
  if ('const' in schema) return schema.const === value
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as TSchema[]).some((branch) => accepts(branch, value))
  const type = jsonType(value)
  if (schema.type === 'integer') return type === 'a number'
  return typeName(schema) === type
}

function typeName(schema: TSchema): string {
  if ('const' in schema) return `'${schema.const}'`
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as TSchema[]).map(typeName).join(' or ')
  switch (schema.type) {
    case 'integer':
      return 'an integer'
    case 'array':
      return 'an array'
    case 'object':
      return 'an object'
    case 'null':
      return 'null'
    default:
      return `a ${schema.type}`
  }
}

function jsonType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object'
  return `a ${typeof value}`
}

function shown(value: unknown): string {
  const text = JSON.stringify(value)
  return text === undefined ? 'nothing' : text.length > 60 ? `${text.slice(0, 57)}...` : text
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1)
