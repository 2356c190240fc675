import type { ChatCompletionRequest, FunctionTool as ChatTool } from '../model'
import type { ChatRequest, JsonObject } from '../providers/provider'
import { chatMessages, chatToolName, type ItemOrigin, type StoredItem, untranslatable } from './input'
import type { FunctionTool, NamespaceTool, ResponsesRequest, ToolChoice } from './model'

/*
 * A Responses request in Chat Completions form, for every model whose provider does not speak the
 * Responses API (echo, `openai` in translate mode, `anthropic` through its OpenAI face). What has no
 * Chat Completions equivalent is decided here, once, by one rule:
 *
 * - What would change the answer and cannot be honoured is a 400 naming it: `conversation`,
 *   `prompt`, `moderation`, `custom` tools (chat's custom tools are not served by this server),
 *   forcing a hosted tool through `tool_choice`, files, and any field Trellis does not know (it
 *   cannot tell that such a field would not change the answer).
 * - What cannot change the answer is accepted, not sent, and named in `x-trellis-ignored`:
 *   hints (`prompt_cache_key`, `prompt_cache_retention`, `service_tier`, `client_metadata`, which
 *   Codex sends), `include` (nothing it asks for exists here: no encrypted reasoning, no hosted tool
 *   results), `stream_options.include_obfuscation`, `top_logprobs`, `reasoning.summary` (the
 *   reasoning is shown as its summary either way), `truncation: "auto"` and `context_management`
 *   (nothing is cut: an input too long for the model is the upstream's error), `max_tool_calls`,
 *   and hosted tools (`web_search`, `file_search`, `tool_search`, …), which need OpenAI's servers:
 *   they are left out and named as `tools[3]`. Codex offers `web_search` on every request;
 *   refusing it would refuse Codex.
 * - Everything else is translated: `instructions` (a system message first), `input`, function
 *   tools (`namespace` tools flattened to `<namespace>__<name>`), `tool_choice`,
 *   `parallel_tool_calls`, `text.format`, `text.verbosity`, `reasoning.effort`,
 *   `max_output_tokens`, `temperature`, `top_p`, `user`, `safety_identifier`. `metadata`,
 *   `store` and `previous_response_id` are this server's own and are not sent.
 */

/** Top-level fields a translated request uses, or that are this server's own. */
const TRANSLATED = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'text',
  'reasoning',
  'max_output_tokens',
  'temperature',
  'top_p',
  'user',
  'safety_identifier',
  'metadata',
  'store',
  'previous_response_id',
  'stream',
  'background',
])

/** Fields accepted and not sent, with the values that ask for nothing (those are not named). */
const IGNORED: Record<string, (value: unknown) => boolean> = {
  include: (value) => Array.isArray(value) && value.length === 0,
  stream_options: (value) => (value as { include_obfuscation?: unknown }).include_obfuscation !== true,
  prompt_cache_key: () => false,
  prompt_cache_retention: () => false,
  service_tier: (value) => value === 'auto' || value === 'default',
  truncation: (value) => value === 'disabled',
  top_logprobs: (value) => value === 0,
  max_tool_calls: () => false,
  context_management: () => false,
  client_metadata: () => false,
}

/** Fields that would change the answer and have no Chat Completions form, and why. */
const REFUSED: Record<string, string> = {
  conversation: 'conversations are not stored by this server; use previous_response_id',
  prompt: 'prompt templates live on OpenAI’s servers',
  moderation: 'moderation runs on OpenAI’s servers',
}

/** Tool types that run on OpenAI's servers (or produce items only OpenAI's models make). */
const HOSTED = new Set([
  'web_search',
  'web_search_2025_08_26',
  'web_search_preview',
  'web_search_preview_2025_03_11',
  'file_search',
  'tool_search',
  'code_interpreter',
  'image_generation',
  'computer',
  'computer_use',
  'computer_use_preview',
  'mcp',
  'local_shell',
  'shell',
  'apply_patch',
  'programmatic_tool_calling',
])

/** A function tool's chat name is at most 64 characters of this alphabet (OpenAI's Chat Completions rule). */
const CHAT_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/** A namespace's function, which a chat tool call names by {@link chatToolName}. */
export type NamespacedName = { namespace: string; name: string }

export type Translation = {
  /** The request in chat's form, `model` still the public name (each registry entry rewrites it). */
  chat: ChatRequest
  /** What was accepted and not sent, for `x-trellis-ignored`. */
  ignored: string[]
  /** The Responses name of a chat parameter a provider's error names, where there is one. */
  param(chat: string): string | undefined
  /** Chat tool names that stand for a namespace's function. */
  namespaced: ReadonlyMap<string, NamespacedName>
}

