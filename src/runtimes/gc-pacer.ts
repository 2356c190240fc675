import { unref } from './timers'

/**
 * Full garbage collections on a fixed pace while the server is busy, for the Bun entry when
 * the embedded PGlite database lives in the same process.
 *
 * Why: JavaScriptCore sizes its collection budget from the whole heap, and PGlite's ~400 MB of
 * WebAssembly memory counts towards it. With that in the process, full collections become rare:
 * garbage from busy traffic piles up, fresh memory keeps being mapped and faulted in, and RSS
 * grows. Measured on the chat relay benchmark: CPU per relayed stream 503 µs without the pacer
 * and 253–263 µs with a collection every 250–500 ms when upstreams were read with Bun's fetch;
 * 280–297 µs without and 214–225 µs with it since they are read with the HTTP/1.1 client. On
 * PostgreSQL, where the heap is small, the pacer is off: it made that case no better (223–225 µs
 * off, 227–253 µs on). See BENCHMARKS.md.
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
  unref(timer)
  return () => clearInterval(timer)
}
