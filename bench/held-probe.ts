/**
 * The servers' side of bench/chat-held-streams.ts's GC probe, shared by Trellis's `--serve` child and the floor
 * (bench/held-floor.ts), so both answer it alike. Imports nothing but `bun:jsc`, so that it adds nothing to the floor.
 */
import { heapStats } from 'bun:jsc'

/** What a server reports after a full GC: RSS, live JS heap, the heap's capacity, and live objects by type. */
export type AfterGc = { rss: number; heap: number; capacity: number; counts: Record<string, number> }

/** Answers each `gc` line on stdin with a full GC and then its {@link AfterGc} as one JSON line on stdout. */
export async function answerGcProbes(): Promise<void> {
  const decoder = new TextDecoder()
  const reader = Bun.stdin.stream().getReader()
  for (let piece = await reader.read(); !piece.done; piece = await reader.read()) {
    for (const _request of decoder.decode(piece.value).split('\n').filter(Boolean)) {
      Bun.gc(true)
      const stats = heapStats()
      const figures: AfterGc = {
        rss: process.memoryUsage.rss(),
        heap: stats.heapSize,
        capacity: stats.heapCapacity,
        counts: stats.objectTypeCounts,
      }
      process.stdout.write(`${JSON.stringify(figures)}\n`)
    }
  }
}
