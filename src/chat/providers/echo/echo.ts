import type { ChunkChoice, Usage } from '../../model'
import { DEFAULT_MAX_RESPONSE_BYTES } from '../../config'
import { choiceIndexes, planAnswer, randomHex, sized, spelledOut, type Step, streamSteps, validated } from './answer'
import type { ChatCompletionChunk, ChatProvider, ChatRequest, StreamReport } from '../provider'
import { PromptCache } from './tokenizer'

/**
 * `echo`: the built-in offline provider. It is not a language model and does not pretend
 * to be one; it is deterministic so that clients, tests and benchmarks can rely on it.
 *
 * - It answers with the text of the last `user` message, split by the rule in `tokenizer.ts`
 *   and streamed one token per chunk, `tokenDelayMs` apart (default 0: as fast as possible).
 * - The text is cut before the first `stop` sequence (finish `stop`), then to `max_tokens`
 *   / `max_completion_tokens` tokens (finish `length`).
 * - With `tool_choice` `required` (the first tool) or a named function, it calls that tool
 *   with arguments that are valid JSON for the tool's `parameters` (strings are the user
 *   text; see `exampleFor` in `schema-example.ts`), streamed a token at a time; finish `tool_calls`. With `auto`
 *   or `none` it answers with text.
 * - `response_format` `json_object` answers `{"echo": text}`; `json_schema` answers an
 *   example of the schema, built like tool arguments.
 * - A model named `echo-reasoner…` first streams `reasoning_content` (one fixed sentence),
 *   counted in `completion_tokens` and `reasoning_tokens` and in the `max_tokens` budget.
 * - `logprobs` are deterministic: the sampled token is the most likely one (see `logprobFor`).
 * - Usage is exact for its tokenizer; cache hits come from `PromptCache`.
 * - `n` identical choices are returned when `n` > 1.
 */
export type EchoOptions = {
  /** Registry name; default `echo`. */
  name?: string
  /** Milliseconds to wait before each streamed chunk; 0 (default) streams as fast as possible. */
  tokenDelayMs?: number
  /** Source of `created`; injectable for tests. */
  clock?: () => Date
  /** How many prompts the prompt cache remembers; see `PromptCache`. */
  promptCacheEntries?: number
  /** Most bytes of one non-streamed answer (`CHAT_MAX_RESPONSE_BYTES`, default 8 MiB); see `answerTooLarge` in echo-answer.ts. Streams are capped by the route. */
  maxResponseBytes?: number
}

const SYSTEM_FINGERPRINT = 'fp_trellis_echo'


/** Creates an echo provider. Each instance has its own prompt cache. */
export function createEchoProvider(options: EchoOptions = {}): ChatProvider {
  const clock = options.clock ?? (() => new Date())
  const cache = new PromptCache(options.promptCacheEntries)
  const delay = options.tokenDelayMs ?? 0
  const limit = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES

  return {
    name: options.name ?? 'echo',

    async complete(raw, signal) {
      signal.throwIfAborted()
      const request = validated(raw)
      const answer = planAnswer(request, cache, limit)
      const { message, logprobs } = sized(request, answer, limit, true)
      return {
        id: completionId(),
        object: 'chat.completion',
        created: unixSeconds(clock),
        model: request.model,
        system_fingerprint: SYSTEM_FINGERPRINT,
        choices: choiceIndexes(request).map((index) => ({ index, message, logprobs, finish_reason: answer.finishReason })),
        usage: answer.usage,
      }
    },

    stream(raw, signal) {
      return flatten(steps(raw, signal, chunkObjects))
    },

    streamEvents(raw, signal, report) {
      return steps(raw, signal, (head) => new ChunkEvents(head), report)
    },
  }

  /**
   * Each step's chunks (one per choice), as `emitter` makes them, one step per `delay`; the
   * usage chunk is a step of its own. Steps are made synchronously and paced by
   * {@link PacedSteps}: one timer and one promise per step, which matters when thousands of
   * streams are held.
   */
  function steps<T>(raw: ChatRequest, signal: AbortSignal, emitter: (head: ChunkHead) => ChunkEmitter<T>, report?: StreamReport): AsyncIterableIterator<T> {
    // Planned on the first step, so that a bad request rejects the stream's first item.
    const plan = (): Planned<T> => {
      const request = validated(raw)
      const answer = planAnswer(request, cache, limit)
      // Every event repeats the envelope, so a stream is larger than its answer whole: an answer
      // too large whole is refused before the stream starts. One that fits whole may still reach
      // the cap as a stream, and the route cuts it there.
      sized(request, answer, limit, false)
      if (report) {
        // Known in advance: echo's answer is planned whole.
        report.usage = answer.usage
        report.finishReason = answer.finishReason
      }
      const includeUsage = request.stream_options?.include_usage === true
      const emit = emitter({
        id: completionId(),
        created: unixSeconds(clock),
        model: request.model,
        indexes: choiceIndexes(request),
        usage: includeUsage ? null : undefined,
      })
      return { steps: streamSteps(answer, request), emit, usage: includeUsage ? answer.usage : undefined }
    }
    return new PacedSteps(plan, delay, signal, report)
  }
}

