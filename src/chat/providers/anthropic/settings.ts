/** `anthropic-version` sent when a provider sets none: the version the Messages API is documented against. */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01'

/** `max_tokens` an `anthropic` provider sends when the client sets none (the Messages API requires one). */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096

/** The smallest thinking budget the Messages API accepts. */
export const MIN_THINKING_BUDGET = 1024

/** What `"kind": "anthropic"` adds to the common provider settings (see ./index.ts). */
export type AnthropicSettings = { anthropicVersion?: string; defaultMaxTokens?: number; thinkingBudgetTokens?: number }
