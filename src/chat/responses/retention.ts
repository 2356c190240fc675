import type { Logger } from '../../telemetry/logger'
import { unref } from '../../timers'
import type { ResponseStore } from './store'

/*
 * Stored responses live `RESPONSES_RETENTION_DAYS`; reads skip expired ones at once, and this sweep
 * deletes them later, in bounded work: every {@link SWEEP_INTERVAL_MS}, at most
 * {@link MAX_BATCHES} deletes of {@link BATCH} responses each (with their items), so that a backlog
 * after downtime is worked off over several sweeps instead of in one long statement. Every replica
 * sweeps; two deleting the same rows only find fewer.
 */

const SWEEP_INTERVAL_MS = 10 * 60_000
const FIRST_SWEEP_MS = 60_000
const BATCH = 500
const MAX_BATCHES = 20

/** One sweep: how many expired responses it deleted. */
export async function sweepExpired(store: ResponseStore, now: Date): Promise<number> {
  let total = 0
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const deleted = await store.deleteExpired(now, BATCH)
    total += deleted
    if (deleted < BATCH) break
  }
  return total
}

/**
 * Sweeps every ten minutes, the first a minute after start, until `stop` aborts (the server's
 * shutdown). The timer never keeps the process alive, and a sweep that fails (the database away)
 * is logged and tried again at the next.
 */
export function startRetentionSweep(
  store: ResponseStore,
  options: { clock: () => Date; logger: Logger; stop: AbortSignal; firstMs?: number; everyMs?: number },
): void {
  if (options.stop.aborted) return
  let running = false
  const sweep = async () => {
    if (running) return
    running = true
    try {
      const deleted = await sweepExpired(store, options.clock())
      if (deleted > 0) options.logger.info('expired responses deleted', { deleted })
    } catch (error) {
      options.logger.warn('the sweep of expired responses failed', {
        error: error instanceof Error ? error.message : String(error),
      })
    } finally {
      running = false
    }
  }
  const first = unref(setTimeout(() => void sweep(), options.firstMs ?? FIRST_SWEEP_MS))
  const every = unref(setInterval(() => void sweep(), options.everyMs ?? SWEEP_INTERVAL_MS))
  options.stop.addEventListener(
    'abort',
    () => {
      clearTimeout(first)
      clearInterval(every)
    },
    { once: true },
  )
}
