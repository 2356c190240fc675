import type {
  ChatCompletionRequest,
  ChunkChoice,
  ChunkDelta,
  FinishReason,
  FunctionTool,
  ResponseMessage,
  TokenLogprob,
  ToolCall,
  Usage,
} from '../model'
import { DEFAULT_MAX_RESPONSE_BYTES } from '../config'
import { ProviderError, type ChatCompletionChunk, type ChatProvider, type ChatRequest, type StreamReport } from './provider'
import { ExampleTooLarge, exampleFor } from './schema-example'
import { contentText, leadingTokens, promptOf, PromptCache, tokenAt, utf8Length } from './tokenizer'

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
  /** Most bytes of one non-streamed answer (`CHAT_MAX_RESPONSE_BYTES`, default 8 MiB); see {@link answerTooLarge}. Streams are capped by the route. */
  maxResponseBytes?: number
}

const SYSTEM_FINGERPRINT = 'fp_trellis_echo'

/** Tokens offered as `top_logprobs` alternatives, in order, skipping the sampled token. */
const ALTERNATIVES = [' the', ',', '.', ' and', ' a', ' of', ' to', ' in', ' is', ' it', ' that', ' I', ' you', ' for', ' on', ' with', ' as', ' was', ' be', ' at', ' not']

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

/**
 * The message `complete` answers with and its logprobs (built only when `keep`), sized as they
 * are made: n choices share one message and one logprobs list, which only serialising would
 * multiply, so an answer larger than `limit` is refused before that, and before a logprobs list
 * larger than the cap is built. The estimate is at most ~1 KB above the real size, never below.
 */
function sized(request: ChatCompletionRequest, answer: Answer, limit: number, keep: boolean) {
  const message: ResponseMessage = { role: 'assistant', content: answer.toolCall ? null : answer.content, refusal: null }
  if (answer.reasoningTokens > 0) message.reasoning_content = answer.reasoning
  if (answer.toolCall) message.tool_calls = [{ ...answer.toolCall, function: { ...answer.toolCall.function, arguments: answer.arguments } }]
  const choices = request.n ?? 1
  const shared = 256 + request.model.length * 6 + utf8Length(JSON.stringify(answer.usage))
  let perChoice = 96 + utf8Length(JSON.stringify(message))
  const fits = () => shared + choices * perChoice <= limit
  if (!fits()) throw answerTooLarge(request, limit)
  if (!request.logprobs) return { message, logprobs: null }
  const content: TokenLogprob[] = []
  let token: string | undefined
  for (let at = 0; (token = tokenAt(answer.content, at)) !== undefined; at += token.length) {
    const entry = logprobFor(token, request.top_logprobs ?? 0)
    perChoice += utf8Length(JSON.stringify(entry)) + 1
    if (!fits()) throw answerTooLarge(request, limit)
    if (keep) content.push(entry)
  }
  return { message, logprobs: { content } }
}

/**
 * The 400 for an answer larger than `limit`. The echo provider's answers are determined by the
 * request, so the client can fix it; `param` names the multiplier to lower first.
 */
function answerTooLarge(request: ChatCompletionRequest, limit: number): ProviderError {
  const param =
    (request.n ?? 1) > 1
      ? 'n'
      : request.logprobs && request.top_logprobs
        ? 'top_logprobs'
        : request.logprobs
          ? 'logprobs'
          : request.max_completion_tokens != null
            ? 'max_completion_tokens'
            : 'max_tokens'
  return new ProviderError(400, `The answer would be larger than this server's limit of ${limit} bytes per response; lower '${param}'.`, {
    type: 'invalid_request_error',
    param,
    code: 'response_too_large',
  })
}

/** The route has checked the request against `ChatCompletionRequest`; echo relies on that shape. */
function validated(request: ChatRequest): ChatCompletionRequest {
  return request as ChatCompletionRequest
}

/**
 * Everything the echo provider will say, decided before the first chunk. The texts are
 * kept as strings and split into tokens only while streaming, so a held stream does not
 * hold a list of its tokens.
 */
