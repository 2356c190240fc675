import type { TLSOptions } from 'bun'
import { ConnectionPool, type Target } from './connection'
import { Exchange } from './exchange'

/** The part of `fetch` the `openai` provider uses; the global `fetch` is one. */
export type UpstreamFetch = (url: string, init: UpstreamRequestInit) => Promise<Response>
export type UpstreamRequestInit = { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal }

export type Http1FetchOptions = {
  /** Extra TLS settings for https upstreams (tests pass their own CA); certificates are always verified. */
  tls?: TLSOptions
  /** How long an unused connection stays pooled (to within half a second). Below the 5 s that Node-based servers keep one open. */
  idleSeconds?: number
}

/**
 * A minimal HTTP/1.1 client over Bun's TCP sockets, with the same contract as `fetch` for what the
 * `openai` provider sends: one request with a string body, and a response whose body streams.
 *
 * Why not Bun's `fetch`: its response body allocates a fresh 256 KB buffer for nearly every read
 * (`#getInternalBuffer` in Bun's stream internals), because a read that fills part of the buffer
 * leaves less than a whole buffer free. A chat stream is read once per token, so a relayed stream
 * cost about 20 µs and 256 KB of garbage per upstream read; that was the largest single cost of
 * relaying in the profiles (BENCHMARKS.md). Here each read hands on the bytes the socket gave.
 *
 * What it does: http and https (certificates verified), keep-alive connections pooled per origin,
 * `Content-Length`, chunked and close-delimited bodies, interim 1xx responses skipped, gzip,
 * deflate and br bodies decoded (it asks for `identity`, so they are rare), backpressure (a body
 * nobody reads pauses its socket), and `AbortSignal`. What it leaves to `fetch`: proxies (see
 * {@link defaultUpstreamFetch}), redirects (an API upstream does not redirect POSTs), HTTP/2.
 */
export function createHttp1Fetch(options: Http1FetchOptions = {}): UpstreamFetch & { closeIdle(): void } {
  const pool = new ConnectionPool(options.tls, options.idleSeconds ?? 4)
  const fetch = (url: string, init: UpstreamRequestInit) => request(pool, url, init)
  return Object.assign(fetch, { closeIdle: () => pool.closeIdle() })
}

async function request(pool: ConnectionPool, url: string, init: UpstreamRequestInit): Promise<Response> {
  const target = targetOf(url)
  const payload = encodeRequest(target, init)
  const signal = init.signal
  signal?.throwIfAborted()
  const connection = pool.idle(target.origin) ?? (await pool.connect(target, signal))
  return new Promise<Response>((resolve, reject) => new Exchange(connection, payload, signal, resolve, reject))
}

/** Parsed once per URL: a provider posts to the same one every time. */
const targets = new Map<string, Target>()

function targetOf(url: string): Target {
  let target = targets.get(url)
  if (target) return target
  const parsed = new URL(url)
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError(`Only http and https URLs are supported, got '${url}'`)
  const tls = parsed.protocol === 'https:'
  const hostname = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname
  target = { origin: parsed.origin, tls, hostname, port: Number(parsed.port || (tls ? 443 : 80)), hostHeader: parsed.host, path: `${parsed.pathname}${parsed.search}` }
  if (targets.size < 256) targets.set(url, target)
  return target
}

const encoder = new TextEncoder()
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const HEADER_VALUE = /^[^\r\n\0]*$/

function encodeRequest(target: Target, init: UpstreamRequestInit): Uint8Array {
  const body = init.body === undefined ? undefined : encoder.encode(init.body)
  let head = `${init.method} ${target.path} HTTP/1.1\r\nhost: ${target.hostHeader}\r\n`
  let acceptEncoding = false
  let userAgent = false
  for (const name in init.headers) {
    const value = init.headers[name]
    if (!HEADER_NAME.test(name) || !HEADER_VALUE.test(value)) throw new TypeError(`Invalid request header '${name}'`)
    const lower = name.toLowerCase()
    if (lower === 'host' || lower === 'content-length' || lower === 'transfer-encoding' || lower === 'connection') continue
    if (lower === 'accept-encoding') acceptEncoding = true
    if (lower === 'user-agent') userAgent = true
    head += `${name}: ${value}\r\n`
  }
  // Identity: a compressed event stream would have to be inflated before it could be relayed.
  if (!acceptEncoding) head += 'accept-encoding: identity\r\n'
  if (!userAgent) head += 'user-agent: trellis\r\n'
  if (body) head += `content-length: ${body.length}\r\n`
  const headBytes = encoder.encode(`${head}\r\n`)
  if (!body) return headBytes
  const bytes = new Uint8Array(headBytes.length + body.length)
  bytes.set(headBytes)
  bytes.set(body, headBytes.length)
  return bytes
}
