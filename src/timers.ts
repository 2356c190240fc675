/**
 * Lets the process exit while `timer` is pending: for timers that serve work (sweeps, pacers,
 * grace periods) and must never be what keeps a server alive. Bun and Node timers have `unref()`;
 * Deno's numeric ids do not, and there the timer stays referenced.
 */
export function unref<T>(timer: T): T {
  ;(timer as { unref?: () => void }).unref?.()
  return timer
}
