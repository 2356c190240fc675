import { HttpError } from '../http/errors'

/** How governance refuses: the 429 and the headers that say how long to wait (src/governance/service.ts). */

/**
 * A 429: in the plant store's contract `{error: 429, message}`, under the chat routes OpenAI's
 * `rate_limit_exceeded` with `type` `requests` or `tokens`, or `insufficient_quota` once the
 * month's budget is spent. Always with `Retry-After`. A spent budget also says `x-should-retry:
 * false`: it renews only with the month, and the OpenAI and Anthropic SDKs, which retry a 429 at
 * once (a few times, within seconds) unless told not to, would only spend requests on it. A rate
 * limit lets them retry: a minute's bucket refills soon.
 */
export class RateLimited extends HttpError {
  constructor(
    message: string,
    kind: 'requests' | 'tokens' | 'insufficient_quota',
    retryAfterSeconds: number,
    headers: Record<string, string> = {},
  ) {
    const advice: Record<string, string> = kind === 'insufficient_quota' ? { 'x-should-retry': 'false' } : {}
    super(429, message, {
      headers: { ...headers, ...advice, 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
      code: kind === 'insufficient_quota' ? 'insufficient_quota' : 'rate_limit_exceeded',
      type: kind,
    })
    this.name = 'RateLimited'
  }
}

/** Until the month's budgets renew: midnight UTC on the 1st. */
export function secondsToNextMonth(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)
  return (next - now.getTime()) / 1000
}

/** How long a per-minute bucket takes to refill `units`. */
export function secondsToRefill(units: number, perMinute: number): number {
  return (units * 60) / perMinute
}

/** OpenAI's `x-ratelimit-*-requests` headers of an `rpm` admission. */
export function requestHeaders(limit: number, remaining: number): Record<string, string> {
  return {
    'x-ratelimit-limit-requests': String(limit),
    'x-ratelimit-remaining-requests': String(Math.floor(remaining)),
    'x-ratelimit-reset-requests': duration(secondsToRefill(limit - remaining, limit)),
  }
}

/** OpenAI's `x-ratelimit-*-tokens` headers of a `tpm` admission. */
export function tokenHeaders(limit: number, remaining: number): Record<string, string> {
  return {
    'x-ratelimit-limit-tokens': String(limit),
    'x-ratelimit-remaining-tokens': String(Math.floor(remaining)),
    'x-ratelimit-reset-tokens': duration(secondsToRefill(limit - remaining, limit)),
  }
}

/** OpenAI's spelling of a wait: `0s`, `120ms`, `17s`, `6m0s`. */
function duration(seconds: number): string {
  if (seconds <= 0) return '0s'
  if (seconds < 1) return `${Math.ceil(seconds * 1000)}ms`
  const whole = Math.ceil(seconds)
  return whole < 60 ? `${whole}s` : `${Math.floor(whole / 60)}m${whole % 60}s`
}
