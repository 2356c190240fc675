import {
  isObject,
  type ChatCompletion,
  type ChatCompletionChunk,
  type JsonObject,
  type StreamReport,
} from '../provider'
import { finishReasonOf, mergeUsage, usageOf } from './usage'

/** What every chunk of one stream shares. */
type ChunkBase = { id: string; object: 'chat.completion.chunk'; created: number; model: string }

/** The bytes of a chunk around its one string, for a delta spliced in without parsing it (see delta-splice.ts). */
export type SpliceFrame = { head: Uint8Array; tail: Uint8Array }

/** The delta types whose string makes a chunk, and the block each belongs to. */
export type DeltaType = 'text_delta' | 'thinking_delta' | 'input_json_delta'
const KIND_OF: Record<DeltaType, Block['kind']> = {
  text_delta: 'text',
  thinking_delta: 'thinking',
  input_json_delta: 'tool',
}

/**
 * What a content block becomes: text, thinking, or the OpenAI tool call with this index (`sent`: some of its arguments
 * went out).
 */
type Block =
  | { kind: 'text' }
  | { kind: 'thinking' }
  | { kind: 'tool'; index: number; sent: boolean }
  | { kind: 'other' }

/**
 * Thrown by {@link ChunkTranslator.push} for an event that breaks the documented order: anything
 * but a ping or an error before `message_start`, or a second `message_start`. The chunks would
 * otherwise go out without an id and model, or start a second answer inside the first (Anthropic's
 * own SDK refuses both alike).
 */
export class OutOfOrder extends Error {
  override name = 'OutOfOrder'
}

/**
 * Anthropic's stream events, as they arrive, as OpenAI's chunks.
 *
 * Every chunk carries the upstream message's `id` (`msg_…`), its `model`, and one `created`: the
 * moment `message_start` arrived. OpenAI's ids start `chatcmpl-`, but nothing in the protocol
 * relies on it, and the upstream's id is what Anthropic's logs and support know the answer by.
 *
 * `message_start` gives the role chunk; `text_delta` → `content`; `thinking_delta` →
 * `reasoning_content` (DeepSeek's field); a `tool_use` block → a tool call whose first fragment
 * carries `index`, `id`, `type` and `name` with `arguments: ""`, and whose `input_json_delta`s
 * follow as `arguments`; `message_delta` → the finish chunk; `message_stop` → the usage chunk
 * (`choices: []`). A tool call whose input is empty (no `input_json_delta` with text) gets `{}`
 * as its arguments when its block stops. Signatures, citations, pings and block types OpenAI
 * cannot show are left out.
 */
export class ChunkTranslator {
  readonly #report: StreamReport
  readonly #clock: () => Date
  readonly #blocks = new Map<number, Block>()
  #base: ChunkBase = { id: '', object: 'chat.completion.chunk', created: 0, model: '' }
  #usage: JsonObject = {}
  #tools = 0
  #started = false
  /** Frames made so far: one for text, one for thinking, one per tool call. */
  readonly #frames = new Map<string | number, SpliceFrame>()
  /** `message_stop` arrived: the answer is whole. */
  done = false

  constructor(report: StreamReport, clock: () => Date) {
    this.#report = report
    this.#clock = clock
  }

