import { OpenAIError } from '../../../http/openai-errors'
import { abortableSleep } from '../../retry'
import { StreamCut } from '../../sse/cut'
import { encodeEvent } from '../../sse/encode'
import { choiceIndexes, randomHex, validated } from '../echo/answer'
import { type ChunkEmitter, type ChunkHead, ChunkEvents, chunkObjects, SYSTEM_FINGERPRINT } from '../echo/chunks'
import { createEchoProvider } from '../echo/echo'
import {
  type ChatCompletionChunk,
  type ChatProvider,
  type ChatRequest,
  clientHeaders,
  ProviderError,
  type StreamReport,
} from '../provider'
import { parseRetryAfter, type TimeoutPhase, timeoutError } from '../upstream-error'
import { loadScenario } from './load'
import { type CompiledRule, compileRules, factsOf, unmatched } from './match'
import type { Scenario, ScriptedError } from './model'
import { eventsBeforeFault, type Plan, planReply } from './plan'

/** What a script provider is made with (the kind's factory passes the provider's configuration). */
export type ScriptOptions = {
  name: string
  scenario: Scenario
  clock?: () => Date
  /** A whole answer may take this long before it fails with a 504 (`requestTimeoutMs`). */
  requestTimeoutMs?: number
  /** A stream's first event may wait this long (`firstTokenTimeoutMs`), then 504, as an upstream's would. */
  firstTokenTimeoutMs?: number
  /** Silence allowed between events (`idleTimeoutMs`): a longer `gap_ms` or a `stall` ends there with a 504. */
  idleTimeoutMs?: number
  maxResponseBytes?: number
}

/** A script provider: a {@link ChatProvider} whose scenario can be replaced while it serves. */
export interface ScriptProvider extends ChatProvider {
  /** The scenario requests are answered from. */
  readonly scenario: Scenario
  /**
   * Replaces the scenario for the requests that start from now on (those in flight finish with the old one): an
   * object, or the path of a YAML or JSON file (absolute, or relative to the working directory). It is checked as the
   * configuration checks one (see `loadScenario`): a scenario that does not validate throws a `ConfigFileInvalid`
   * (a line per problem, `file:line:column: error …` for a file) and the running one stays.
   *
   * @example
   * const script = registry.provider('script')
   * if (script && isScriptProvider(script)) script.setScenario('tests/llm.yaml')
   */
  setScenario(scenario: Scenario | string): void
}

/**
 * `script`: answers from a scenario, an ordered list of rules (see README.md, "The script provider"): the first
 * rule whose `match` holds answers with its `reply` (plan.ts), in whichever wire format the client speaks, the other
 * two reaching it translated. Deterministic but for ids; offline.
 */
