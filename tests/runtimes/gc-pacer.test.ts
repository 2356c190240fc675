import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { startGcPacer } from '../../src/runtimes/gc-pacer'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * The pacer asks `busy()` once per tick, so the test counts ticks rather than guessing how many
 * fit in a stretch of wall time (which a slow runner would get wrong).
 */
function pacerProbe() {
  let asked = 0
  let waiter: { at: number; resolve: () => void } | undefined
  return {
    busy: false,
    collections: 0,
    onAsk() {
      asked++
      if (waiter && asked >= waiter.at) waiter.resolve()
    },
    /** Resolves once `n` more ticks have run. */
    ticks(n: number) {
      return new Promise<void>((resolve) => (waiter = { at: asked + n, resolve }))
    },
  }
}

describe('paced garbage collection', () => {
  test('collects on every tick while requests are in flight, and never while idle', async () => {
    const probe = pacerProbe()
    const stop = startGcPacer({
      intervalMs: 5,
      busy: () => (probe.onAsk(), probe.busy),
      collect: () => probe.collections++,
    })
    await probe.ticks(3)
    expect(probe.collections).toBe(0)
    probe.busy = true
    const before = probe.collections
    await probe.ticks(3)
    // The wait resumes after the tick that resolved it has finished, collection included.
    expect(probe.collections - before).toBe(3)
    stop()
    const after = probe.collections
    await Bun.sleep(30)
    expect(probe.collections).toBe(after)
  })

  test('an interval of 0 turns it off', async () => {
    let asked = 0
    startGcPacer({ intervalMs: 0, busy: () => (asked++, true), collect: () => {} })
    await Bun.sleep(30)
    expect(asked).toBe(0)
  })
})
