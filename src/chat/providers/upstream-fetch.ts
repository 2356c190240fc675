import { createHttp1Fetch, type UpstreamFetch } from './http1/client'

export type { UpstreamFetch } from './http1/client'

let shared: UpstreamFetch | undefined

/**
 * How the `openai` provider reaches upstreams unless told otherwise: on Bun, the pooled HTTP/1.1
 * client in `http1/client.ts` (one pool per process), which relays a stream for far less CPU and
 * garbage than Bun's `fetch`; elsewhere, and whenever a proxy is configured, the runtime's own
 * `fetch`, which honours `HTTP(S)_PROXY` and `NO_PROXY` where the small client does not.
 */
export function defaultUpstreamFetch(env: Record<string, string | undefined> = process.env): UpstreamFetch {
  if (typeof Bun === 'undefined' || PROXY_VARIABLES.some((name) => env[name])) return fetch
  shared ??= createHttp1Fetch()
  return shared
}

const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'ALL_PROXY', 'all_proxy']
