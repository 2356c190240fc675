import type { ProviderConfig, ProviderKindSettings } from '../../config/chat'
import type { ChatProvider } from './provider'
import type { UpstreamFetch } from './upstream-fetch'

/** What the registry hands a plug-in's factory: the provider's configuration, and how to reach the world. */
export type ProviderOptions = Omit<ProviderConfig, 'maxRetries' | 'retryBaseMs'> & {
  /** The provider's name in `CHAT_PROVIDERS`; error messages use it instead of the URL. */
  name: string
  /** Defaults to the runtime's `fetch`. */
  fetch?: UpstreamFetch
  clock?: () => Date
  /** Most bytes of a non-streamed answer, after decoding (`CHAT_MAX_RESPONSE_BYTES`); past it, 502. */
  maxResponseBytes?: number
  /**
   * Most bytes one streamed event may hold before it ends (`CHAT_MAX_EVENT_BYTES`); past it, the stream ends with an
   * error.
   */
  maxEventBytes?: number
  /** Every configured provider by name, defaults applied: for a kind that wraps another (record). */
  providers?: Readonly<Record<string, ProviderConfig>>
}

/**
 * A provider plug-in: the settings its `kind` adds to the common ones (which configuration
 * validates at start) and the factory of its providers. Registered in ./index.ts.
 */
export type ProviderKind = ProviderKindSettings & { create(options: ProviderOptions): ChatProvider }
