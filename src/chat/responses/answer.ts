import { randomId } from '../ids'
import { ProviderError, type ChatCompletion, isObject, type JsonObject } from '../providers/provider'
import { itemId } from './input'
import type { ResponsesRequest } from './model'
import type { NamespacedName } from './translate'

/*
 * The answer as a Response object (OpenAI's `Response`): what the request asked for, echoed as
 * OpenAI echoes it, the output items, the status and the usage. A whole chat completion becomes
 * one here; a chunk stream becomes one in events.ts, with the same fields.
 */

/** What a Response says of its request, made once per request (see {@link responseObject}). */
export type ResponseFields = {
  id: string
  createdAt: number
  /** The public model name, as the client asked for it. */
  model: string
  request: ResponsesRequest
  store: boolean
}

export const responseId = () => randomId('resp_', 48)

/** The Responses API's usage, from chat's (whose `prompt_tokens` include the cached ones, as OpenAI counts). */
export type ResponseUsage = {
  input_tokens: number
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number }
  output_tokens: number
  output_tokens_details: { reasoning_tokens: number }
  total_tokens: number
}

const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0)

export function usageOf(usage: JsonObject | undefined): ResponseUsage | undefined {
  if (!usage) return undefined
  const prompt = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : undefined
  const completion = isObject(usage.completion_tokens_details) ? usage.completion_tokens_details : undefined
  const input = count(usage.prompt_tokens)
  const output = count(usage.completion_tokens)
  return {
    input_tokens: input,
    input_tokens_details: {
      cached_tokens: count(prompt?.cached_tokens) || count(usage.prompt_cache_hit_tokens),
      cache_write_tokens: count(prompt?.cache_write_tokens),
    },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: count(completion?.reasoning_tokens) },
    total_tokens: count(usage.total_tokens) || input + output,
  }
}

/** How an answer ended: `incomplete` when it was cut (`max_output_tokens`) or filtered. */
export type Ending = {
  status: 'completed' | 'incomplete' | 'in_progress'
  reason?: 'max_output_tokens' | 'content_filter'
}

export function endingOf(finishReason: string | undefined): Ending {
  if (finishReason === 'length') return { status: 'incomplete', reason: 'max_output_tokens' }
  if (finishReason === 'content_filter') return { status: 'incomplete', reason: 'content_filter' }
  return { status: 'completed' }
}

/** A function tool as a Response lists it: `strict` and `parameters` are always there (null when not given). */
function echoedTool(tool: JsonObject): JsonObject {
  if (tool.type !== 'function') return tool
  return {
    ...tool,
    description: tool.description ?? null,
    parameters: tool.parameters ?? null,
    strict: tool.strict ?? null,
  }
}

/**
 * The Response object, its fields in OpenAI's order. `usage` is left out until it is known (the
 * schema does not let it be null), as is `user` when the request had none.
 */
export function responseObject(
  fields: ResponseFields,
  ending: Ending,
  output: JsonObject[],
  usage?: ResponseUsage,
  completedAt?: number,
): JsonObject {
  const request = fields.request
  const response: JsonObject = {
    id: fields.id,
    object: 'response',
    created_at: fields.createdAt,
    status: ending.status,
    background: false,
    completed_at: completedAt ?? null,
    error: null,
    incomplete_details: ending.reason ? { reason: ending.reason } : null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    max_tool_calls: request.max_tool_calls ?? null,
    model: fields.model,
    output,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    prompt_cache_key: request.prompt_cache_key ?? null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
    safety_identifier: request.safety_identifier ?? null,
    service_tier: 'default',
    store: fields.store,
    temperature: request.temperature ?? null,
    text: { format: request.text?.format ?? { type: 'text' }, verbosity: request.text?.verbosity ?? null },
    tool_choice: request.tool_choice ?? 'auto',
    tools: (request.tools ?? []).map((tool) => echoedTool(tool as JsonObject)),
    top_logprobs: request.top_logprobs ?? null,
    top_p: request.top_p ?? null,
    truncation: request.truncation ?? 'disabled',
  }
  if (usage) response.usage = usage
  if (request.user !== undefined) response.user = request.user
  response.metadata = request.metadata ?? {}
  return response
}

/** Seconds since the epoch, as `created_at` and `completed_at` count. */
export const unixSeconds = () => Math.floor(Date.now() / 1000)

/** A function call item, its name split back into a namespace's when it was one. */
export function functionCallItem(
  id: string,
  call: { id?: string; name: string; arguments: string },
  namespaced: ReadonlyMap<string, NamespacedName>,
  status: string,
): JsonObject {
  const split = namespaced.get(call.name)
  const item: JsonObject = {
    id,
    type: 'function_call',
    status,
    arguments: call.arguments,
    call_id: call.id ?? randomId('call_', 24),
  }
  if (split) item.namespace = split.namespace
  item.name = split ? split.name : call.name
  return item
}

/** A function call without a name cannot be answered: the upstream's fault, said as such. */
export function toolName(name: unknown): string {
  if (typeof name === 'string' && name !== '') return name
  throw new ProviderError(502, 'The upstream answered a tool call without a name.')
}

export const textPart = (text: string): JsonObject => ({ type: 'output_text', text, annotations: [], logprobs: [] })

/**
 * A whole chat completion as a Response: choice 0's reasoning (as a reasoning item whose summary is
 * the reasoning text), its text and refusal (one message), and its tool calls (function_call items).
 */
export function responseOf(
  completion: ChatCompletion,
  fields: ResponseFields,
  namespaced: ReadonlyMap<string, NamespacedName>,
): JsonObject {
  const choice = completion.choices.find(
    (candidate) => isObject(candidate) && (candidate.index === 0 || candidate.index === undefined),
  ) as { message?: JsonObject; finish_reason?: unknown } | undefined
  const message = choice?.message ?? {}
  const ending = endingOf(typeof choice?.finish_reason === 'string' ? choice.finish_reason : undefined)
  const itemStatus = ending.status === 'incomplete' ? 'incomplete' : 'completed'
  const output: JsonObject[] = []
  if (typeof message.reasoning_content === 'string' && message.reasoning_content !== '')
    output.push({
      id: itemId('reasoning'),
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: message.reasoning_content }],
    })
  const parts: JsonObject[] = []
  if (typeof message.content === 'string' && message.content !== '') parts.push(textPart(message.content))
  if (typeof message.refusal === 'string' && message.refusal !== '')
    parts.push({ type: 'refusal', refusal: message.refusal })
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as JsonObject[]) : []
  // A message even when empty: a client that finds no message and no call asks again (the Agents SDK does).
  if (parts.length > 0 || calls.length === 0)
    output.push({
      id: itemId('message'),
      type: 'message',
      status: itemStatus,
      role: 'assistant',
      content: parts.length > 0 ? parts : [textPart('')],
    })
  for (const call of calls) {
    const fn = (isObject(call.function) ? call.function : {}) as { name?: unknown; arguments?: unknown }
    const args = typeof fn.arguments === 'string' ? fn.arguments : ''
    const id = typeof call.id === 'string' && call.id !== '' ? call.id : undefined
    output.push(
      functionCallItem(
        itemId('function_call'),
        { id, name: toolName(fn.name), arguments: args },
        namespaced,
        itemStatus,
      ),
    )
  }
  const usage = usageOf(isObject(completion.usage) ? completion.usage : undefined)
  return responseObject(fields, ending, output, usage, unixSeconds())
}
