import type { TSchema } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors'
import { HttpError } from '../../http/errors'
import { MAX_DEPTH } from '../../json/grammar'
import { deepestPath } from '../../json/depth'
import {
  BLOCKS,
  type ContentBlock,
  CountTokensRequest,
  type MessageParam,
  MessagesRequest,
  type Tool,
  type ToolChoice,
  type ToolResultBlock,
  type ToolUseBlock,
} from './model'

/*
 * Parsing and validating Messages requests, with Anthropic's rules and in Anthropic's words: a
 * 400 `invalid_request_error` whose message starts with the field, dotted as Anthropic writes it
 * (`messages.0.content.1.text: Field required`).
 */

const messagesCheck = TypeCompiler.Compile(MessagesRequest)
const countCheck = TypeCompiler.Compile(CountTokensRequest)
const blockChecks = new Map(Object.entries(BLOCKS).map(([type, schema]) => [type, TypeCompiler.Compile(schema)]))

/** Parses and validates a `POST /v1/messages` body; fields the schema does not list are kept. */
export function parseMessagesRequest(text: string): MessagesRequest {
  const request = checked<MessagesRequest>(text, messagesCheck)
  checkPrompt(request)
  const thinking = request.thinking
  if (
    thinking?.type === 'enabled' &&
    thinking.budget_tokens !== undefined &&
    thinking.budget_tokens >= request.max_tokens
  ) {
    throw invalid('max_tokens', `Input should be greater than thinking.budget_tokens (${thinking.budget_tokens})`)
  }
  return request
}

/** Parses and validates a `POST /v1/messages/count_tokens` body. */
export function parseCountTokensRequest(text: string): CountTokensRequest {
  const request = checked<CountTokensRequest>(text, countCheck)
  checkPrompt(request)
  return request
}

function checked<T>(text: string, check: TypeCheck<TSchema>): T {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw new HttpError(400, 'The request body is not valid JSON.', { type: 'invalid_request_error' })
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('', 'Input should be a valid dictionary (a JSON object)')
  // JSON.parse takes any depth, but every later walk (the estimate, the translation, the body sent on) recurses.
  const deep = deepestPath(body)
  if (deep)
    throw invalid(
      deep
        .slice(0, 5)
        .map((key) => key.slice(0, 64))
        .join('.'),
      `Input should not nest objects and lists more than ${MAX_DEPTH} levels deep`,
    )
  // Check first: walking Errors() on a valid body costs far more than the compiled check.
  if (!check.Check(body)) throw describeIssue(check.Errors(body).First()!)
  return body as T
}

/** The rules a schema cannot say: each block against its type's schema, and what spans fields. */
function checkPrompt(request: CountTokensRequest): void {
  const last = request.messages.length - 1
  request.messages.forEach((message, i) => {
    const empty = message.content.length === 0
    if (empty && !(i === last && message.role === 'assistant'))
      throw invalid(
        `messages.${i}.content`,
        'all messages must have non-empty content except for the optional final assistant message',
      )
    if (!Array.isArray(message.content)) return
    checkBlocks(message.content, `/messages/${i}/content`)
    if (message.role === 'system')
      message.content.forEach((block, j) => {
        if (block.type !== 'text') throw invalid(`messages.${i}.content.${j}.type`, "Input should be 'text'")
      })
  })
  checkToolPairs(request.messages)
  const tools: Tool[] = request.tools ?? []
  const names = new Set<string>()
  tools.forEach((tool, i) => {
    if ((tool.type === undefined || tool.type === 'custom') && tool.input_schema === undefined)
      throw invalid(`tools.${i}.input_schema`, 'Field required')
    if (names.has(tool.name))
      throw invalid(`tools.${i}.name`, `Tool names must be unique; '${tool.name}' is used twice`)
    names.add(tool.name)
  })
  checkToolChoice(request.tool_choice, names)
  const thinking = request.thinking
  if (thinking?.type === 'enabled' && thinking.budget_tokens === undefined)
    throw invalid('thinking.budget_tokens', 'Field required')
}

/**
 * Anthropic's pairing of tool calls and results, which OpenAI's API also requires: `tool_use` ids
 * are unique, each is answered by a `tool_result` in the next message (when there is one), and
 * each `tool_result` answers a `tool_use` of the message before it. A `system` turn stands
 * between turns without being one: it neither answers nor interrupts.
 */
function checkToolPairs(messages: MessageParam[]): void {
  const seen = new Set<string>()
  let asked = new Set<string>()
  let previous = -1
  messages.forEach((message, i) => {
    if (message.role === 'system') return
    const blocks = Array.isArray(message.content) ? message.content : []
    const answered = new Set<string>()
    blocks.forEach((block, j) => {
      if (block.type === 'tool_result') {
        const id = (block as ToolResultBlock).tool_use_id
        if (!asked.has(id))
          throw invalid(
            `messages.${i}.content.${j}.tool_use_id`,
            `unexpected tool_use_id '${id}': each tool_result must answer a tool_use block of the previous message`,
          )
        answered.add(id)
      }
    })
    for (const id of asked)
      if (!answered.has(id))
        throw invalid(
          `messages.${i}.content`,
          `tool_use id '${id}' of messages.${previous} has no tool_result block here, immediately after it`,
        )
    asked = new Set()
    previous = i
    blocks.forEach((block, j) => {
      if (block.type !== 'tool_use') return
      const id = (block as ToolUseBlock).id
      if (seen.has(id))
        throw invalid(`messages.${i}.content.${j}.id`, `tool_use ids must be unique; '${id}' is used twice`)
      seen.add(id)
      if (message.role === 'assistant') asked.add(id)
    })
  })
}

