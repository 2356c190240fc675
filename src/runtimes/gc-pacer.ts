/**
 * Full garbage collections on a fixed pace while the server is busy, for the Bun entry when
 * the embedded PGlite database lives in the same process.
 *
 * Why: JavaScriptCore sizes its collection budget from the whole heap, and PGlite's ~400 MB of
 * WebAssembly memory counts towards it. With that in the process, full collections become rare:
 * garbage from busy traffic piles up (each relayed stream also leaves a 256 KB read buffer from
 * Bun's fetch), fresh memory keeps being mapped and faulted in, and RSS grows. Measured on the
 * chat relay benchmark: CPU per relayed stream 503 µs without the pacer and 253–263 µs with a
 * collection every 250–500 ms, the same as the server on PostgreSQL (246–291 µs) where the
 * pacer is off (it made that case slightly worse). See BENCHMARKS.md.
 *
 * A collection runs only when requests are in flight, so an idle server never pays for one.
 *
 * @example
 * const stop = startGcPacer({ intervalMs: 500, busy: () => server.pendingRequests > 0, collect: () => Bun.gc(true) })
 */
export function startGcPacer(options: { intervalMs: number; busy: () => boolean; collect: () => void }): () => void {
  if (options.intervalMs <= 0) return () => {}
  const timer = setInterval(() => {
    if (options.busy()) options.collect()
  }, options.intervalMs)
  // The pacer serves requests; it must never be what keeps the process alive.
  ;(timer as { unref?: () => void }).unref?.()
  return () => clearInterval(timer)
}
