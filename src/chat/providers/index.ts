import { ANTHROPIC_KIND } from './anthropic'
import { RECORD_KIND, REPLAY_KIND } from './cassette'
import type { ProviderKind } from './kind'
import { OPENAI_KIND } from './openai'
import { SCRIPT_KIND } from './script'

/**
 * Every provider plug-in by the `kind` that names it in `CHAT_PROVIDERS`; the first is the default
 * kind. Adding a provider is a folder of its own and one line here. (`echo` is built in, under its
 * reserved name, and is not configured.)
 */
export const PROVIDER_KINDS: Readonly<Record<string, ProviderKind>> = {
  openai: OPENAI_KIND,
  anthropic: ANTHROPIC_KIND,
  record: RECORD_KIND,
  replay: REPLAY_KIND,
  script: SCRIPT_KIND,
}
