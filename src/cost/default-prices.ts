import type { PriceEntry } from '../config/prices'

/** The date the default table was taken: each price below is the provider's published list price on that day. */
const DEFAULT_PRICES_TAKEN = '2025-10-01'

/**
 * The price table that ships, for the models README.md names: US dollars per million tokens, the providers' list
 * prices as published on {@link DEFAULT_PRICES_TAKEN} (standard tier, no batch or volume discount, no regional or
 * long-context surcharge). Prices change: an entry of `prices:` or `TRELLIS_PRICES` of the same name replaces one
 * of these whole, and a model missing here costs nothing and is flagged (`unpriced_requests` in `GET /usage`).
 */
export const DEFAULT_PRICES: Readonly<Record<string, PriceEntry>> = {
  // The built-in models (src/chat/providers/echo/) call no upstream: they cost nothing, and are not unknown.
  echo: { input: 0, output: 0 },
  'echo-reasoner': { input: 0, output: 0 },
  // OpenAI: cached input is half price or less; no separate cache write or reasoning price.
  'gpt-4.1': { input: 2, cached_input: 0.5, output: 8, from: DEFAULT_PRICES_TAKEN },
  'gpt-4o': { input: 2.5, cached_input: 1.25, output: 10, from: DEFAULT_PRICES_TAKEN },
  'gpt-4o-mini': { input: 0.15, cached_input: 0.075, output: 0.6, from: DEFAULT_PRICES_TAKEN },
  // Anthropic, prompts up to 200k tokens: cache reads 0.1× input, 5-minute cache writes 1.25× input.
  'claude-sonnet-4-5': { input: 3, cached_input: 0.3, cache_write: 3.75, output: 15, from: DEFAULT_PRICES_TAKEN },
  // DeepSeek (V3.2 since 2025-09-29): the cache hit price is DeepSeek's `prompt_cache_hit_tokens`.
  'deepseek-chat': { input: 0.28, cached_input: 0.028, output: 0.42, from: DEFAULT_PRICES_TAKEN },
}
