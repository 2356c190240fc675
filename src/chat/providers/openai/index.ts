import { Type as t } from '@sinclair/typebox'
import type { ProviderKind } from '../kind'
import { openaiProvider } from './openai'
import type { OpenAIProviderOptions } from './transport'

/**
 * `"kind": "openai"`, the default: any server speaking OpenAI's `POST /chat/completions` (OpenAI,
 * DeepSeek, vLLM, Ollama, llama.cpp, OpenRouter, another Trellis), relayed as it answers, and its
 * `POST /embeddings`. `baseUrl` is the prefix before `/chat/completions` and `/embeddings`. Its own setting:
 * - `responses` (`"translate"` when absent): `"native"` for upstreams that serve OpenAI's Responses
 *   API themselves (OpenAI, Azure, vLLM…): `/v1/responses` is then relayed to `${baseUrl}/responses`
 *   with only `model` rewritten, its events byte for byte (see ./responses.ts); `"translate"` serves
 *   `/v1/responses` through `/chat/completions`, which any upstream of this kind speaks.
 */
export const OPENAI_KIND: ProviderKind = {
  settings: {
    responses: t.Optional(t.Union([t.Literal('native'), t.Literal('translate')])),
  },
  create: (options) => openaiProvider(options as OpenAIProviderOptions),
}
