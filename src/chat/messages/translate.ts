import type { ChatCompletionRequest, FunctionTool, RequestMessage } from '../model'
import { ProviderError, type ChatRequest, type JsonObject } from '../providers/provider'
import type {
  ContentBlock,
  CountTokensRequest,
  ImageBlock,
  MessagesRequest,
  TextBlock,
  ThinkingConfig,
  ToolChoice,
  ToolResultBlock,
  ToolUseBlock,
} from './model'

/*
 * A Messages request in OpenAI's form, for a provider that does not speak Anthropic's API
 * (echo, an OpenAI-compatible upstream). What has no OpenAI equivalent is decided here, once:
 *
 * - Whatever would change the answer is refused with a 400 naming the field, never dropped:
 *   `top_k`, server tools (a `type` other than `custom`), `document` blocks, image `file`
 *   sources, images inside a `tool_result`, block types Trellis does not model, and any top-level
 *   field it does not model (it cannot know that field would not change the answer).
 * - `thinking` is accepted. A model that reasons (echo-reasoner, DeepSeek's reasoner) answers its
 *   reasoning as `thinking` blocks when thinking is `enabled` or `adaptive`, and keeps it out of
 *   the answer when it is `disabled` or absent (its tokens still count as output, as Anthropic
 *   counts thinking). `budget_tokens` cannot be passed on: `max_tokens` still bounds the answer.
 *   A model that does not reason answers without a thinking block.
 * - Hints that do not change the answer are accepted and not passed on: `cache_control` (on the
 *   request or any block), `service_tier`, `metadata` other than `user_id`, and `redacted_thinking`
 *   blocks, which only Anthropic can read.
 * - Earlier turns' `thinking` blocks are accepted and not passed on: OpenAI's form has no place for
 *   them, and DeepSeek refuses `reasoning_content` in the input with a 400.
 * - A `tool_result` with `is_error: true` is sent as a tool message whose text starts with
 *   "Error: ": OpenAI's tool messages have no such flag, and without it the model would take the
 *   failure for the tool's answer.
 */

/** Top-level fields of a Messages request that translate (or, for the hints, need not). */
const TRANSLATED = new Set([
  'model',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'max_tokens',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'metadata',
  'service_tier',
  'cache_control',
])

/** Whether the answer's reasoning is shown as `thinking` blocks. */
export const showsThinking = (thinking: ThinkingConfig | undefined) =>
  thinking !== undefined && thinking.type !== 'disabled'

/** The whole request in OpenAI's form; `model` is rewritten per registry entry by the caller. */
export function toChatRequest(request: MessagesRequest): ChatRequest {
  for (const field of Object.keys(request)) {
    if (!TRANSLATED.has(field))
      throw untranslatable(
        request.model,
        field,
        field === 'top_k' ? "OpenAI's API has no top_k" : 'Trellis does not model this field',
      )
  }
  const chat: ChatCompletionRequest = { ...promptOf(request), model: request.model, max_tokens: request.max_tokens }
  if (request.stop_sequences !== undefined) chat.stop = request.stop_sequences
  if (request.temperature !== undefined) chat.temperature = request.temperature
  if (request.top_p !== undefined) chat.top_p = request.top_p
  if (typeof request.metadata?.user_id === 'string') chat.user = request.metadata.user_id
  if (request.stream === true) {
    chat.stream = true
    // An OpenAI upstream reports usage only when asked, in a last chunk; message_delta needs it.
    chat.stream_options = { include_usage: true }
  }
  return chat as ChatRequest
}

/** The prompt in OpenAI's form: messages (the system prompt first), tools and tool choice. */
export function promptOf(
  request: CountTokensRequest,
): Pick<ChatCompletionRequest, 'messages' | 'tools' | 'tool_choice' | 'parallel_tool_calls'> {
  const model = request.model
  const messages: RequestMessage[] = []
  const system = request.system
  if (typeof system === 'string') messages.push({ role: 'system', content: system })
  else if (system !== undefined)
    messages.push({ role: 'system', content: system.map((block) => ({ type: 'text', text: block.text })) })
  request.messages.forEach((message, i) => {
    if (typeof message.content === 'string') messages.push({ role: message.role, content: message.content })
    else if (message.role === 'user') messages.push(...userMessages(model, message.content, `messages.${i}.content`))
    else messages.push(assistantMessage(model, message.content, `messages.${i}.content`))
  })
  const prompt: ReturnType<typeof promptOf> = { messages }
  if (request.tools?.length) {
    prompt.tools = request.tools.map((tool, i): FunctionTool => {
      if (tool.type !== undefined && tool.type !== 'custom')
        throw untranslatable(model, `tools.${i}.type`, `'${tool.type}' is one of Anthropic's server tools`)
      const fn: FunctionTool['function'] = { name: tool.name, parameters: tool.input_schema as JsonObject }
      if (tool.description !== undefined) fn.description = tool.description
      return { type: 'function', function: fn }
    })
  }
  const choice = request.tool_choice
  if (choice !== undefined) {
    prompt.tool_choice = toolChoiceOf(choice)
    if (choice.disable_parallel_tool_use === true) prompt.parallel_tool_calls = false
  }
  return prompt
}