export function createScriptProvider(options: ScriptOptions): ScriptProvider {
  const clock = options.clock ?? (() => new Date())
  const name = options.name
  let scenario = options.scenario
  let rules = compileRules(scenario)
  const echo = createEchoProvider({ name, clock, maxResponseBytes: options.maxResponseBytes })
  const limits = {
    first_token: options.firstTokenTimeoutMs ?? Number.POSITIVE_INFINITY,
    idle: options.idleTimeoutMs ?? Number.POSITIVE_INFINITY,
    request: options.requestTimeoutMs ?? Number.POSITIVE_INFINITY,
  }

  /** The rule that answers, or undefined when the scenario falls back to echo; a 400 when neither. */
  const choose = (request: ChatRequest, current: { scenario: Scenario; rules: CompiledRule[] }) => {
    const facts = factsOf(request, clientHeaders(request))
    const found = current.rules.find((rule) => rule.test(facts))
    if (found || current.scenario.fallback === 'echo') return found
    throw unmatched(current.rules, facts, name)
  }

  const head = (request: ChatRequest, includeUsage: boolean): ChunkHead => ({
    id: `chatcmpl-${randomHex(12)}`,
    created: Math.floor(clock().getTime() / 1000),
    model: request.model,
    indexes: choiceIndexes(validated(request)),
    usage: includeUsage ? null : undefined,
  })

  async function* events<T>(
    request: ChatRequest,
    signal: AbortSignal,
    emitter: (head: ChunkHead) => ChunkEmitter<T[]>,
    bytes: Bytes<T>,
    report?: StreamReport,
  ): AsyncGenerator<T> {
    const current = { scenario, rules }
    const rule = choose(request, current)
    if (!rule) {
      yield* fallbackStream(request, signal, bytes, report)
      return
    }
    const indexes = choiceIndexes(validated(request))
    const plan = planReply(rule.rule.reply, request, indexes.length, () => randomHex(12))
    if (plan.error) throw scriptedError(plan.error, clock)
    if (report) {
      report.usage = plan.usage
      report.finishReason = plan.finishReason
    }
    const includeUsage = (request.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true
    const emit = emitter(head(request, includeUsage))
    const timer = new Timer(plan, signal, limits, name)
    const fault = plan.fault
    const stopAt = fault && 'afterEvents' in fault ? eventsBeforeFault(plan, fault.afterEvents) : undefined
    let sent = 0
    for (let index = 0; index < plan.steps.length; index++) {
      if (index === stopAt) {
        // What was sent before a cut reaches the client first, as it would before a network breaks.
        if (fault!.kind === 'disconnect') await abortableSleep(CUT_DELAY_MS, signal)
        throw faultError(fault!)
      }
      if (fault?.kind === 'stall' && index === plan.steps.length - 1) await timer.wait(Number.POSITIVE_INFINITY, index)
      await timer.wait(index === 0 ? plan.ttftMs : plan.gapMs, index)
      for (const item of emit.step(plan.steps[index]!)) {
        if (fault && 'afterBytes' in fault) {
          const size = bytes.size(item)
          if (sent + size > fault.afterBytes) {
            const prefix = bytes.prefix(item, fault.afterBytes - sent)
            if (prefix !== undefined) yield prefix
            await abortableSleep(CUT_DELAY_MS, signal)
            throw new StreamCut('the scenario cut the connection (disconnect_after_bytes)')
          }
          sent += size
        }
        if (report) report.events++
        yield item
      }
    }
    if (fault && 'afterBytes' in fault) {
      await abortableSleep(CUT_DELAY_MS, signal)
      throw new StreamCut('the scenario cut the connection (disconnect_after_bytes)')
    }
    if (includeUsage) yield* emit.usage(plan.usage)
  }

  async function* fallbackStream<T>(
    request: ChatRequest,
    signal: AbortSignal,
    bytes: Bytes<T>,
    report?: StreamReport,
  ): AsyncGenerator<T> {
    if (bytes.events) yield* echo.streamEvents!(request, signal, report) as AsyncIterable<T>
    else yield* echo.stream(request, signal) as AsyncIterable<T>
  }

  return {
    name,
    get scenario() {
      return scenario
    },
    setScenario(next) {
      const checked = loadScenario(next)
      rules = compileRules(checked)
      scenario = checked
    },

    async complete(request, signal) {
      signal.throwIfAborted()
      const current = { scenario, rules }
      const rule = choose(request, current)
      if (!rule) return echo.complete(request, signal)
      const indexes = choiceIndexes(validated(request))
      const plan = planReply(rule.rule.reply, request, indexes.length, () => randomHex(12))
      if (plan.error) throw scriptedError(plan.error, clock)
      const timer = new Timer(plan, signal, limits, name)
      const fault = plan.fault
      // The time its stream would take, in one wait; a fault fails the whole answer.
      const wait =
        fault?.kind === 'stall' ? Number.POSITIVE_INFINITY : plan.ttftMs + plan.gapMs * (plan.steps.length - 1)
      await timer.whole(wait)
      if (fault) throw faultError(fault, true)
      return {
        id: `chatcmpl-${randomHex(12)}`,
        object: 'chat.completion',
        created: Math.floor(clock().getTime() / 1000),
        model: request.model,
        system_fingerprint: SYSTEM_FINGERPRINT,
        choices: indexes.map((index) => ({
          index,
          message: plan.message,
          logprobs: null,
          finish_reason: plan.finishReason,
        })),
        usage: plan.usage,
      }
    },

    stream(request, signal) {
      return events(request, signal, chunkObjects, CHUNK_BYTES)
    },

    streamEvents(request, signal, report) {
      return events(request, signal, (head) => new Batched(new ChunkEvents(head)), EVENT_BYTES, report)
    },
  }
}

/**
 * How long a cut waits after the last bytes before it, so that they reach the client before the connection breaks: Bun
 * drops a chunk it has not yet written when the body fails, and 20 ms once lost one on a machine running two test
 * files at a time.
 */
const CUT_DELAY_MS = 100

/** How big an item is on the wire (Chat Completions' encoding), and its first `n` bytes when it can be split. */
type Bytes<T> = { size(item: T): number; prefix(item: T, n: number): T | undefined; events: boolean }
const EVENT_BYTES: Bytes<Uint8Array> = {
  size: (item) => item.length,
  prefix: (item, n) => (n > 0 ? item.subarray(0, n) : undefined),
  events: true,
}
/** A chunk object cannot be cut in the middle: the cut falls before the chunk that would pass the count. */
const CHUNK_BYTES: Bytes<ChatCompletionChunk> = {
  size: (chunk) => encodeEvent(chunk).length,
  prefix: () => undefined,
  events: false,
}

/** Echo's event emitter, each step as a list of one item, as chunkObjects gives its chunks. */
class Batched implements ChunkEmitter<Uint8Array[]> {
  constructor(readonly inner: ChunkEvents) {}
  step(step: Parameters<ChunkEvents['step']>[0]): Uint8Array[] {
    return [this.inner.step(step)]
  }
  usage(usage: Parameters<ChunkEvents['usage']>[0]): Uint8Array[] {
    return [this.inner.usage(usage)]
  }
}

/**
 * The waits of one answer, under the provider's timeouts (the first token's, the idle one's, the whole request's) and
 * the reply's own `deadline_ms`: a wait longer than what is left ends, when that runs out, with the 504 an upstream
 * that slow would get.
 */
class Timer {
  readonly #started = performance.now()
  constructor(
    readonly plan: Plan,
    readonly signal: AbortSignal,
    readonly limits: Record<'first_token' | 'idle' | 'request', number>,
    readonly name: string,
  ) {}

  wait(ms: number, index: number): Promise<void> {
    return this.#bounded(ms, index === 0 ? 'first_token' : 'idle')
  }

  whole(ms: number): Promise<void> {
    return this.#bounded(ms, 'request')
  }

  async #bounded(ms: number, phase: TimeoutPhase & keyof Timer['limits']): Promise<void> {
    const limit = this.limits[phase]
    const deadline = this.plan.deadlineMs
    const left = deadline === undefined ? Number.POSITIVE_INFINITY : deadline - (performance.now() - this.#started)
    if (ms <= Math.min(limit, left)) {
      if (ms > 0) await abortableSleep(ms, this.signal)
      return
    }
    if (limit <= left) {
      await abortableSleep(limit, this.signal)
      throw timeoutError(this.name, phase, limit)
    }
    await abortableSleep(Math.max(0, left), this.signal)
    throw new OpenAIError({
      status: 504,
      message: `The scripted answer did not finish within its deadline_ms of ${deadline} ms.`,
      type: 'timeout',
      code: 'deadline_exceeded',
    })
  }
}

/** A scripted HTTP error: as written, and final (the gateway neither retries nor falls back) unless `retryable`. */
function scriptedError(error: ScriptedError, clock: () => Date): Error {
  const message = error.message ?? `The script answered with status ${error.status}.`
  const retryHeader = Object.entries(error.headers ?? {}).find(([name]) => name.toLowerCase() === 'retry-after')?.[1]
  if (error.retryable)
    return new ProviderError(error.status, message, {
      type: error.type,
      code: error.code,
      retryable: true,
      retryAfter: retryHeader === undefined ? undefined : parseRetryAfter(retryHeader, clock()),
    })
  const body = error.body === undefined || typeof error.body === 'string' ? error.body : JSON.stringify(error.body)
  return new OpenAIError({
    status: error.status,
    message,
    type: error.type,
    code: error.code,
    headers: error.headers,
    body,
  })
}

/** What a fault throws: an error event's error, or a cut (a whole answer, which cannot be cut, fails with a 502). */
function faultError(fault: NonNullable<Plan['fault']>, whole = false): Error {
  if (fault.kind === 'error')
    return fault.error
      ? scriptedError({ ...fault.error, retryable: false }, () => new Date())
      : new OpenAIError({ status: 500, message: 'The script ended this answer with an error.', code: 'scripted_error' })
  if (whole || fault.kind === 'stall')
    return new OpenAIError({
      status: 502,
      message: 'The script cut the connection before the answer was complete.',
      code: 'scripted_disconnect',
    })
  return new StreamCut(`the scenario cut the connection (${fault.kind}_after_events)`)
}
