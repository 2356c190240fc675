import { DEFAULT_MAX_RESPONSE_BYTES } from '../../../config/chat'
import { choiceIndexes, planAnswer, randomHex, sized, streamSteps, validated } from './answer'
import { type ChunkEmitter, type ChunkHead, ChunkEvents, chunkObjects, stopReason, SYSTEM_FINGERPRINT } from './chunks'
import { flatten, PacedSteps, type Planned } from './pacing'
import type { ChatProvider, ChatRequest, StreamReport } from '../provider'
import { PromptCache } from './tokenizer'
import { echoEmbeddings } from './embeddings'

/**
 * `echo`: the built-in offline provider. It is not a language model and does not pretend
 * to be one; it is deterministic so that clients, tests and benchmarks can rely on it.
 *
 * - It answers with the text of the last `user` message, split by the rule in `tokenizer.ts`
 *   and streamed one token per chunk, `tokenDelayMs` apart (default 0: as fast as possible).
 * - The text is cut before the first `stop` sequence (finish `stop`, and vLLM's `stop_reason`
 *   on the choice names the sequence), then to `max_tokens` / `max_completion_tokens` tokens
 *   (finish `length`, without `stop_reason`).
 * - With `tool_choice` `required` (the first tool) or a named function, it calls that tool
 *   with arguments that are valid JSON for the tool's `parameters` (strings are the user
 *   text; see `exampleFor` in `schema-example.ts`), streamed a token at a time; finish `tool_calls`. With `auto`
 *   or `none` it answers with text.
 * - `response_format` `json_object` answers `{"echo": text}`; `json_schema` answers an
 *   example of the schema, built like tool arguments.
 * - A model named `echo-reasoner…` first streams `reasoning_content` (one fixed sentence),
 *   counted in `completion_tokens` and `reasoning_tokens` and in the `max_tokens` budget.
 * - `logprobs` are deterministic: the sampled token is the most likely one (see `logprobFor` in `logprobs.ts`).
 * - Usage is exact for its tokenizer; cache hits come from `PromptCache`.
 * - `n` identical choices are returned when `n` > 1.
 * - It serves `POST /v1/embeddings` too: deterministic unit vectors made from the input (see `embeddings.ts`).
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
  /**
   * Most bytes of one non-streamed answer (`CHAT_MAX_RESPONSE_BYTES`, default 8 MiB); see `answerTooLarge` in
   * answer.ts. Streams are capped by the route.
   */
  maxResponseBytes?: number
}

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
        choices: choiceIndexes(request).map((index) => ({
          index,
          message,
          logprobs,
          finish_reason: answer.finishReason,
          ...stopReason(answer.stopSequence),
        })),
        usage: answer.usage,
      }
    },

    stream(raw, signal) {
      return flatten(steps(raw, signal, chunkObjects))
    },

    streamEvents(raw, signal, report) {
      return steps(raw, signal, (head) => new ChunkEvents(head), report)
    },

    embeddings: echoEmbeddings(limit),
  }

  /**
   * Each step's chunks (one per choice), as `emitter` makes them, one step per `delay`; the
   * usage chunk is a step of its own. Steps are made synchronously and paced by
   * {@link PacedSteps}: one timer and one promise per step, which matters when thousands of
   * streams are held.
   */
  function steps<T>(
    raw: ChatRequest,
    signal: AbortSignal,
    emitter: (head: ChunkHead) => ChunkEmitter<T>,
    report?: StreamReport,
  ): AsyncIterableIterator<T> {
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

function unixSeconds(clock: () => Date): number {
  return Math.floor(clock().getTime() / 1000)
}

function completionId(): string {
  return `chatcmpl-${randomHex(12)}`
}
