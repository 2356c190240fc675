import {
  ProviderError,
  type ChatCompletion,
  type ChatCompletionChunk,
  isObject,
  type JsonObject,
  noteChunk,
  type StreamReport,
} from '../providers/provider'
import { randomId } from '../ids'
import { namedEventText } from '../sse/encode'
import { tooLarge } from '../sse/writer'
import type { ThinkingShown } from './fields'

/*
 * OpenAI's answers in Anthropic's form: a completion as a `message`, a chunk stream as Anthropic's
 * events, each `event: <type>\ndata: <one-line JSON>\n\n` as the official SDKs parse them.
 */

const encoder = new TextEncoder()

/** One event's text: its type on the `event:` line, its JSON (which holds the same `type`) on `data:`. */
export function eventText(data: { type: string; [field: string]: unknown }): string {
  return namedEventText(data.type, JSON.stringify(data))
}

/** OpenAI's finish reasons as Anthropic's stop reasons. */
const STOP_REASONS: Record<string, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
}

/**
 * The stop reason for an upstream's finish reason. Only the table's own keys count (`toString` or
 * `constructor` would otherwise find the prototype's functions). Anything else, or none, is
 * `end_turn`: the answer did end, and Anthropic's SDKs type `stop_reason` as a closed set, so an
 * upstream's own word would not be understood by them.
 */
const stopReasonOf = (finishReason: unknown): string =>
  typeof finishReason === 'string' && Object.hasOwn(STOP_REASONS, finishReason)
    ? STOP_REASONS[finishReason]
    : 'end_turn'

/**
 * OpenAI's usage as Anthropic counts it: `input_tokens` are those neither read from nor written to the cache
 * (OpenAI's `prompt_tokens` include both), cache reads and writes apart (writes only from an Anthropic upstream,
 * `prompt_tokens_details.cache_write_tokens`: OpenAI-style caching does not charge them). Reasoning tokens are `output_tokens_details.thinking_tokens`
 * when the upstream counted them. Every field the SDK's `Usage` always has is there, `null` where
 * Trellis knows nothing (server tools, service tier, region, speed, a cache-write breakdown).
 */
function usageOf(usage: JsonObject | undefined) {
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0)
  const details = isObject(usage?.prompt_tokens_details) ? usage.prompt_tokens_details : undefined
  const cached = count(details?.cached_tokens) || count(usage?.prompt_cache_hit_tokens)
  const written = count(details?.cache_write_tokens)
  const reasoning = isObject(usage?.completion_tokens_details) ? usage.completion_tokens_details.reasoning_tokens : null
  return {
    input_tokens: Math.max(0, count(usage?.prompt_tokens) - cached - written),
    cache_creation_input_tokens: written,
    cache_read_input_tokens: cached,
    output_tokens: count(usage?.completion_tokens),
    output_tokens_details: typeof reasoning === 'number' ? { thinking_tokens: count(reasoning) } : null,
    cache_creation: null,
    server_tool_use: null,
    service_tier: null,
    inference_geo: null,
    speed: null,
  }
}

/**
 * The usage of `message_delta` (the SDK's `MessageDeltaUsage`), which the SDKs take as the final
 * count. Without the upstream's usage, only the content events sent are known: the rest is `null`,
 * which the SDKs read as "unchanged".
 */
function deltaUsageOf(report: StreamReport) {
  if (!report.usage)
    return {
      input_tokens: null,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      output_tokens: report.events,
      output_tokens_details: null,
      server_tool_use: null,
    }
  const { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens, output_tokens_details } =
    usageOf(report.usage)
  return {
    input_tokens,
    cache_creation_input_tokens,
    cache_read_input_tokens,
    output_tokens,
    output_tokens_details,
    server_tool_use: null,
  }
}

/** What shapes a translated answer besides the completion: the client's model name, its thinking display, its stops. */
export type AnswerShape = { model: string; thinking: ThinkingShown; stopSequences: readonly string[] }

/**
 * The stop reason and sequence: `stop_sequence` and the sequence when the upstream said which of
 * the client's stop sequences ended the answer (vLLM's and echo's `stop_reason` on the choice),
 * else the finish reason's.
 */
function stopOf(finishReason: unknown, matched: unknown, shape: AnswerShape) {
  if (finishReason === 'stop' && typeof matched === 'string' && shape.stopSequences.includes(matched))
    return { stop_reason: 'stop_sequence', stop_sequence: matched }
  return { stop_reason: stopReasonOf(finishReason), stop_sequence: null }
}

/** The fields of a message (and of message_delta's delta) Trellis has nothing for: no container, no refusal details. */
const NOTHING = { stop_details: null, container: null } as const

/** An id as Anthropic shapes them: a prefix (`msg_`, `toolu_`) and 24 random hex digits. */
const anthropicId = (prefix: string) => randomId(prefix, 24)

