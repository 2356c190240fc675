import { t } from 'elysia'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { OpenAIError } from '../../http/openai-errors'
import { utf8Length } from '../../utf8'
import { estimatedTokens } from '../completion'
import type { EmbeddingsRequest } from '../providers/provider'
import { describeIssue, parseOpenAIBody } from '../request'
import { CreateEmbeddingRequest, MAX_INPUT_TOKENS, MAX_INPUTS, MAX_TOKEN_ID } from './model'

/*
 * Parsing and validating `POST /embeddings` bodies: a 400 in OpenAI's shape naming the field, as
 * chat completions do. The fields beside `input` are checked by the schema; `input` here, because
 * its four forms would make a union's complaint vague (a token list with a bad id would be
 * reported against the first form, a list of strings).
 */

const fieldsCheck = TypeCompiler.Compile(t.Omit(CreateEmbeddingRequest, ['input']))

/** A request as the providers take it: `input` always a list (of texts, or of token lists), and its token estimate. */
export type ParsedEmbeddings = { request: EmbeddingsRequest; estimate: number }

/** Parses and validates a body; fields Trellis does not model are kept for an upstream. */
export function parseEmbeddingsRequest(text: string): ParsedEmbeddings {
  const body = parseOpenAIBody(text)
  if (!fieldsCheck.Check(body)) throw describeIssue(fieldsCheck.Errors(body).First()!)
  const input = inputsOf((body as { input?: unknown }).input)
  const estimate = tokenEstimate(input)
  if (estimate > MAX_INPUT_TOKENS)
    throw invalid(
      'input',
      `the inputs hold about ${estimate} tokens (a text counted at one per three bytes of UTF-8), more than the ` +
        `${MAX_INPUT_TOKENS} one request may hold; send fewer or shorter inputs.`,
      'invalid_value',
    )
  return { request: { ...(body as { model: string }), input }, estimate }
}

/**
 * The tokens of the inputs as the limits reserve them before the answer says: a text at one per
 * three bytes of UTF-8 (at least one), a token list by its ids.
 */
export function tokenEstimate(input: string[] | number[][]): number {
  let tokens = 0
  for (const item of input) tokens += typeof item === 'string' ? estimatedTokens(utf8Length(item)) : item.length
  return tokens
}

/** `input` in any of OpenAI's four forms, as a list of texts or a list of token lists. */
function inputsOf(input: unknown): string[] | number[][] {
  if (input === undefined)
    throw new OpenAIError({
      status: 400,
      message: "Missing required parameter: 'input'.",
      param: 'input',
      code: 'missing_required_parameter',
    })
  if (typeof input === 'string') return [nonEmpty(input, 'input')]
  if (!Array.isArray(input)) throw wrongType('input', 'a string or an array', input)
  if (input.length === 0) throw invalid('input', 'expected an array with at least 1 item, but got 0.', 'empty_array')
  const first: unknown = input[0]
  // One token list is one input, however long: the total bounds it (OpenAI's API takes a model's 8192 tokens).
  if (typeof first === 'number') return [tokenList(input, 'input')]
  if (input.length > MAX_INPUTS)
    throw invalid(
      'input',
      `expected an array with at most ${MAX_INPUTS} items, but got ${input.length}.`,
      'array_above_max_length',
    )
  if (typeof first === 'string')
    return input.map((item: unknown, i) => {
      if (typeof item !== 'string') throw wrongType(`input[${i}]`, 'a string (input[0] is one)', item)
      return nonEmpty(item, `input[${i}]`)
    })
  if (Array.isArray(first))
    return input.map((item: unknown, i) => {
      if (!Array.isArray(item)) throw wrongType(`input[${i}]`, 'an array of integers (input[0] is one)', item)
      return tokenList(item, `input[${i}]`)
    })
  throw wrongType('input[0]', 'a string, an integer or an array of integers', first)
}

function nonEmpty(text: string, param: string): string {
  if (text.length === 0) throw invalid(param, 'an input may not be an empty string.', 'invalid_value')
  return text
}

function tokenList(ids: unknown[], param: string): number[] {
  if (ids.length === 0) throw invalid(param, 'expected a token list of at least 1 id, but got 0.', 'empty_array')
  ids.forEach((id, i) => {
    if (typeof id !== 'number' || !Number.isInteger(id)) throw wrongType(`${param}[${i}]`, 'an integer', id)
    if (id < 0 || id > MAX_TOKEN_ID)
      throw invalid(`${param}[${i}]`, `a token id is from 0 to ${MAX_TOKEN_ID}, but got ${id}.`, 'invalid_value')
  })
  return ids as number[]
}

function invalid(param: string, why: string, code: string): OpenAIError {
  return new OpenAIError({ status: 400, message: `Invalid '${param}': ${why}`, param, code })
}

function wrongType(param: string, expected: string, value: unknown): OpenAIError {
  const got =
    value === null
      ? 'null'
      : Array.isArray(value)
        ? 'an array'
        : typeof value === 'object'
          ? 'an object'
          : `a ${typeof value}`
  return new OpenAIError({
    status: 400,
    message: `Invalid type for '${param}': expected ${expected}, but got ${got} instead.`,
    param,
    code: 'invalid_type',
  })
}