/** The params a provider may name, by their Responses names; a longer name keeps what follows the match. */
const PARAMS: [chat: string, responses: string][] = [
  ['max_completion_tokens', 'max_output_tokens'],
  ['max_tokens', 'max_output_tokens'],
  ['reasoning_effort', 'reasoning.effort'],
  ['verbosity', 'text.verbosity'],
  ['response_format.json_schema', 'text.format'],
  ['response_format', 'text.format'],
  ['messages', 'input'],
]

/** The Responses name of chat's `param`; `tools[k]…` by the path of chat tool k (`paths`). */
function responsesParam(param: string, paths: string[]): string | undefined {
  const tool = /^tools\[(\d+)\](?:\.function)?(.*)$/.exec(param)
  if (tool) {
    const path = paths[Number(tool[1])]
    return path && path + tool[2]
  }
  for (const [chat, responses] of PARAMS)
    if (param === chat) return responses
    else if (param.startsWith(chat) && (param[chat.length] === '.' || param[chat.length] === '['))
      // A message index is not an input index (instructions and merged calls shift it): the field is named.
      return chat === 'messages' ? responses : responses + param.slice(chat.length)
  return undefined
}

/**
 * `request` in chat's form, `items` (the resolved conversation) its messages; `origin` names where
 * each item came from in errors.
 */
export function toChatRequest(request: ResponsesRequest, items: StoredItem[], origin: ItemOrigin): Translation {
  const model = request.model
  const ignored: string[] = []
  const record = request as Record<string, unknown>
  for (const [field, value] of Object.entries(record)) {
    if (value === null || TRANSLATED.has(field)) continue
    const noOp = IGNORED[field]
    if (noOp) {
      if (!noOp(value)) ignored.push(field)
      continue
    }
    throw untranslatable(model, field, REFUSED[field] ?? 'Trellis does not know this field')
  }
  const chat: ChatCompletionRequest = { model, messages: [] }
  if (request.instructions) chat.messages.push({ role: 'system', content: request.instructions })
  chat.messages.push(...chatMessages(items, origin, model))
  if (chat.messages.length === 0) throw untranslatable(model, 'input', 'a model needs at least one message')

  const tools = toolsOf(request, ignored)
  if (tools.chat.length > 0) {
    chat.tools = tools.chat
    if (request.parallel_tool_calls != null) chat.parallel_tool_calls = request.parallel_tool_calls
  }
  const choice = toolChoiceOf(request.tool_choice, tools, model)
  if (choice !== undefined) chat.tool_choice = choice.choice
  let paths = tools.paths
  if (choice?.only) {
    // `allowed_tools` offers a subset of the tools without changing the list (for OpenAI's prompt cache); chat
    // has no such choice, so the subset is what is sent.
    const kept = tools.chat.flatMap((tool, k) => (choice.only!.has(tool.function.name) ? [k] : []))
    chat.tools = kept.map((k) => tools.chat[k]!)
    paths = kept.map((k) => tools.paths[k]!)
  }

  const format = request.text?.format
  if (format?.type === 'json_object') chat.response_format = { type: 'json_object' }
  else if (format?.type === 'json_schema') {
    const schema: NonNullable<ChatCompletionRequest['response_format']>['json_schema'] = {
      name: format.name!,
      schema: format.schema,
    }
    if (format.description !== undefined) schema.description = format.description
    if (format.strict != null) schema.strict = format.strict
    chat.response_format = { type: 'json_schema', json_schema: schema }
  }
  const extra = chat as JsonObject
  if (request.text?.verbosity != null) extra.verbosity = request.text.verbosity
  if (request.reasoning?.effort != null) extra.reasoning_effort = request.reasoning.effort
  if (request.reasoning?.summary != null) ignored.push('reasoning.summary')
  if (request.max_output_tokens != null) chat.max_completion_tokens = request.max_output_tokens
  if (request.temperature != null) chat.temperature = request.temperature
  if (request.top_p != null) chat.top_p = request.top_p
  if (request.user !== undefined) chat.user = request.user
  if (request.safety_identifier != null) extra.safety_identifier = request.safety_identifier
  if (request.stream === true) {
    chat.stream = true
    // An OpenAI upstream reports usage only when asked, in a last chunk; response.completed needs it.
    chat.stream_options = { include_usage: true }
  }
  return {
    chat: chat as ChatRequest,
    ignored,
    namespaced: tools.namespaced,
    param: (param) => responsesParam(param, paths),
  }
}