type Answer = {
  reasoning: string
  reasoningTokens: number
  content: string
  contentTokens: number
  toolCall?: ToolCall
  arguments: string
  argumentTokens: number
  finishReason: FinishReason
  usage: Usage
}

function planAnswer(request: ChatCompletionRequest, cache: PromptCache, limit: number): Answer {
  const messages = request.messages
  const lastUser = [...messages].reverse().find((message) => message.role === 'user')
  const text = contentText(lastUser?.content)
  let budget = request.max_completion_tokens ?? request.max_tokens ?? Number.POSITIVE_INFINITY
  let truncated = false
  const take = (full: string) => {
    const kept = leadingTokens(full, budget)
    truncated ||= kept.cut
    budget -= kept.count
    return kept
  }

  const reasoning = take(isReasoner(request.model) ? reasoningFor(leadingTokens(text, Number.POSITIVE_INFINITY).count) : '')
  const tool = forcedTool(request)
  let content = take('')
  let args = take('')
  let toolCall: ToolCall | undefined
  if (tool) {
    toolCall = { id: toolCallId(), type: 'function', function: { name: tool.function.name, arguments: '' } }
    const param = `tools[${(request.tools ?? []).indexOf(tool)}].function.parameters`
    args = take(JSON.stringify(boundedExample(tool.function.parameters ?? { type: 'object', properties: {} }, text, limit, param)))
  } else {
    content = take(cutAtStop(formatted(request, text, limit), request.stop))
  }

  const prompt = promptOf(messages, request.tools)
  const { hits, misses } = cache.lookupAndRemember(prompt)
  const perChoice = reasoning.count + content.count + args.count
  const choices = choiceIndexes(request).length
  return {
    reasoning: reasoning.text,
    reasoningTokens: reasoning.count,
    content: content.text,
    contentTokens: content.count,
    toolCall,
    arguments: args.text,
    argumentTokens: args.count,
    finishReason: truncated ? 'length' : toolCall ? 'tool_calls' : 'stop',
    usage: {
      prompt_tokens: prompt.ends.length,
      completion_tokens: perChoice * choices,
      total_tokens: prompt.ends.length + perChoice * choices,
      // DeepSeek's counters, and OpenAI's spelling of the same for clients that read only that.
      prompt_cache_hit_tokens: hits,
      prompt_cache_miss_tokens: misses,
      prompt_tokens_details: { cached_tokens: hits },
      completion_tokens_details: { reasoning_tokens: reasoning.count * choices },
    },
  }
}

/**
 * One streamed event of a choice, before it is wrapped into a chunk per choice. A content token
 * without logprobs, most of every answer, is just the token: no objects are made for it.
 */
type Step = string | FullStep
type FullStep = { delta: ChunkDelta; logprobs?: { content: TokenLogprob[] }; finishReason?: FinishReason }

/** A step with its delta, also when it is a bare content token. */
function spelledOut(step: Step): FullStep {
  return typeof step === 'string' ? { delta: { content: step } } : step
}

function* streamSteps(answer: Answer, request: ChatCompletionRequest): Generator<Step> {
  const reasons = answer.reasoningTokens > 0
  const first: ChunkDelta = { role: 'assistant', content: answer.toolCall || reasons ? null : '', refusal: null }
  if (reasons) first.reasoning_content = ''
  if (answer.toolCall && !reasons) first.tool_calls = [toolCallStart(answer.toolCall)]
  yield { delta: first }
  // Tokens are walked with tokenAt rather than a nested generator: one generator per held stream, not four.
  let token: string | undefined
  for (let at = 0; (token = tokenAt(answer.reasoning, at)) !== undefined; at += token.length) yield { delta: { reasoning_content: token } }
  if (answer.toolCall && reasons) yield { delta: { tool_calls: [toolCallStart(answer.toolCall)] } }
  for (let at = 0; (token = tokenAt(answer.arguments, at)) !== undefined; at += token.length) {
    yield { delta: { tool_calls: [{ index: 0, function: { arguments: token } }] } }
  }
  for (let at = 0; (token = tokenAt(answer.content, at)) !== undefined; at += token.length) {
    yield request.logprobs ? { delta: { content: token }, logprobs: { content: [logprobFor(token, request.top_logprobs ?? 0)] } } : token
  }
  yield { delta: {}, finishReason: answer.finishReason }
}