function checkToolChoice(choice: ToolChoice | undefined, names: Set<string>): void {
  if (choice === undefined || choice.type === 'auto' || choice.type === 'none') return
  if (names.size === 0) throw invalid('tool_choice', `tool_choice '${choice.type}' needs tools; none are given`)
  if (choice.type !== 'tool') return
  if (choice.name === undefined) throw invalid('tool_choice.name', 'Field required')
  if (!names.has(choice.name)) throw invalid('tool_choice.name', `No tool named '${choice.name}' in tools`)
}

/** Each block against its type's schema; a tool result's own blocks too. */
function checkBlocks(blocks: ContentBlock[], at: string): void {
  blocks.forEach((block, i) => {
    const check = blockChecks.get(block.type)
    if (!check) return
    if (!check.Check(block)) throw describeIssue(check.Errors(block).First()!, `${at}/${i}`)
    const content = (block as { content?: unknown }).content
    if (block.type === 'tool_result' && Array.isArray(content))
      checkBlocks(content as ContentBlock[], `${at}/${i}/content`)
  })
}

/** A 400 naming `field` (dotted, as Anthropic writes it) and what is wrong with it. */
function invalid(field: string, sentence: string): HttpError {
  return new HttpError(400, field ? `${field}: ${sentence}` : sentence, {
    type: 'invalid_request_error',
    param: field || undefined,
  })
}

/** `/messages/0/content` → `messages.0.content` */
function dotted(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.')
}

/**
 * TypeBox's first complaint, in the words of Anthropic's validator. `prefix` is the pointer of the value that was
 * checked.
 */
function describeIssue(issue: ValueError, prefix = ''): HttpError {
  const field = dotted(prefix + issue.path)
  const schema = issue.schema as Record<string, unknown>
  // JSON.parse reads 1e999 as Infinity, which no number field takes.
  if (typeof issue.value === 'number' && !Number.isFinite(issue.value))
    return invalid(field, 'Input should be a finite number')
  switch (issue.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return invalid(field, 'Field required')
    case ValueErrorType.Union:
      return describeUnion(issue, prefix, field)
    case ValueErrorType.Literal:
      return invalid(field, `Input should be ${quoted(schema.const)}`)
    case ValueErrorType.ArrayMinItems:
      return invalid(
        field,
        `List should have at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'}, not ${lengthOf(issue.value)}`,
      )
    case ValueErrorType.ArrayMaxItems:
      return invalid(field, `List should have at most ${schema.maxItems} items, not ${lengthOf(issue.value)}`)
    case ValueErrorType.StringMinLength:
      return invalid(
        field,
        `String should have at least ${schema.minLength} character${schema.minLength === 1 ? '' : 's'}`,
      )
    case ValueErrorType.StringMaxLength:
      return invalid(field, `String should have at most ${schema.maxLength} characters`)
    case ValueErrorType.StringPattern:
      return invalid(field, `String should match pattern '${schema.pattern}'`)
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum:
      return invalid(field, `Input should be greater than or equal to ${schema.minimum}`)
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum:
      return invalid(field, `Input should be less than or equal to ${schema.maximum}`)
  }
  const kind = KINDS[String(schema.type)]
  if (kind) return invalid(field, `Input should be ${kind}`)
  return invalid(field, `${issue.message}`)
}

/** A union is explained through the branch meant for the value's JSON type (`content` is a string or a list). */
function describeUnion(issue: ValueError, prefix: string, field: string): HttpError {
  const branches = (issue.schema.anyOf ?? []) as Record<string, unknown>[]
  const literals = branches.filter((branch) => 'const' in branch)
  if (literals.length === branches.length)
    return invalid(
      field,
      `Input should be ${literals
        .map((branch) => quoted(branch.const))
        .join(', ')
        .replace(/, ([^,]*)$/, ' or $1')}`,
    )
  const matching = branches.findIndex(
    (branch) => branch.type === jsonKind(issue.value) || (branch.type === 'integer' && typeof issue.value === 'number'),
  )
  const nested = matching >= 0 ? issue.errors[matching]?.First() : undefined
  if (nested) return describeIssue(nested, prefix)
  return invalid(
    field,
    `Input should be ${branches.map((branch) => KINDS[String(branch.type)] ?? 'null').join(' or ')}`,
  )
}

const KINDS: Record<string, string> = {
  string: 'a valid string',
  integer: 'a valid integer',
  number: 'a valid number',
  boolean: 'a valid boolean',
  object: 'a valid dictionary',
  array: 'a valid list',
  null: 'null',
}

function jsonKind(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

const quoted = (value: unknown) => (typeof value === 'string' ? `'${value}'` : String(value))
const lengthOf = (value: unknown) => (Array.isArray(value) ? value.length : 0)