const messageId = () => anthropicId('msg_')

/**
 * The choice a message is made of: the first, which is choice 0. An upstream asked for one choice
 * may still send others (`n` it ignored); their text must not run into the message.
 */
function firstChoice(choices: unknown): JsonObject | undefined {
  if (!Array.isArray(choices)) return undefined
  const choice: unknown = choices.find(
    (candidate) => isObject(candidate) && (candidate.index === 0 || candidate.index === undefined),
  )
  return isObject(choice) ? choice : undefined
}

/** A whole completion as a `message`, named `shape.model` (the client's name for it). */
export function messageOf(completion: ChatCompletion, shape: AnswerShape): JsonObject {
  const choice = firstChoice(completion.choices) as
    | { message?: JsonObject; finish_reason?: string; stop_reason?: unknown }
    | undefined
  const message = choice?.message ?? {}
  const content: JsonObject[] = []
  if (shape.thinking !== 'none' && typeof message.reasoning_content === 'string' && message.reasoning_content !== '') {
    const thinking = shape.thinking === 'full' ? message.reasoning_content : ''
    content.push({ type: 'thinking', thinking, signature: '' })
  }
  if (typeof message.content === 'string' && message.content !== '') content.push(textBlock(message.content))
  if (typeof message.refusal === 'string' && message.refusal !== '') content.push(textBlock(message.refusal))
  for (const call of Array.isArray(message.tool_calls) ? (message.tool_calls as JsonObject[]) : []) {
    const fn = (isObject(call.function) ? call.function : {}) as { name?: unknown; arguments?: unknown }
    content.push(toolUseBlock(toolUseId(call.id), toolName(fn.name), toolInput(fn.arguments)))
  }
  return {
    id: messageId(),
    type: 'message',
    role: 'assistant',
    model: shape.model,
    content,
    ...stopOf(choice?.finish_reason, choice?.stop_reason, shape),
    ...NOTHING,
    diagnostics: null,
    usage: usageOf(isObject(completion.usage) ? completion.usage : undefined),
  }
}

/** A text block as the SDK types it: `citations` is always there, `null` without any. */
const textBlock = (text: string) => ({ type: 'text', text, citations: null })

/** A tool_use block as the SDK types it: `caller` is always there; here the model itself called. */
const toolUseBlock = (id: string, name: string, input: JsonObject) => ({
  type: 'tool_use',
  id,
  name,
  input,
  caller: { type: 'direct' },
})

/** The upstream's id for a tool call, or one in Anthropic's shape when it gave none. */
const toolUseId = (id: unknown): string => (typeof id === 'string' && id !== '' ? id : anthropicId('toolu_'))

/** A tool_use block without a name cannot be answered: the upstream's fault, said as such. */
function toolName(name: unknown): string {
  if (typeof name === 'string' && name !== '') return name
  throw new ProviderError(502, 'The upstream answered a tool call without a name.')
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
  throw new ProviderError(502, 'The upstream answered a tool call whose arguments are not a JSON object.', {
    detail: String(text).slice(0, 200),
  })
}

type Block = 'text' | 'thinking' | 'tool_use'

/**
 * A tool call as its deltas arrive. `held` until it can be shown: Anthropic's blocks come one at a
 * time and each whole, so a tool call waits for its name (some upstreams send arguments first),
 * and for the open tool_use block to close (some interleave the deltas of parallel calls; those
 * held to the end are sent whole then). `live` while its block is open, `done` once it closed.
 */
type ToolCall = { id?: string; name?: string; args: string; state: 'held' | 'live' | 'done' }

/**
 * A chunk stream as Anthropic's events: `message_start` once the first chunk is in (so a failure
 * before it can still be retried or fall back), a content block per run of text, thinking or one
 * tool call, then `message_delta` with the stop reason and the usage (which an OpenAI upstream
 * reports only in its last chunk) and `message_stop`. Each item is the events one chunk made.
 * `maxHeld`: the most bytes of tool-call arguments held back (the response's own cap).
 */
export async function* anthropicEvents(
  chunks: AsyncIterable<ChatCompletionChunk>,
  shape: AnswerShape,
  report: StreamReport,
  maxHeld: number,
): AsyncGenerator<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]()
  const blocks = new BlockWriter(shape, maxHeld)
  try {
    let result = await iterator.next()
    const usage = report.usage ? usageOf(report.usage) : usageOf(undefined)
    const start = {
      id: messageId(),
      type: 'message',
      role: 'assistant',
      model: shape.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      ...NOTHING,
      diagnostics: null,
      usage,
    }
    // An upstream that sent no chunk at all still gets a whole (empty) message: the SDKs refuse events without
    // message_start.
    let text = eventText({ type: 'message_start', message: start })
    while (!result.done) {
      const finishReason = report.finishReason
      noteChunk(report, result.value)
      // Another choice's finish reason is not this message's stop reason.
      if (result.value.choices?.[0] !== firstChoice(result.value.choices)) report.finishReason = finishReason
      text += blocks.chunk(result.value)
      if (text !== '') yield encoder.encode(text)
      text = ''
      result = await iterator.next()
    }
    yield encoder.encode(text + blocks.finish(report))
  } finally {
    await iterator.return?.()
  }
}