/** A planned answer: its steps, how to emit them, and the usage chunk that ends them if asked for. */
type Planned<T> = { steps: Iterator<Step>; emit: ChunkEmitter<T>; usage: Usage | undefined }

/** What every chunk of one stream shares. `usage` is null on each chunk when the stream ends with a usage chunk. */
type ChunkHead = { id: string; created: number; model: string; indexes: number[]; usage: null | undefined }
type ChunkEmitter<T> = { step(step: Step): T; usage(usage: Usage): T }

/** A step as chunk objects, one per choice. */
function chunkObjects(head: ChunkHead): ChunkEmitter<ChatCompletionChunk[]> {
  const { id, created, model, indexes } = head
  // One object literal per chunk (not a spread of a template), so every chunk has one shape.
  const chunk = (choices: ChunkChoice[], usage?: Usage | null): ChatCompletionChunk =>
    usage === undefined
      ? { id, object: 'chat.completion.chunk', created, model, system_fingerprint: SYSTEM_FINGERPRINT, choices }
      : { id, object: 'chat.completion.chunk', created, model, system_fingerprint: SYSTEM_FINGERPRINT, choices, usage }
  return {
    step: (bare) => {
      const step = spelledOut(bare)
      const logprobs = step.logprobs ?? null
      const finishReason = step.finishReason ?? null
      return indexes.map((index) => chunk([{ index, delta: step.delta, logprobs, finish_reason: finishReason }], head.usage))
    },
    usage: (usage) => [chunk([], usage)],
  }
}

/**
 * A step as the bytes of its events: exactly `encodeEvent` of each of `chunkObjects(head).step(step)`,
 * but the envelope every chunk shares is serialised once per stream, and no chunk objects are
 * built. Held streams make one of these per token each, so the garbage saved is most of it.
 * A class, so a held stream keeps one object rather than closures and their scope.
 */
class ChunkEvents implements ChunkEmitter<Uint8Array> {
  readonly #open: string
  readonly #close: string
  readonly #indexes: number[]
  /** With one choice, a content token's event is these bytes around the token as a JSON string. */
  readonly #tokenHead: Uint8Array | undefined
  readonly #tokenTail: Uint8Array | undefined

  constructor(head: ChunkHead) {
    this.#open =
      `data: {"id":${JSON.stringify(head.id)},"object":"chat.completion.chunk","created":${head.created},` +
      `"model":${JSON.stringify(head.model)},"system_fingerprint":${JSON.stringify(SYSTEM_FINGERPRINT)},"choices":`
    this.#close = head.usage === null ? ',"usage":null}\n\n' : '}\n\n'
    this.#indexes = head.indexes
    if (head.indexes.length === 1) {
      this.#tokenHead = eventBytes.encode(`${this.#open}[{"index":${head.indexes[0]},"delta":{"content":`)
      this.#tokenTail = eventBytes.encode(`},"logprobs":null,"finish_reason":null}]${this.#close}`)
    }
  }

  step(bare: Step): Uint8Array {
    if (typeof bare === 'string' && this.#tokenHead) return this.#tokenEvent(bare)
    const step = spelledOut(bare)
    const rest = `,"delta":${JSON.stringify(step.delta)},"logprobs":${JSON.stringify(step.logprobs ?? null)},"finish_reason":${JSON.stringify(step.finishReason ?? null)}}]${this.#close}`
    let text = ''
    for (const index of this.#indexes) text += `${this.#open}[{"index":${index}${rest}`
    return eventBytes.encode(text)
  }

  usage(usage: Usage): Uint8Array {
    return eventBytes.encode(`${this.#open}[],"usage":${JSON.stringify(usage)}}\n\n`)
  }

  /** One allocation per token: the bytes, written straight in; JSON.stringify only for tokens it would escape or that are not ASCII. */
  #tokenEvent(token: string): Uint8Array {
    const head = this.#tokenHead!
    const tail = this.#tokenTail!
    if (!isPlainAscii(token)) {
      const json = eventBytes.encode(JSON.stringify(token))
      const bytes = new Uint8Array(head.length + json.length + tail.length)
      bytes.set(head)
      bytes.set(json, head.length)
      bytes.set(tail, head.length + json.length)
      return bytes
    }
    const bytes = new Uint8Array(head.length + token.length + 2 + tail.length)
    bytes.set(head)
    let at = head.length
    bytes[at++] = QUOTE
    for (let i = 0; i < token.length; i++) bytes[at++] = token.charCodeAt(i)
    bytes[at++] = QUOTE
    bytes.set(tail, at)
    return bytes
  }
}

const QUOTE = 0x22

/** ASCII that JSON.stringify writes as it is: no control characters, quotes or backslashes. */
function isPlainAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x20 || code === QUOTE || code === 0x5c || code > 0x7f) return false
  }
  return true
}

