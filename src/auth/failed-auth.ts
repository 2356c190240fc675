import { HttpError } from '../http/errors'

/**
 * Makes token guessing cost the guesser: each client address may fail authentication
 * `perMinute` times a minute (a bucket of that size, refilled continuously); past that, its
 * requests with unverified tokens are refused with 429 before any lookup. Per process, and bounded:
 * the oldest addresses are forgotten first. A token the process has already verified is unaffected,
 * so a flood of random tokens neither locks out valid ones nor pushes them out of the cache.
 */
export class FailedAuthThrottle {
  readonly #buckets = new Map<string, { level: number; at: number }>()
  readonly #perMinute: number
  readonly #maxAddresses: number
  readonly #now: () => number
  readonly #onRefused: () => void

  constructor(options: { perMinute: number; maxAddresses?: number; now?: () => number; onRefused?: () => void }) {
    this.#perMinute = options.perMinute
    this.#maxAddresses = options.maxAddresses ?? 10_000
    this.#now = options.now ?? Date.now
    this.#onRefused = options.onRefused ?? (() => {})
  }

  /** Throws a 429 when `address` has no failures left to spend. */
  check(address: string): void {
    const bucket = this.#refilled(address)
    if (bucket && bucket.level < 1) {
      this.#onRefused()
      const seconds = Math.ceil(((1 - bucket.level) * 60) / this.#perMinute)
      throw new HttpError(429, `Too many failed authentication attempts from this address; retry in ${seconds} s.`, {
        headers: { 'retry-after': String(seconds) },
        code: 'rate_limit_exceeded',
        type: 'requests',
      })
    }
  }

  /** Counts one failed authentication against `address`. */
  failed(address: string): void {
    const bucket = this.#refilled(address) ?? { level: this.#perMinute, at: this.#now() }
    bucket.level -= 1
    this.#buckets.delete(address)
    if (this.#buckets.size >= this.#maxAddresses) this.#buckets.delete(this.#buckets.keys().next().value as string)
    this.#buckets.set(address, bucket)
  }

  #refilled(address: string) {
    const bucket = this.#buckets.get(address)
    if (!bucket) return undefined
    const now = this.#now()
    bucket.level = Math.min(this.#perMinute, bucket.level + ((now - bucket.at) * this.#perMinute) / 60_000)
    bucket.at = now
    return bucket
  }
}

/**
 * The address a request came from: the peer's, or with `trustProxy` the nearest hop in
 * `X-Forwarded-For` (the address the proxy in front of us saw); earlier hops are the client's to
 * forge, so they are never believed.
 */
export function clientAddress(request: Request, peer: string | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for')
    const nearest = forwarded?.split(',').at(-1)?.trim()
    if (nearest) return nearest
  }
  return peer ?? 'unknown'
}