/** Which content block is open, and the events that open, fill and close blocks. */
class BlockWriter {
  readonly #shape: AnswerShape
  readonly #maxHeld: number
  /** The stop sequence the upstream said ended choice 0 (`stop_reason` on its last chunk). */
  #matched: unknown
  #open: Block | undefined
  #index = -1
  /** Tool calls by their OpenAI index; the one whose tool_use block is open. */
  readonly #calls = new Map<number, ToolCall>()
  #live: ToolCall | undefined
  #held = 0
  /** Choice 0 has finished: what an upstream sends after that is not part of the message. */
  #finished = false

  constructor(shape: AnswerShape, maxHeld: number) {
    this.#shape = shape
    this.#maxHeld = maxHeld
  }

  chunk(chunk: ChatCompletionChunk): string {
    const choice = firstChoice(chunk.choices)
    if (this.#finished || !choice) return ''
    if (typeof choice.finish_reason === 'string') {
      this.#finished = true
      this.#matched = choice.stop_reason
    }
    const delta = choice.delta
    if (!isObject(delta)) return ''
    let text = ''
    const thinking = this.#shape.thinking
    if (thinking !== 'none' && typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') {
      text += this.#ensure('thinking', { type: 'thinking', thinking: '', signature: '' })
      // With display "omitted" the block is there, without its text.
      if (thinking === 'full') text += this.#delta({ type: 'thinking_delta', thinking: delta.reasoning_content })
    }
    for (const piece of [delta.content, delta.refusal]) {
      if (typeof piece !== 'string' || piece === '') continue
      text += this.#ensure('text', textBlock(''))
      text += this.#delta({ type: 'text_delta', text: piece })
    }
    for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : [])
      if (isObject(call)) text += this.#toolCallDelta(call)
    return text
  }

  /**
   * Closes the open block and sends the tool calls still held, each whole; then the stop reason and the whole usage,
   * and the end.
   */
  finish(report: StreamReport): string {
    let text = this.#close()
    for (const index of [...this.#calls.keys()].sort((a, b) => a - b)) {
      const call = this.#calls.get(index)!
      if (call.state !== 'held') continue
      text += this.#startTool(call) + this.#close()
    }
    const end = eventText({
      type: 'message_delta',
      delta: { ...stopOf(report.finishReason, this.#matched, this.#shape), ...NOTHING },
      usage: deltaUsageOf(report),
    })
    return text + end + eventText({ type: 'message_stop' })
  }

  #toolCallDelta(delta: JsonObject): string {
    const fn = (isObject(delta.function) ? delta.function : {}) as { name?: unknown; arguments?: unknown }
    const index = typeof delta.index === 'number' ? delta.index : 0
    let call = this.#calls.get(index)
    if (!call) this.#calls.set(index, (call = { args: '', state: 'held' }))
    if (call.state === 'done')
      throw new ProviderError(502, 'The upstream continued a tool call after other content had followed it.')
    if (call.id === undefined && typeof delta.id === 'string' && delta.id !== '') call.id = delta.id
    if (call.name === undefined && typeof fn.name === 'string' && fn.name !== '') call.name = fn.name
    const piece = typeof fn.arguments === 'string' ? fn.arguments : ''
    // Kept whole, live ones too: the block's input is checked to be an object when it closes.
    call.args += piece
    if (call.state === 'live') return piece === '' ? '' : this.#delta({ type: 'input_json_delta', partial_json: piece })
    this.#held += piece.length
    if (this.#held > this.#maxHeld) throw tooLarge(this.#maxHeld)
    if (call.name === undefined || this.#open === 'tool_use') return ''
    this.#held -= call.args.length
    return this.#close() + this.#startTool(call)
  }

  /** Opens the block of a held tool call, with what it held as one delta. */
  #startTool(call: ToolCall): string {
    call.state = 'live'
    this.#live = call
    const start = this.#start('tool_use', toolUseBlock(toolUseId(call.id), toolName(call.name), {}))
    return call.args === '' ? start : start + this.#delta({ type: 'input_json_delta', partial_json: call.args })
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
    if (this.#open === 'tool_use' && this.#live) {
      // The SDKs parse the input when its block stops, and throw on what is not JSON: say whose fault it is first.
      toolInput(this.#live.args)
      this.#live.state = 'done'
      this.#live = undefined
    }
    this.#open = undefined
    return eventText({ type: 'content_block_stop', index: this.#index })
  }
}
