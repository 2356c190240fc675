import type { ChatCompletionRequest, RequestMessage } from '../model'
import type { ChatRequest, JsonObject } from '../providers/provider'
import { functionTool, outputOf, topLevelIgnored, untranslatable } from './fields'
import type {
  ContentBlock,
  CountTokensRequest,
  ImageBlock,
  MessagesRequest,
  TextBlock,
  ToolChoice,
  ToolResultBlock,
  ToolUseBlock,
} from './model'

/*
 * A Messages request in OpenAI's form, for a provider that does not speak Anthropic's API
 * (echo, an OpenAI-compatible upstream). Which fields are translated, ignored (and named in
 * `x-trellis-ignored`) or refused is decided in fields.ts; here the prompt is made:
 *
 * - `system`, and Claude Code's `system` turns inside `messages`, become system messages at their
 *   place. One that falls between an assistant's tool calls and their results is moved after the
 *   results, since OpenAI's API wants the tool messages right after the calls.
 * - `thinking` is accepted. A model that reasons (echo-reasoner, DeepSeek's reasoner) answers its
 *   reasoning as `thinking` blocks when thinking is `enabled` or `adaptive`, and keeps it out of
 *   the answer otherwise (its tokens still count as output, as Anthropic counts thinking).
 *   `budget_tokens` cannot be passed on: `max_tokens` still bounds the answer.
 * - Refused with a 400 naming the field: server tools (a `type` other than `custom`), `document`
 *   blocks, image `file` sources, images inside a `tool_result`, and block types Trellis does not
 *   model.
 * - `cache_control` on any block is ignored (and named once), as are `redacted_thinking` blocks,
 *   which only Anthropic can read, and what the answers put on their blocks and clients send back
 *   (`citations` on text, `caller` on tool use).
 * - Earlier turns' `thinking` blocks are accepted and not passed on: OpenAI's form has no place for
 *   them, and DeepSeek refuses `reasoning_content` in the input with a 400.
 * - A `tool_result` with `is_error: true` is sent as a tool message whose text starts with
 *   "Error: ": OpenAI's tool messages have no such flag, and without it the model would take the
 *   failure for the tool's answer.
 */

/** A request in OpenAI's form, and the fields it left out as ignored (for `x-trellis-ignored`). */
export type TranslatedRequest = { chat: ChatRequest; ignored: string[] }

/** The whole request in OpenAI's form; `model` is rewritten per registry entry by the caller. */
export function toChatRequest(request: MessagesRequest): TranslatedRequest {
  const ignored = topLevelIgnored(request)
  const chat: ChatCompletionRequest & { reasoning_effort?: string } = {
    ...promptOf(request, ignored),
    ...outputOf(request),
    model: request.model,
    max_tokens: request.max_tokens,
  }
  if (request.stop_sequences !== undefined) chat.stop = request.stop_sequences
  if (request.temperature !== undefined) chat.temperature = request.temperature
  if (request.top_p !== undefined) chat.top_p = request.top_p
  if (typeof request.metadata?.user_id === 'string') chat.user = request.metadata.user_id
  if (request.stream === true) {
    chat.stream = true
    // An OpenAI upstream reports usage only when asked, in a last chunk; message_delta needs it.
    chat.stream_options = { include_usage: true }
  }
  return { chat: chat as ChatRequest, ignored }
}

/**
 * The prompt in OpenAI's form: messages (the system prompt first), tools and tool choice. What it
 * ignores is added to `ignored` (count_tokens, which ignores the same, passes nothing).
 */
export function promptOf(
  request: CountTokensRequest,
  ignored: string[] = [],
): Pick<ChatCompletionRequest, 'messages' | 'tools' | 'tool_choice' | 'parallel_tool_calls'> {
  const model = request.model
  const prompt = new Prompt(model, ignored)
  if (request.system !== undefined) prompt.system(request.system, 'system')
  request.messages.forEach((message, i) => {
    const at = `messages.${i}.content`
    if (message.role === 'system') prompt.system(message.content, at)
    else if (typeof message.content === 'string') prompt.push({ role: message.role, content: message.content })
    else if (message.role === 'user') prompt.user(message.content, at)
    else prompt.assistant(message.content, at)
  })
  const result: ReturnType<typeof promptOf> = { messages: prompt.done() }
  if (request.tools?.length) result.tools = request.tools.map((tool, i) => functionTool(model, tool, i, ignored))
  const choice = request.tool_choice
  if (choice !== undefined) {
    result.tool_choice = toolChoiceOf(choice)
    if (choice.disable_parallel_tool_use === true) result.parallel_tool_calls = false
  }
  return result
}