  /** The chunks one event makes (usually one, often none). */
  push(event: JsonObject): ChatCompletionChunk[] {
    if (event.type === 'message_start') {
      if (this.#started) throw new OutOfOrder('sent a second message_start.')
      this.#started = true
      return this.#start(isObject(event.message) ? event.message : {})
    }
    // Pings, and event types Anthropic may add later, may come at any time.
    if (!EVENTS_AFTER_START.has(event.type)) return []
    if (!this.#started) throw new OutOfOrder(`sent ${String(event.type)} before message_start.`)
    switch (event.type) {
      case 'content_block_start':
        return this.#blockStart(Number(event.index), isObject(event.content_block) ? event.content_block : {})
      case 'content_block_delta':
        return this.#delta(this.#blocks.get(Number(event.index)), isObject(event.delta) ? event.delta : {})
      case 'content_block_stop':
        return this.#blockStop(Number(event.index))
      case 'message_delta': {
        // A tool block the upstream never stopped still owes its arguments before the finish.
        const owed = [...this.#blocks.keys()].flatMap((index) => this.#blockStop(index))
        mergeUsage(this.#usage, event.usage)
        this.#report.usage = usageOf(this.#usage)
        const finish = finishReasonOf(isObject(event.delta) ? event.delta.stop_reason : undefined)
        if (finish === undefined) return owed
        this.#report.finishReason = finish
        return [...owed, this.#chunk({}, finish)]
      }
      case 'message_stop':
        this.done = true
        return [{ ...this.#base, choices: [], usage: usageOf(this.#usage) }]
    }
    return []
  }

  /**
   * The frame of the chunk a `type` delta of block `index` makes, when that block takes such
   * deltas; the event is then counted, and its string goes between head and tail as the upstream
   * wrote it. Undefined otherwise: the event goes the parsed way, which knows what to do with it.
   * Not called for an empty string, which makes no chunk.
   */
  spliceFrame(index: number, type: DeltaType): SpliceFrame | undefined {
    const block = this.#blocks.get(index)
    if (block === undefined || block.kind !== KIND_OF[type]) return undefined
    this.#report.events++
    if (block.kind !== 'tool')
      return this.#frame(block.kind, block.kind === 'text' ? { content: SPLICED } : { reasoning_content: SPLICED })
    block.sent = true
    return this.#frame(block.index, { tool_calls: [{ index: block.index, function: { arguments: SPLICED } }] })
  }

  /**
   * The chunk of `delta` (whose one string is {@link SPLICED}) cut around that string, made once per stream and key.
   */
  #frame(key: string | number, delta: JsonObject): SpliceFrame {
    let frame = this.#frames.get(key)
    if (frame) return frame
    const text = `data: ${JSON.stringify(this.#chunk(delta, null))}\n\n`
    // The base's strings (id, model) come first and may hold anything; nothing after the delta is a string.
    const at = text.lastIndexOf(`"${SPLICED}"`)
    frame = { head: encoder.encode(text.slice(0, at + 1)), tail: encoder.encode(text.slice(at + 1 + SPLICED.length)) }
    this.#frames.set(key, frame)
    return frame
  }

  #start(message: JsonObject): ChatCompletionChunk[] {
    this.#base = {
      id: String(message.id ?? ''),
      object: 'chat.completion.chunk',
      created: Math.floor(this.#clock().getTime() / 1000),
      model: String(message.model ?? ''),
    }
    mergeUsage(this.#usage, message.usage)
    // Known from the start: a stream cut short is still charged its whole prompt.
    this.#report.usage = usageOf(this.#usage)
    return [this.#chunk({ role: 'assistant', content: '' }, null)]
  }

  #blockStart(index: number, block: JsonObject): ChatCompletionChunk[] {
    if (block.type === 'text') {
      this.#blocks.set(index, { kind: 'text' })
      return this.#piece({ content: block.text }, block.text)
    }
    if (block.type === 'thinking') {
      this.#blocks.set(index, { kind: 'thinking' })
      return this.#piece({ reasoning_content: block.thinking }, block.thinking)
    }
    if (block.type !== 'tool_use') {
      this.#blocks.set(index, { kind: 'other' })
      return []
    }
    const tool = this.#tools++
    // The input streams as `input_json_delta`s; a block that arrives whole carries it here instead.
    const input = isObject(block.input) && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : ''
    this.#blocks.set(index, { kind: 'tool', index: tool, sent: input !== '' })
    const call = {
      index: tool,
      id: stringOf(block.id),
      type: 'function',
      function: { name: stringOf(block.name), arguments: '' },
    }
    const first = this.#counted({ tool_calls: [call] })
    return input ? [first, this.#counted({ tool_calls: [{ index: tool, function: { arguments: input } }] })] : [first]
  }

  #delta(block: Block | undefined, delta: JsonObject): ChatCompletionChunk[] {
    if (delta.type === 'text_delta' && block?.kind === 'text') return this.#piece({ content: delta.text }, delta.text)
    if (delta.type === 'thinking_delta' && block?.kind === 'thinking')
      return this.#piece({ reasoning_content: delta.thinking }, delta.thinking)
    if (delta.type === 'input_json_delta' && block?.kind === 'tool') {
      const chunks = this.#piece(
        { tool_calls: [{ index: block.index, function: { arguments: delta.partial_json } }] },
        delta.partial_json,
      )
      if (chunks.length > 0) block.sent = true
      return chunks
    }
    return []
  }

  /**
   * A block is over (and forgotten, so that a stream of many blocks holds no more than one). A
   * tool call whose input was empty has had no `input_json_delta` with text: its arguments are
   * `{}`, as the whole answer's would be, rather than an empty string no client can parse.
   */
  #blockStop(index: number): ChatCompletionChunk[] {
    const block = this.#blocks.get(index)
    this.#blocks.delete(index)
    if (block?.kind !== 'tool' || block.sent) return []
    return [this.#counted({ tool_calls: [{ index: block.index, function: { arguments: '{}' } }] })]
  }

  /**
   * The chunk of one piece of text, thinking or arguments; none for an empty piece (a block's start, Anthropic's first
   * `partial_json`).
   */
  #piece(delta: JsonObject, piece: unknown): ChatCompletionChunk[] {
    return typeof piece === 'string' && piece !== '' ? [this.#counted(delta)] : []
  }

  /** A content chunk, counted as one event for the report. */
  #counted(delta: JsonObject): ChatCompletionChunk {
    this.#report.events++
    return this.#chunk(delta, null)
  }

  #chunk(delta: JsonObject, finish: string | null): ChatCompletionChunk {
    return { ...this.#base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] }
  }
}

const SPLICED = 'SPLICED'
const encoder = new TextEncoder()

/** The events that only make sense inside a message; `message_stop` is the last of them. */
const EVENTS_AFTER_START = new Set<unknown>([
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
])

/** An id or name as the string OpenAI's clients expect, whatever the upstream sent. */
const stringOf = (value: unknown) => (typeof value === 'string' ? value : String(value ?? ''))

/** A whole `message` as a `chat.completion`: the same translation as the stream's, at once. */
export function completionOf(message: JsonObject, clock: () => Date): ChatCompletion {
  let text: string | null = null
  let reasoning: string | undefined
  const calls: JsonObject[] = []
  for (const block of Array.isArray(message.content) ? message.content : []) {
    if (!isObject(block)) continue
    if (block.type === 'text' && typeof block.text === 'string') text = (text ?? '') + block.text
    else if (block.type === 'thinking' && typeof block.thinking === 'string')
      reasoning = (reasoning ?? '') + block.thinking
    else if (block.type === 'tool_use')
      calls.push({
        id: stringOf(block.id),
        type: 'function',
        function: { name: stringOf(block.name), arguments: JSON.stringify(block.input ?? {}) },
      })
  }
  const answer: JsonObject = { role: 'assistant', content: text, refusal: null }
  if (reasoning !== undefined) answer.reasoning_content = reasoning
  if (calls.length > 0) answer.tool_calls = calls
  const completion: ChatCompletion = {
    id: String(message.id ?? ''),
    object: 'chat.completion',
    created: Math.floor(clock().getTime() / 1000),
    model: String(message.model ?? ''),
    system_fingerprint: null,
    choices: [
      { index: 0, message: answer, logprobs: null, finish_reason: finishReasonOf(message.stop_reason) ?? 'stop' },
    ],
  }
  if (isObject(message.usage)) completion.usage = usageOf(message.usage)
  return completion
}
