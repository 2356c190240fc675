import { MIN_THINKING_BUDGET } from './settings'
import { isObject, type ChatRequest, type JsonObject } from '../provider'
import { unsupported } from './errors'
import { messagesOf } from './turns'

/** What the translation needs to know about the provider. */
export type TranslationSettings = {
  /** `max_tokens` when the client sets none. */
  defaultMaxTokens: number
  /** The provider's own thinking budget, if it thinks by default. */
  thinkingBudgetTokens?: number
}

/** `reasoning_effort` as a thinking budget; `none` turns thinking off. */
const THINKING_BUDGETS: Record<string, number> = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 32768 }

/**
 * OpenAI parameters that Anthropic has no equivalent for, refused unless they hold the value that
 * changes nothing (`n: 1`, a zero penalty, `logprobs: false`…). Silently dropping them would give
 * the client an answer to a question it did not ask.
 */
const REFUSED: Record<string, (value: unknown) => boolean> = {
  n: (value) => value !== 1,
  frequency_penalty: (value) => value !== 0,
  presence_penalty: (value) => value !== 0,
  logprobs: (value) => value !== false,
  top_logprobs: (value) => value !== 0,
  logit_bias: (value) => !isObject(value) || Object.keys(value).length > 0,
  seed: () => true,
  store: (value) => value !== false,
  metadata: (value) => !isObject(value) || Object.keys(value).length > 0,
  modalities: (value) => !Array.isArray(value) || value.some((modality) => modality !== 'text'),
  audio: () => true,
  prediction: () => true,
  service_tier: (value) => value !== 'auto' && value !== 'default',
  verbosity: () => true,
  web_search_options: () => true,
  functions: () => true,
  function_call: () => true,
}

/** Fields this module translates, and `top_k`, which Anthropic takes as it is. */
const TRANSLATED = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'top_k',
  'stop',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'reasoning_effort',
  'response_format',
  'user',
  'safety_identifier',
])

/**
 * An OpenAI Chat Completions request as the body of Anthropic's `POST /messages`. Every field is
 * either translated, accepted at its no-op value, or refused with a 400 naming it: fields Trellis
 * does not know are refused too, since the Messages API would refuse them anyway, with a message
 * that names Anthropic's field rather than the client's.
 */
export function toMessagesRequest(request: ChatRequest, settings: TranslationSettings): JsonObject {
  for (const [field, value] of Object.entries(request)) {
    if (value === null || value === undefined || TRANSLATED.has(field)) continue
    // Own keys only: a client's `__proto__` or `hasOwnProperty` field would otherwise find Object.prototype's members.
    const refuse = Object.hasOwn(REFUSED, field) ? REFUSED[field] : undefined
    if (!refuse) throw unsupported(field, `'${field}' is not supported by Anthropic's Messages API`)
    if (refuse(value)) throw unsupported(field, `'${field}' has no equivalent in Anthropic's Messages API`)
  }
  const { system, messages } = messagesOf(request.messages)
  // OpenAI answers a conversation of system messages alone; the Messages API needs a turn to answer.
  if (messages.length === 0)
    throw unsupported('messages', "Anthropic's Messages API needs at least one user or assistant message with content")
  const body: JsonObject = { model: request.model, messages }
  if (system.length > 0) body.system = system
  Object.assign(body, limits(request, settings))
  if (request.temperature != null) {
    if ((request.temperature as number) > 1)
      throw unsupported('temperature', "'temperature' must be between 0 and 1 for Anthropic's models")
    body.temperature = request.temperature
  }
  if (request.top_p != null) body.top_p = request.top_p
  if (request.top_k != null) body.top_k = request.top_k
  if (request.stop != null) body.stop_sequences = typeof request.stop === 'string' ? [request.stop] : request.stop
  if (Array.isArray(request.tools) && request.tools.length > 0) body.tools = request.tools.map(toolOf)
  const choice = toolChoiceOf(request.tool_choice, request.parallel_tool_calls)
  if (choice) body.tool_choice = choice
  const format = outputFormatOf(request.response_format)
  if (format) body.output_config = { format }
  const user = request.safety_identifier ?? request.user
  if (typeof user === 'string' && user !== '') body.metadata = { user_id: user }
  return body
}

/** `max_tokens`, and `thinking` with its budget inside it. */
function limits(request: ChatRequest, settings: TranslationSettings): JsonObject {
  const asked = request.max_completion_tokens ?? request.max_tokens
  const limitParam = request.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens'
  const effort = request.reasoning_effort
  let budget: number | undefined
  let askedByClient = false
  if (effort != null) {
    if (effort !== 'none' && !(typeof effort === 'string' && Object.hasOwn(THINKING_BUDGETS, effort))) {
      throw unsupported(
        'reasoning_effort',
        `'reasoning_effort' must be one of none, ${Object.keys(THINKING_BUDGETS).join(', ')}`,
      )
    }
    budget = effort === 'none' ? undefined : THINKING_BUDGETS[effort as string]
    askedByClient = budget !== undefined
  } else budget = settings.thinkingBudgetTokens
  if (budget === undefined) return { max_tokens: asked ?? settings.defaultMaxTokens }
  // OpenAI's limit covers reasoning and answer alike; Anthropic's budget must fit inside max_tokens.
  if (asked == null)
    return { max_tokens: settings.defaultMaxTokens + budget, thinking: { type: 'enabled', budget_tokens: budget } }
  const room = (asked as number) - 1
  if (room < MIN_THINKING_BUDGET) {
    if (askedByClient)
      throw unsupported(
        limitParam,
        `with 'reasoning_effort', '${limitParam}' must be more than ${MIN_THINKING_BUDGET}: Anthropic's thinking needs at least ${MIN_THINKING_BUDGET} tokens`,
      )
    return { max_tokens: asked }
  }
  return { max_tokens: asked, thinking: { type: 'enabled', budget_tokens: Math.min(budget, room) } }
}

function toolOf(tool: unknown, index: number): JsonObject {
  if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function)) {
    throw unsupported(`tools[${index}]`, "only 'function' tools can be sent to Anthropic's Messages API")
  }
  const { name, description, parameters, strict } = tool.function
  const out: JsonObject = { name, input_schema: isObject(parameters) ? parameters : { type: 'object', properties: {} } }
  if (typeof description === 'string') out.description = description
  if (strict === true) out.strict = true
  return out
}

/** `none`, `auto`, `required` → `any`, a named function → `tool`; `parallel_tool_calls: false` rides on it. */
function toolChoiceOf(choice: unknown, parallel: unknown): JsonObject | undefined {
  let out: JsonObject | undefined
  if (choice === 'none' || choice === 'auto') out = { type: choice }
  else if (choice === 'required') out = { type: 'any' }
  else if (isObject(choice) && isObject(choice.function)) out = { type: 'tool', name: choice.function.name }
  else if (choice != null)
    throw unsupported('tool_choice', "'tool_choice' must be none, auto, required or a named function")
  if (parallel === false && out?.type !== 'none')
    out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true }
  return out
}

/** `json_schema` is Anthropic's structured output; `json_object` (any JSON, no schema) has no equivalent. */
function outputFormatOf(format: unknown): JsonObject | undefined {
  if (!isObject(format) || format.type === 'text') return undefined
  if (format.type === 'json_schema' && isObject(format.json_schema) && isObject(format.json_schema.schema)) {
    return { type: 'json_schema', schema: format.json_schema.schema }
  }
  throw unsupported(
    'response_format',
    "Anthropic's Messages API answers in JSON only to a 'json_schema' response_format with a schema",
  )
}
