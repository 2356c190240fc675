import { Type as t } from '@sinclair/typebox'
import { checkHeaderValue } from '../../../config/chat'
import { Integer } from '../../../http/integer'
import type { ProviderKind } from '../kind'
import { anthropicProvider, type AnthropicProviderOptions } from './anthropic'
import { DEFAULT_ANTHROPIC_MAX_TOKENS, DEFAULT_ANTHROPIC_VERSION, MIN_THINKING_BUDGET } from './settings'

/**
 * `"kind": "anthropic"`: Anthropic's Messages API (`baseUrl` is the prefix before `/messages`, e.g.
 * `https://api.anthropic.com/v1`), translated to and from OpenAI's format and also served natively
 * to `/v1/messages`. Its own settings:
 * - `anthropicVersion` (`2023-06-01`): sent as `anthropic-version`;
 * - `defaultMaxTokens` (4096): the `max_tokens` sent when the client sets neither `max_tokens` nor
 *   `max_completion_tokens`, which the Messages API requires;
 * - `thinkingBudgetTokens` (unset: no extended thinking; at least 1024): every request thinks with this
 *   `budget_tokens` unless it says otherwise.
 *
 * A client asks for thinking with `reasoning_effort`: `minimal` 1024, `low` 2048, `medium` 8192, `high`
 * 16384, `xhigh` 32768 budget tokens; `none` turns the provider's thinking off. The thoughts stream as
 * `reasoning_content`. With thinking and no client limit, `max_tokens` is `defaultMaxTokens` plus the
 * budget; a client limit caps both, the budget shrinking to fit (below 1024 left, `reasoning_effort` is
 * a 400 and the provider's own thinking is skipped).
 */
export const ANTHROPIC_KIND: ProviderKind = {
  settings: {
    anthropicVersion: t.Optional(t.String({ minLength: 1 })),
    defaultMaxTokens: t.Optional(Integer({ minimum: 1 })),
    thinkingBudgetTokens: t.Optional(Integer({ minimum: MIN_THINKING_BUDGET })),
  },
  defaults: { anthropicVersion: DEFAULT_ANTHROPIC_VERSION, defaultMaxTokens: DEFAULT_ANTHROPIC_MAX_TOKENS },
  check(settings, at) {
    if (typeof settings.anthropicVersion === 'string')
      checkHeaderValue(`${at}: anthropicVersion`, settings.anthropicVersion)
  },
  create: (options) => anthropicProvider(options as AnthropicProviderOptions),
}