function toolCallStart(call: ToolCall) {
  return { index: 0, id: call.id, type: 'function' as const, function: { name: call.function.name, arguments: '' } }
}

function isReasoner(model: string): boolean {
  return model.startsWith('echo-reasoner')
}

function reasoningFor(tokenCount: number): string {
  return `Echo provider, not a model: repeating ${tokenCount} tokens.`
}

/** The tool `tool_choice` forces: a named function, or the first tool when `required`. */
function forcedTool(request: ChatCompletionRequest): FunctionTool | undefined {
  const tools = request.tools ?? []
  const choice = request.tool_choice
  if (choice === 'required') return tools[0]
  if (typeof choice === 'object') return tools.find((tool) => tool.function.name === choice.function.name)
  return undefined
}

function formatted(request: ChatCompletionRequest, text: string, limit: number): string {
  const format = request.response_format
  if (format?.type === 'json_object') return JSON.stringify({ echo: text })
  if (format?.type === 'json_schema') return JSON.stringify(boundedExample(format.json_schema?.schema ?? {}, text, limit, 'response_format.json_schema.schema'))
  return text
}

/**
 * {@link exampleFor} within the response cap, or a 400 naming the schema: echo's examples follow
 * `minItems` and `minLength`, and a schema whose example cannot fit is the request's to change.
 */
function boundedExample(schema: unknown, text: string, limit: number, param: string): unknown {
  try {
    return exampleFor(schema, text, limit)
  } catch (error) {
    if (!(error instanceof ExampleTooLarge)) throw error
    throw new ProviderError(
      400,
      `Invalid '${param}': an example of this schema would be larger than this server's limit of ${limit} bytes per response; lower its 'minItems' or 'minLength'.`,
      { type: 'invalid_request_error', param, code: 'response_too_large' },
    )
  }
}

function cutAtStop(text: string, stop: ChatCompletionRequest['stop']): string {
  const sequences = typeof stop === 'string' ? [stop] : (stop ?? [])
  let end = text.length
  for (const sequence of sequences) {
    const at = sequence ? text.indexOf(sequence) : -1
    if (at >= 0 && at < end) end = at
  }
  // A stop sequence that is half a surrogate pair must not leave the other half behind.
  const previous = text.charCodeAt(end - 1)
  if (end < text.length && previous >= 0xd800 && previous <= 0xdbff) end--
  return text.slice(0, end)
}

/**
 * Deterministic log-probabilities: the sampled token gets `-(fnv1a(token) % 1000 + 1) / 10000`
 * (between -0.0001 and -0.1), and the `k`-th alternative from `ALTERNATIVES` gets
 * that minus `2k`, so the sampled token is always the most likely.
 */
export function logprobFor(token: string, topCount: number): TokenLogprob {
  const logprob = -((fnv1a(token) % 1000) + 1) / 10000
  const alternatives = ALTERNATIVES.filter((candidate) => candidate !== token).slice(0, Math.max(0, topCount - 1))
  const top = topCount > 0 ? [{ token, logprob, bytes: utf8(token) }] : []
  alternatives.forEach((candidate, k) => top.push({ token: candidate, logprob: logprob - 2 * (k + 1), bytes: utf8(candidate) }))
  return { token, logprob, bytes: utf8(token), top_logprobs: top }
}

const encoder = new TextEncoder()

function utf8(text: string): number[] {
  return Array.from(encoder.encode(text))
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

function choiceIndexes(request: ChatCompletionRequest): number[] {
  return Array.from({ length: request.n ?? 1 }, (_, index) => index)
}

function unixSeconds(clock: () => Date): number {
  return Math.floor(clock().getTime() / 1000)
}

function completionId(): string {
  return `chatcmpl-${randomHex(12)}`
}

function toolCallId(): string {
  return `call_${randomHex(12)}`
}

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (byte) => byte.toString(16).padStart(2, '0')).join('')
}