type Tools = {
  chat: ChatTool[]
  /** The Responses path of each chat tool (`tools[4].tools[1]`). */
  paths: string[]
  namespaced: Map<string, NamespacedName>
}

/** Function tools as chat tools, a namespace's flattened; hosted tools left out and named. */
function toolsOf(request: ResponsesRequest, ignored: string[]): Tools {
  const model = request.model
  const tools: Tools = { chat: [], paths: [], namespaced: new Map() }
  const taken = new Set<string>()
  const add = (tool: FunctionTool, at: string, namespace?: string) => {
    const name = chatToolName(tool.name, namespace)
    if (!CHAT_NAME.test(name))
      throw untranslatable(
        model,
        `${at}.name`,
        namespace
          ? `its chat name '${name}' (<namespace>__<name>) is longer than 64 characters`
          : 'chat tool names are at most 64 characters',
      )
    if (taken.has(name)) throw untranslatable(model, `${at}.name`, `another tool already has the chat name '${name}'`)
    taken.add(name)
    const fn: ChatTool['function'] = { name }
    if (tool.description != null) fn.description = tool.description
    if (tool.parameters != null) fn.parameters = tool.parameters
    if (tool.strict != null) fn.strict = tool.strict
    tools.chat.push({ type: 'function', function: fn })
    tools.paths.push(at)
    if (namespace) tools.namespaced.set(name, { namespace, name: tool.name })
  }
  request.tools?.forEach((tool, i) => {
    const at = `tools[${i}]`
    if (tool.type === 'function') add(tool as FunctionTool, at)
    else if (tool.type === 'namespace')
      (tool as NamespaceTool).tools.forEach((inner, j) => {
        if (inner.type !== 'function')
          throw untranslatable(model, `${at}.tools[${j}]`, `'${inner.type}' tools have no Chat Completions form`)
        add(inner as FunctionTool, `${at}.tools[${j}]`, (tool as NamespaceTool).name)
      })
    else if (HOSTED.has(tool.type)) ignored.push(at)
    else if (tool.type === 'custom')
      throw untranslatable(model, at, 'custom (freeform) tools are not served through Chat Completions here')
    else throw untranslatable(model, `${at}.type`, `Trellis does not know '${tool.type}' tools`)
  })
  if (tools.chat.length > 128)
    throw untranslatable(model, 'tools', 'Chat Completions takes at most 128 tools, namespaces flattened')
  return tools
}

/** The chat tool choice, and for `allowed_tools` the names of the tools still offered. */
function toolChoiceOf(
  choice: ToolChoice | undefined,
  tools: Tools,
  model: string,
): { choice: ChatCompletionRequest['tool_choice']; only?: Set<string> } | undefined {
  if (choice === undefined) return undefined
  const names = new Set(tools.chat.map((tool) => tool.function.name))
  const needTools = (param: string) => {
    if (names.size === 0)
      throw untranslatable(model, param, 'no function tool is left to call (hosted tools cannot run here)')
  }
  if (typeof choice === 'string') {
    if (names.size === 0) {
      if (choice === 'required') needTools('tool_choice')
      // Chat refuses a tool choice without tools; with none left, `auto` and `none` mean the same.
      return undefined
    }
    return { choice }
  }
  if (choice.type === 'function') {
    needTools('tool_choice')
    if (!names.has(choice.name!))
      throw untranslatable(model, 'tool_choice.name', `no function tool is named '${choice.name}'`)
    return { choice: { type: 'function', function: { name: choice.name! } } }
  }
  if (choice.type === 'allowed_tools') {
    const only = new Set<string>()
    for (const tool of choice.tools ?? []) {
      const entry = tool as { type: string; name?: unknown; namespace?: unknown }
      if (entry.type !== 'function' || typeof entry.name !== 'string') continue
      const name = chatToolName(entry.name, typeof entry.namespace === 'string' ? entry.namespace : undefined)
      if (names.has(name)) only.add(name)
    }
    if (only.size === 0) {
      if (choice.mode === 'required') needTools('tool_choice.tools')
      return { choice: 'none', only: undefined }
    }
    return { choice: choice.mode, only }
  }
  throw untranslatable(model, 'tool_choice', `'${choice.type}' cannot be forced: that tool cannot run here`)
}