const eventBytes = new TextEncoder()

/**
 * Hands over the planned steps, emitted, on a fixed schedule, one every `delayMs` from the start
 * (at once when 0), like an upstream that keeps generating while its client is busy, so a slow
 * reader does not stretch the pace. An abort rejects the pending step with the signal's reason.
 */
class PacedSteps<T> implements AsyncIterableIterator<T> {
  #plan: (() => Planned<T>) | undefined
  #planned: Planned<T> | undefined
  readonly #delayMs: number
  readonly #signal: AbortSignal
  #due = performance.now()
  #timer: ReturnType<typeof setTimeout> | undefined
  /** The step due next and its promise's settlers, while a timer runs (fields, not an object per step). */
  #dueStep: IteratorResult<T> | undefined
  #resolve: ((result: IteratorResult<T>) => void) | undefined
  #reject: ((reason: unknown) => void) | undefined
  /** The executor of every step's promise: made once per stream, not once per step. */
  readonly #settle = (resolve: (result: IteratorResult<T>) => void, reject: (reason: unknown) => void): void => {
    this.#resolve = resolve
    this.#reject = reject
  }
  #finished = false

  readonly #report: StreamReport | undefined

  constructor(plan: () => Planned<T>, delayMs: number, signal: AbortSignal, report?: StreamReport) {
    this.#plan = plan
    this.#delayMs = delayMs
    this.#signal = signal
    this.#report = report
    // The instance is its own listener (handleEvent) and its timer's argument: no closures per stream.
    if (delayMs > 0) signal.addEventListener('abort', this, { once: true })
  }

  handleEvent(): void {
    const reject = this.#reject
    this.#finish()
    reject?.(this.#signal.reason)
  }

  static #wake<T>(paced: PacedSteps<T>): void {
    const resolve = paced.#resolve!
    const step = paced.#dueStep!
    paced.#dueStep = paced.#resolve = paced.#reject = paced.#timer = undefined
    resolve(step)
  }

  next(): Promise<IteratorResult<T>> {
    // Checked before `finished`: an abort between steps (a shutdown's 503) must reach the route
    // as that error, not as the end of the stream.
    if (this.#signal.aborted) {
      this.#finish()
      return Promise.reject(this.#signal.reason)
    }
    if (this.#finished) return Promise.resolve(FINISHED)
    let step: IteratorResult<T>
    try {
      step = this.#nextStep()
    } catch (error) {
      this.#finish()
      return Promise.reject(error)
    }
    if (step.done) {
      this.#finish()
      return Promise.resolve(FINISHED)
    }
    if (this.#report) this.#report.events++
    if (this.#delayMs <= 0) return Promise.resolve(step)
    this.#due += this.#delayMs
    const wait = this.#due - performance.now()
    if (wait <= 0) return Promise.resolve(step)
    this.#dueStep = step
    const waiting = new Promise(this.#settle)
    this.#timer = setTimeout(PacedSteps.#wake<T>, wait, this)
    return waiting
  }

  return(): Promise<IteratorResult<T>> {
    this.#finish()
    return Promise.resolve(FINISHED)
  }

  #nextStep(): IteratorResult<T> {
    if (this.#plan) {
      this.#planned = this.#plan()
      this.#plan = undefined
    }
    const planned = this.#planned!
    const step = planned.steps.next()
    if (!step.done) return { value: planned.emit.step(step.value), done: false }
    if (planned.usage === undefined) return FINISHED
    const usage = planned.usage
    planned.usage = undefined
    return { value: planned.emit.usage(usage), done: false }
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  #finish(): void {
    if (this.#finished) return
    this.#finished = true
    clearTimeout(this.#timer)
    this.#dueStep = this.#resolve = this.#reject = undefined
    this.#plan = undefined
    this.#planned = undefined
    this.#signal.removeEventListener('abort', this)
  }
}

const FINISHED: IteratorReturnResult<undefined> = { done: true, value: undefined } as const

async function* flatten<T>(batches: AsyncIterable<T[]>): AsyncGenerator<T> {
  for await (const batch of batches) yield* batch
}

function unixSeconds(clock: () => Date): number {
  return Math.floor(clock().getTime() / 1000)
}

function completionId(): string {
  return `chatcmpl-${randomHex(12)}`
}