function toolChoiceOf(choice: ToolChoice): ChatCompletionRequest['tool_choice'] {
  if (choice.type === 'any') return 'required'
  if (choice.type === 'tool') return { type: 'function', function: { name: choice.name! } }
  return choice.type
}

/** The OpenAI messages of a conversation, made turn by turn. */
class Prompt {
  readonly #model: string
  readonly #ignored: string[]
  readonly #messages: RequestMessage[] = []
  /** System messages held until the tool results they interrupted are in. */
  #held: RequestMessage[] = []
  /** The last assistant turn called tools, whose results the next user turn must bring first. */
  #awaitingResults = false

  constructor(model: string, ignored: string[]) {
    this.#model = model
    this.#ignored = ignored
  }

  push(message: RequestMessage): void {
    this.#flush()
    this.#messages.push(message)
    this.#awaitingResults = false
  }

  #flush(): void {
    this.#messages.push(...this.#held.splice(0))
  }

  done(): RequestMessage[] {
    return [...this.#messages, ...this.#held]
  }

  /** A system prompt, or a system turn: a string or text blocks. */
  system(content: string | ContentBlock[], at: string): void {
    let message: RequestMessage
    if (typeof content === 'string') message = { role: 'system', content }
    else {
      const parts = content.map((block, i) => {
        this.#noteHints(block)
        if (block.type !== 'text') throw untranslatable(this.#model, `${at}.${i}.type`, 'a system turn holds only text')
        return { type: 'text', text: (block as TextBlock).text }
      })
      message = { role: 'system', content: parts }
    }
    if (this.#awaitingResults) this.#held.push(message)
    else this.push(message)
  }

  /**
   * A user turn: its tool results as `tool` messages (they must follow the assistant's calls), then the rest as one user
   * message.
   */
  user(blocks: ContentBlock[], at: string): void {
    const tools: RequestMessage[] = []
    const parts: JsonObject[] = []
    blocks.forEach((block, i) => {
      const where = `${at}.${i}`
      this.#noteHints(block)
      if (block.type === 'tool_result') tools.push(this.#toolMessage(block as ToolResultBlock, where))
      else if (block.type === 'text') parts.push({ type: 'text', text: (block as TextBlock).text })
      else if (block.type === 'image') parts.push(imagePart(this.#model, block as ImageBlock, where))
      else throw untranslatable(this.#model, `${where}.type`, blockReason(block.type, 'a user message'))
    })
    this.#messages.push(...tools)
    this.#awaitingResults = false
    if (parts.length > 0 || tools.length === 0) this.push({ role: 'user', content: parts as RequestMessage['content'] })
    else this.#flush()
  }

  /**
   * An assistant turn: its text and its tool calls. Its thinking blocks are left out (see above), as
   * `anthropic/turns.ts` leaves `reasoning_content` out going the other way.
   */
  assistant(blocks: ContentBlock[], at: string): void {
    let text = ''
    const calls: NonNullable<RequestMessage['tool_calls']> = []
    blocks.forEach((block, i) => {
      this.#noteHints(block)
      if (block.type === 'text') text += (block as TextBlock).text
      else if (block.type === 'tool_use') {
        const use = block as ToolUseBlock
        calls.push({ id: use.id, type: 'function', function: { name: use.name, arguments: JSON.stringify(use.input) } })
      } else if (block.type !== 'thinking' && block.type !== 'redacted_thinking')
        throw untranslatable(this.#model, `${at}.${i}.type`, blockReason(block.type, 'an assistant message'))
    })
    const message: RequestMessage = { role: 'assistant', content: text }
    if (calls.length > 0) message.tool_calls = calls
    this.push(message)
    this.#awaitingResults = calls.length > 0
  }

  #toolMessage(block: ToolResultBlock, at: string): RequestMessage {
    let text = ''
    if (typeof block.content === 'string') text = block.content
    else {
      for (const [i, part] of (block.content ?? []).entries()) {
        this.#noteHints(part)
        if (part.type !== 'text')
          throw untranslatable(this.#model, `${at}.content.${i}.type`, "OpenAI's tool messages hold only text")
        text += (text === '' ? '' : '\n') + (part as TextBlock).text
      }
    }
    return { role: 'tool', tool_call_id: block.tool_use_id, content: block.is_error === true ? `Error: ${text}` : text }
  }

  /** A block's caching hint, named once however many blocks carry it. */
  #noteHints(block: ContentBlock): void {
    if ((block as JsonObject).cache_control !== undefined) this.#ignored.push('cache_control')
  }
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
