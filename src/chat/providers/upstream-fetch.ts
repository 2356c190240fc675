/**
 * How a provider sends one upstream request: the runtime's `fetch` unless a test or benchmark
 * passes its own. Bun 1.4's `fetch` verifies certificates (chain, host name, expiry, key usage),
 * honours `NODE_EXTRA_CA_CERTS` and `HTTP(S)_PROXY`/`NO_PROXY`, and reuses connections; see the
 * README's dependency notes for why the hand-made HTTP/1.1 client it replaced was retired.
 */
export type UpstreamFetch = (url: string, init: UpstreamRequestInit) => Promise<Response>

type UpstreamRequestInit = {
  method: string
  headers: Record<string, string>
  body?: string
  signal?: AbortSignal
}
