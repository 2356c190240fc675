/** How often, and how patiently, one provider is retried before the registry moves on. */
export type RetryPolicy = { maxRetries: number; retryBaseMs: number; retryMaxMs: number }

/** Waits `ms`, rejecting with the signal's reason as soon as it aborts. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>

/**
 * Back-off before retry number `attempt + 1`. Without advice it is exponential with full jitter
 * (a random wait between 0 and `retryBaseMs × 2^attempt`), so clients that failed together do not
 * retry together. An upstream's `Retry-After` is waited as asked: retrying sooner would be refused.
 * Both are capped at `retryMaxMs`.
 */
export function backoffMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfterSeconds?: number,
  random: () => number = Math.random,
): number {
  if (retryAfterSeconds !== undefined) return Math.min(retryAfterSeconds * 1000, policy.retryMaxMs)
  return Math.floor(random() * Math.min(policy.retryBaseMs * 2 ** attempt, policy.retryMaxMs))
}

/** The registry's {@link Sleep} unless a test passes its own. */
export const abortableSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
