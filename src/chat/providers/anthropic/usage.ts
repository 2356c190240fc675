import { storable } from '../../../db/storable-text'
import { isObject, type JsonObject } from '../provider'

/**
 * Anthropic's `stop_reason` as OpenAI's `finish_reason`. `pause_turn` (a server tool paused a long
 * turn) ends the answer as far as the client can tell; running out of context is running out of
 * room, as `max_tokens` is.
 */
const FINISH_REASONS: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
}

/**
 * A stop reason we do not know yet is kept for the ledger when short and storable, like a relayed one.
 * Only the table's own keys count: the upstream's `constructor` or `__proto__` would otherwise find
 * Object.prototype's members, and a function as the finish reason broke the route with a 500.
 */
export function finishReasonOf(stopReason: unknown): string | undefined {
  if (typeof stopReason !== 'string') return undefined
  if (Object.hasOwn(FINISH_REASONS, stopReason)) return FINISH_REASONS[stopReason]
  return stopReason.length <= 64 && storable(stopReason) ? stopReason : 'unrecognized'
}

/**
 * Anthropic's usage in OpenAI's shape, with DeepSeek's cache counters. Anthropic counts cache reads
 * and cache writes apart from `input_tokens`; OpenAI's `prompt_tokens` is the whole prompt, so it
 * is their sum, the cache hits are the reads, and `cache_write_tokens` the writes.
 */
export function usageOf(usage: JsonObject): JsonObject {
  const input = count(usage.input_tokens)
  const cacheRead = count(usage.cache_read_input_tokens)
  const cacheWrite = count(usage.cache_creation_input_tokens)
  const prompt = input + cacheRead + cacheWrite
  const completion = count(usage.output_tokens)
  const out: JsonObject = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_cache_hit_tokens: cacheRead,
    prompt_cache_miss_tokens: input + cacheWrite,
    // OpenRouter's name for cache writes: the ledger prices them (src/chat/completion.ts), translated answers show them.
    prompt_tokens_details: { cached_tokens: cacheRead, cache_write_tokens: cacheWrite },
  }
  const details = usage.output_tokens_details
  if (isObject(details) && typeof details.thinking_tokens === 'number')
    out.completion_tokens_details = { reasoning_tokens: details.thinking_tokens }
  return out
}

/**
 * Folds a `message_delta`'s usage into the message's: its counters are running totals for the
 * whole message, present only when they apply, so each replaces and none adds.
 */
export function mergeUsage(into: JsonObject, update: unknown): void {
  if (!isObject(update)) return
  for (const [key, value] of Object.entries(update)) if (value !== null && value !== undefined) into[key] = value
}

const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0)