function toolChoiceOf(choice: ToolChoice): ChatCompletionRequest['tool_choice'] {
  if (choice.type === 'any') return 'required'
  if (choice.type === 'tool') return { type: 'function', function: { name: choice.name! } }
  return choice.type
}

/**
 * A user turn: its tool results as `tool` messages (they must follow the assistant's calls), then the rest as one user
 * message.
 */
function userMessages(model: string, blocks: ContentBlock[], at: string): RequestMessage[] {
  const tools: RequestMessage[] = []
  const parts: JsonObject[] = []
  blocks.forEach((block, i) => {
    const where = `${at}.${i}`
    if (block.type === 'tool_result') tools.push(toolMessage(model, block as ToolResultBlock, where))
    else if (block.type === 'text') parts.push({ type: 'text', text: (block as TextBlock).text })
    else if (block.type === 'image') parts.push(imagePart(model, block as ImageBlock, where))
    else throw untranslatable(model, `${where}.type`, blockReason(block.type, 'a user message'))
  })
  if (parts.length === 0 && tools.length > 0) return tools
  return [...tools, { role: 'user', content: parts as RequestMessage['content'] }]
}

/**
 * An assistant turn: its text and its tool calls. Its thinking blocks are left out (see above), as
 * `anthropic/turns.ts` leaves `reasoning_content` out going the other way.
 */
function assistantMessage(model: string, blocks: ContentBlock[], at: string): RequestMessage {
  let text = ''
  const calls: NonNullable<RequestMessage['tool_calls']> = []
  blocks.forEach((block, i) => {
    if (block.type === 'text') text += (block as TextBlock).text
    else if (block.type === 'tool_use') {
      const use = block as ToolUseBlock
      calls.push({ id: use.id, type: 'function', function: { name: use.name, arguments: JSON.stringify(use.input) } })
    } else if (block.type !== 'thinking' && block.type !== 'redacted_thinking')
      throw untranslatable(model, `${at}.${i}.type`, blockReason(block.type, 'an assistant message'))
  })
  const message: RequestMessage = { role: 'assistant', content: text }
  if (calls.length > 0) message.tool_calls = calls
  return message
}

function toolMessage(model: string, block: ToolResultBlock, at: string): RequestMessage {
  let text = ''
  if (typeof block.content === 'string') text = block.content
  else {
    for (const [i, part] of (block.content ?? []).entries()) {
      if (part.type !== 'text')
        throw untranslatable(model, `${at}.content.${i}.type`, "OpenAI's tool messages hold only text")
      text += (text === '' ? '' : '\n') + (part as TextBlock).text
    }
  }
  return { role: 'tool', tool_call_id: block.tool_use_id, content: block.is_error === true ? `Error: ${text}` : text }
}

function imagePart(model: string, block: ImageBlock, at: string): JsonObject {
  const source = block.source as { type: string; media_type?: unknown; data?: unknown; url?: unknown }
  if (source.type === 'base64' && typeof source.media_type === 'string' && typeof source.data === 'string') {
    return { type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } }
  }
  if (source.type === 'url' && typeof source.url === 'string')
    return { type: 'image_url', image_url: { url: source.url } }
  throw untranslatable(
    model,
    `${at}.source`,
    'only base64 (with media_type and data) and url images have an OpenAI form',
  )
}

function blockReason(type: string, where: string): string {
  if (type === 'tool_use' || type === 'tool_result' || type === 'thinking')
    return `a '${type}' block cannot be in ${where}`
  return `'${type}' blocks have no OpenAI form`
}

/** The 400 for what a model served through OpenAI's form cannot take. */
function untranslatable(model: string, field: string, why: string): ProviderError {
  return new ProviderError(
    400,
    `${field}: not supported by model '${model}', which is not served by an Anthropic provider (${why}).`,
    {
      type: 'invalid_request_error',
      param: field,
    },
  )
}
