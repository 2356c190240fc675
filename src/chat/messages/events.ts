import { ProviderError, type ChatCompletion, type ChatCompletionChunk, isObject, type JsonObject, noteChunk, type StreamReport } from '../providers/provider'

/*
 * OpenAI's answers in Anthropic's form: a completion as a `message`, a chunk stream as Anthropic's
 * events, each `event: <type>\ndata: <one-line JSON>\n\n` as the official SDKs parse them.
 */

const encoder = new TextEncoder()

/** One event's text: its type on the `event:` line, its JSON (which holds the same `type`) on `data:`. */
export function eventText(data: { type: string; [field: string]: unknown }): string {
  return `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`
}

/** OpenAI's finish reasons as Anthropic's stop reasons; anything else ended the turn. */
const STOP_REASONS: Record<string, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
}

export const stopReasonOf = (finishReason: string | undefined): string => (finishReason !== undefined && STOP_REASONS[finishReason]) || 'end_turn'

/**
 * OpenAI's usage as Anthropic counts it: `input_tokens` are those not read from the cache
 * (OpenAI's `prompt_tokens` include them), cache reads apart, and no cache writes, which
 * OpenAI-style caching does not charge.
 */
export function usageOf(usage: JsonObject | undefined) {
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0)
  const details = isObject(usage?.prompt_tokens_details) ? usage.prompt_tokens_details : undefined
  const cached = count(details?.cached_tokens) || count(usage?.prompt_cache_hit_tokens)
  return {
    input_tokens: Math.max(0, count(usage?.prompt_tokens) - cached),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    output_tokens: count(usage?.completion_tokens),
  }
}

/** A message id as Anthropic shapes them: `msg_` and 24 random hex digits. */
export const messageId = () => `msg_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`

/** A whole completion as a `message`, named `model` (the client's name for it). */
export function messageOf(completion: ChatCompletion, model: string, showThinking: boolean): JsonObject {
  const choice = completion.choices[0] as { message?: JsonObject; finish_reason?: string } | undefined
  const message = choice?.message ?? {}
  const content: JsonObject[] = []
  if (showThinking && typeof message.reasoning_content === 'string' && message.reasoning_content !== '') {
    content.push({ type: 'thinking', thinking: message.reasoning_content, signature: '' })
  }
  if (typeof message.content === 'string' && message.content !== '') content.push({ type: 'text', text: message.content })
  if (typeof message.refusal === 'string' && message.refusal !== '') content.push({ type: 'text', text: message.refusal })
  for (const call of Array.isArray(message.tool_calls) ? (message.tool_calls as JsonObject[]) : []) {
    const fn = (call.function ?? {}) as { name?: unknown; arguments?: unknown }
    content.push({ type: 'tool_use', id: call.id, name: fn.name, input: toolInput(fn.arguments) })
  }
  return {
    id: messageId(),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReasonOf(choice?.finish_reason),
    stop_sequence: null,
    usage: usageOf(isObject(completion.usage) ? completion.usage : undefined),
  }
}

/** A tool call's arguments as the `input` object Anthropic's clients expect; anything else is the upstream's fault. */
function toolInput(text: unknown): JsonObject {
  if (typeof text === 'string') {
    try {
      const input: unknown = JSON.parse(text === '' ? '{}' : text)
      if (isObject(input)) return input
    } catch {
      // Reported below, with the rest of what is not an object.
    }
  }
  throw new ProviderError(502, 'The upstream answered a tool call whose arguments are not a JSON object.', { detail: String(text).slice(0, 200) })
}

type Block = 'text' | 'thinking' | 'tool_use'

/**
 * A chunk stream as Anthropic's events: `message_start` once the first chunk is in (so a failure
 * before it can still be retried or fall back), a content block per run of text, thinking or one
 * tool call, then `message_delta` with the stop reason and the usage (which an OpenAI upstream
 * reports only in its last chunk) and `message_stop`. Each item is the events one chunk made.
 */
export async function* anthropicEvents(chunks: AsyncIterable<ChatCompletionChunk>, model: string, showThinking: boolean, report: StreamReport): AsyncGenerator<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]()
  const blocks = new BlockWriter(showThinking)
  try {
    let result = await iterator.next()
    const usage = report.usage ? usageOf(report.usage) : usageOf(undefined)
    const start = { id: messageId(), type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage }
    let text = eventText({ type: 'message_start', message: start })
    while (!result.done) {
      noteChunk(report, result.value)
      text += blocks.chunk(result.value)
      if (text !== '') yield encoder.encode(text)
      text = ''
      result = await iterator.next()
    }
    yield encoder.encode(blocks.finish(report))
  } finally {
    await iterator.return?.()
  }
}

/** Which content block is open, and the events that open, fill and close blocks. */
class BlockWriter {
  readonly #showThinking: boolean
  #open: Block | undefined
  #index = -1
  /** The OpenAI index of the tool call the open tool_use block holds. */
  #toolCall = -1

  constructor(showThinking: boolean) {
    this.#showThinking = showThinking
  }

  chunk(chunk: ChatCompletionChunk): string {
    const choice = chunk.choices[0] as { delta?: JsonObject } | undefined
    const delta = choice?.delta
    if (!delta) return ''
    let text = ''
    if (this.#showThinking && typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') {
      text += this.#ensure('thinking', { type: 'thinking', thinking: '', signature: '' })
      text += this.#delta({ type: 'thinking_delta', thinking: delta.reasoning_content })
    }
    for (const piece of [delta.content, delta.refusal]) {
      if (typeof piece !== 'string' || piece === '') continue
      text += this.#ensure('text', { type: 'text', text: '' })
      text += this.#delta({ type: 'text_delta', text: piece })
    }
    for (const call of Array.isArray(delta.tool_calls) ? (delta.tool_calls as JsonObject[]) : []) text += this.#toolCallDelta(call)
    return text
  }

  /** Closes the open block; then the stop reason and the whole usage, and the end. */
  finish(report: StreamReport): string {
    const usage = report.usage ? usageOf(report.usage) : { output_tokens: report.events }
    const end = eventText({ type: 'message_delta', delta: { stop_reason: stopReasonOf(report.finishReason), stop_sequence: null }, usage })
    return this.#close() + end + eventText({ type: 'message_stop' })
  }

  #toolCallDelta(call: JsonObject): string {
    const fn = (isObject(call.function) ? call.function : {}) as { name?: unknown; arguments?: unknown }
    const index = typeof call.index === 'number' ? call.index : 0
    let text = ''
    if (this.#open !== 'tool_use' || index !== this.#toolCall) {
      text += this.#close()
      this.#toolCall = index
      const id = typeof call.id === 'string' ? call.id : `toolu_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`
      text += this.#start('tool_use', { type: 'tool_use', id, name: typeof fn.name === 'string' ? fn.name : '', input: {} })
    }
    if (typeof fn.arguments === 'string' && fn.arguments !== '') text += this.#delta({ type: 'input_json_delta', partial_json: fn.arguments })
    return text
  }

  #ensure(kind: Block, block: JsonObject): string {
    return this.#open === kind ? '' : this.#close() + this.#start(kind, block)
  }

  #start(kind: Block, block: JsonObject): string {
    this.#open = kind
    this.#index++
    return eventText({ type: 'content_block_start', index: this.#index, content_block: block })
  }

  #delta(delta: JsonObject): string {
    return eventText({ type: 'content_block_delta', index: this.#index, delta })
  }

  #close(): string {
    if (this.#open === undefined) return ''
    this.#open = undefined
    return eventText({ type: 'content_block_stop', index: this.#index })
  }
}
