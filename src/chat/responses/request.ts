import type { TSchema } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import { OpenAIError } from '../../http/openai-errors'
import { parseJsonLossless } from '../../json/lossless'
import { fieldName } from '../../json/pointer'
import { describeIssue } from '../request'
import {
  ITEMS,
  MAX_METADATA_KEY,
  PARTS,
  ResponsesRequest,
  TOOLS,
  type InputItem,
  type NamespaceTool,
  type ToolChoice,
} from './model'

/*
 * Parsing and validating `POST /v1/responses` bodies: a 400 in OpenAI's shape naming the first
 * offending field as OpenAI's `param` does (`input[2].content[0].text`). Whether a valid request
 * can be served by a translated model is decided later (translate.ts); this is what every model
 * needs, the native relay included.
 */

const requestCheck = TypeCompiler.Compile(ResponsesRequest)
const compiled = (schemas: Record<string, TSchema>) =>
  new Map(Object.entries(schemas).map(([type, schema]) => [type, TypeCompiler.Compile(schema)]))
const itemChecks = compiled(ITEMS)
const partChecks = compiled(PARTS)
const toolChecks = compiled(TOOLS)

/**
 * Parses and validates a body. It is read losslessly (src/json/lossless.ts): a property named
 * twice is refused rather than one of them silently kept, objects and lists nest at most 128
 * levels, and an integer beyond 2^53, which would reach a model rounded, is refused naming it.
 */
export function parseResponsesRequest(text: string): ResponsesRequest {
  const body = parseJsonLossless(text)
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('The request body must be a JSON object.', null)
  // Only the lossless reader's bigints can hide in a body; a long run of digits is their only sign.
  if (/\d{16}/.test(text)) refuseBigints(body, '')
  // Check first: walking Errors() on a valid body costs far more than the compiled check.
  if (!requestCheck.Check(body)) throw describeIssue(requestCheck.Errors(body).First()!)
  const request = body as ResponsesRequest
  checkMembers(request)
  checkRules(request)
  return request
}

/** The kind of an input item: its `type`, or without one a message (it has a `role`) or an item reference. */
export function itemKind(item: InputItem): string {
  if (typeof item.type === 'string') return item.type
  return 'role' in item ? 'message' : 'item_reference'
}

/** Input items, their content parts and tools, each against the schema of its type. */
function checkMembers(request: ResponsesRequest): void {
  if (Array.isArray(request.input))
    request.input.forEach((item, i) => {
      const at = `/input/${i}`
      check(itemChecks.get(itemKind(item)), item, at)
      const record = item as { content?: unknown; output?: unknown }
      const parts = record.content ?? record.output
      if (Array.isArray(parts))
        parts.forEach((part: { type: string }, j) =>
          check(partChecks.get(part.type), part, `${at}/${'content' in record ? 'content' : 'output'}/${j}`),
        )
    })
  request.tools?.forEach((tool, i) => {
    check(toolChecks.get(tool.type), tool, `/tools/${i}`)
    if (tool.type === 'namespace')
      (tool as unknown as NamespaceTool).tools.forEach((inner, j) =>
        check(toolChecks.get(inner.type), inner, `/tools/${i}/tools/${j}`),
      )
  })
}

function check(checker: TypeCheck<TSchema> | undefined, value: unknown, at: string): void {
  if (checker && !checker.Check(value)) throw describeIssue(checker.Errors(value).First()!, at)
}

/** Rules that span fields, which the schema cannot say. */
function checkRules(request: ResponsesRequest): void {
  const record = request as Record<string, unknown>
  if (request.input === undefined && !request.previous_response_id && !record.prompt && !record.conversation)
    throw missing('input')
  if (request.background === true)
    throw badRequest(
      "Invalid 'background': background responses are not supported by this server; send the request without it.",
      'background',
    )
  for (const key of Object.keys(request.metadata ?? {}))
    if (key.length > MAX_METADATA_KEY)
      throw badRequest(
        `Invalid 'metadata': the key '${key.slice(0, 70)}…' is longer than ${MAX_METADATA_KEY} characters.`,
        'metadata',
        'invalid_value',
      )
  const format = request.text?.format
  if (format?.type === 'json_schema') {
    if (format.name === undefined) throw missing('text.format.name')
    if (format.schema === undefined) throw missing('text.format.schema')
  }
  checkToolChoice(request.tool_choice)
}

function checkToolChoice(choice: ToolChoice | undefined): void {
  if (typeof choice !== 'object') return
  if (choice.type === 'function' && choice.name === undefined) throw missing('tool_choice.name')
  if (choice.type === 'allowed_tools') {
    if (choice.mode === undefined) throw missing('tool_choice.mode')
    if (choice.tools === undefined) throw missing('tool_choice.tools')
  }
}

/** An integer past 2^53 (a bigint from the lossless reader) cannot be sent on as it was written. */
function refuseBigints(value: unknown, at: string): void {
  if (typeof value === 'bigint') {
    const param = fieldName(at)
    throw badRequest(
      `Invalid '${param}': the integer ${value} is larger than this server can pass on exactly (2^53).`,
      param,
      'invalid_value',
    )
  }
  if (typeof value !== 'object' || value === null) return
  if (Array.isArray(value)) value.forEach((member, i) => refuseBigints(member, `${at}/${i}`))
  else
    for (const [key, member] of Object.entries(value))
      refuseBigints(member, `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`)
}

export function badRequest(message: string, param: string | null, code: string | null = null): OpenAIError {
  return new OpenAIError({ status: 400, message, param, code })
}

const missing = (param: string) =>
  badRequest(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter')
