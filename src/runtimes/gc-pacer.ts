import { unref } from '../timers'

/**
 * Full garbage collections on a fixed pace while the server is busy, for the Bun entry when
 * the embedded PGlite database lives in the same process.
 *
 * Why: JavaScriptCore sizes its collection budget from the whole heap, and PGlite's ~400 MB of
 * WebAssembly memory counts towards it. With that in the process, full collections become rare:
 * garbage from busy traffic piles up, and fresh memory keeps being mapped and faulted in. Measured
 * on Bun 1.4.4 relaying at full load on PGlite: peak RSS 1.5–1.7 GB without the pacer and ~490 MB
 * with a collection every 500 ms, for the same CPU per stream on that host (on Bun 1.3 it also
 * halved that CPU). Re-measured interleaved on 2026-11-25 (BENCHMARKS.md, "The GC pacer on Bun
 * 1.4"): 2.3–2.5× less peak RSS under full relay load and 30–40% less per held stream, for about
 * 40% more CPU per stream when events arrive back to back. Kept, for memory; GC_INTERVAL_MS=0
 * trades it for throughput. On PostgreSQL, where the heap is small, the pacer is off: RSS was
 * 116–124 MB either way.
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
