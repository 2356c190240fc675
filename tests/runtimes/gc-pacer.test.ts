import { describe, expect, test } from 'bun:test'
import { startGcPacer } from '../../src/runtimes/gc-pacer'

describe('paced garbage collection', () => {
  test('collects on every tick while requests are in flight, and never while idle', async () => {
    let busy = false
    let collections = 0
    const stop = startGcPacer({ intervalMs: 10, busy: () => busy, collect: () => collections++ })
    await Bun.sleep(60)
    expect(collections).toBe(0)
    busy = true
    await Bun.sleep(60)
    expect(collections).toBeGreaterThanOrEqual(3)
    stop()
    const after = collections
    await Bun.sleep(40)
    expect(collections).toBe(after)
  })

  test('an interval of 0 turns it off', async () => {
    let collections = 0
    startGcPacer({ intervalMs: 0, busy: () => true, collect: () => collections++ })
    await Bun.sleep(30)
    expect(collections).toBe(0)
  })
})
