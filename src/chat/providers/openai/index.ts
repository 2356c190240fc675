import type { ProviderKind } from '../kind'
import { openaiProvider } from './openai'

/**
 * `"kind": "openai"`, the default: any server speaking OpenAI's `POST /chat/completions` (OpenAI,
 * DeepSeek, vLLM, Ollama, llama.cpp, OpenRouter, another Trellis), relayed as it answers, and its
 * `POST /embeddings`. `baseUrl` is the prefix before `/chat/completions` and `/embeddings`. No settings
 * beyond the common ones.
 */
export const OPENAI_KIND: ProviderKind = {
  settings: {},
  create: (options) => openaiProvider(options),
}
