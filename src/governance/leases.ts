import { unref } from '../timers'
import type { QuotaKey, QuotaShape, QuotaStore } from './quota-store'

/**
 * Quota taken from the shared table in blocks, so that most requests are admitted from memory:
 * a database round trip per request on one hot row would cap a gateway at a few thousand requests
 * a second, whatever the limit.
 *
 * Each process holds, per token and kind, a lease: units taken from the shared pool and not yet
 * used. A request that its lease covers costs nothing more; one that it does not takes a new block
 * (about a twentieth of the limit, at least what the request needs), with requests waiting on the
 * same key sharing one round trip. Units a lease has not used within {@link LEASE_IDLE_MS} go back
 * to the pool. So:
 * - the replicas together never admit more than the limit: every unit comes out of one row;
 * - a burst spread over N replicas can be cut short of the limit by at most the blocks the other
 *   N - 1 replicas hold unused, (N - 1) × limit / 20, and for at most LEASE_IDLE_MS plus one sweep.
 *
 * A process that dies (kill -9) cannot give anything back: what it held of a counter (its leases,
 * its requests' stream slots and budget reservations) is recorded per process in `quota_holdings`
 * and reconciled by a survivor once its heartbeat goes stale (holders.ts). A bucket's units are not
 * given back: it refills by itself within its period.
 */
export const LEASE_IDLE_MS = 2_000
const SWEEP_MS = 1_000
/** One block is this fraction of the limit (at least one unit, at least what the request needs). */
const BLOCK_FRACTION = 1 / 20

/** What admitting `units` came to. `remaining` is this process's view: its lease plus the pool's last known level. */
export type Taken = { ok: true; remaining: number } | { ok: false; remaining: number; shortBy: number }

type Lease = {
  key: QuotaKey
  shape: QuotaShape
  limit: number
  units: number
  poolLeft: number
  usedAt: number
  fetching?: Promise<void>
  /** Until then the pool is taken to be empty: a refused request costs no round trip. */
  emptyUntil: number
}

/** How long an empty counter (streams, budget) is believed empty before the pool is asked again. */
export const EMPTY_COUNTER_MS = 250

export class QuotaLeases {
  readonly #leases = new Map<string, Lease>()
  readonly #store: QuotaStore
  readonly #now: () => number
  #sweeper: ReturnType<typeof setInterval> | undefined

  constructor(store: QuotaStore, now: () => number = () => performance.now()) {
    this.#store = store
    this.#now = now
  }

  /**
   * Takes `units` (all or none) from the lease of `key`, topping the lease up from the pool when it
   * runs short: concurrent takers share one round trip, and keep topping up while the pool gives all
   * they ask. Once it gives less, the pool is empty, and is believed so for as long as it takes to
   * refill what was missing (a bucket) or a moment (a counter), so that refusals cost no round trip.
   */
  async take(key: QuotaKey, shape: QuotaShape, limit: number, units: number): Promise<Taken> {
    const lease = this.#lease(key, shape, limit)
    lease.usedAt = this.#now()
    for (;;) {
      if (lease.units >= units) {
        lease.units -= units
        return { ok: true, remaining: Math.max(0, lease.units + lease.poolLeft) }
      }
      if (lease.fetching) {
        await lease.fetching
        continue
      }
      const need = units - lease.units
      if (this.#now() < lease.emptyUntil)
        return { ok: false, remaining: Math.max(0, lease.units + lease.poolLeft), shortBy: need }
      const want = Math.max(need, Math.ceil(limit * BLOCK_FRACTION))
      const fetching = this.#store.take(key, shape, limit, want, 1).then((grant) => {
        lease.units += grant.granted
        lease.poolLeft = grant.left
        if (grant.granted < want) {
          // Believed empty for as long as the bucket takes to refill what this take needs (at most 1 s).
          const missing = Math.max(1, need - grant.granted)
          lease.emptyUntil =
            this.#now() +
            (shape.kind === 'bucket'
              ? Math.min(1_000, (missing * shape.refillSeconds * 1000) / limit)
              : EMPTY_COUNTER_MS)
        }
      })
      lease.fetching = fetching
      try {
        await fetching
      } finally {
        lease.fetching = undefined
      }
      if (lease.units < units && this.#now() < lease.emptyUntil)
        return {
          ok: false,
          remaining: Math.max(0, lease.units + lease.poolLeft),
          shortBy: units - Math.max(0, lease.units),
        }
    }
  }

  /** Gives units back to this process's lease (a stream that ended, a reservation larger than the usage). */
  giveBack(key: QuotaKey, shape: QuotaShape, limit: number, units: number): void {
    const lease = this.#lease(key, shape, limit)
    lease.units += units
    lease.usedAt = this.#now()
    lease.emptyUntil = 0
  }

  /**
   * Charges units beyond what was taken (usage larger than its reservation): out of the lease if
   * it has them, the rest straight to the pool, which may then stand below zero for a while.
   */
  async charge(key: QuotaKey, shape: QuotaShape, limit: number, units: number): Promise<void> {
    const lease = this.#lease(key, shape, limit)
    const fromLease = Math.min(Math.max(0, lease.units), units)
    lease.units -= fromLease
    if (units > fromLease) await this.#store.charge(key, shape, limit, units - fromLease)
  }

  /** Starts returning idle leases' units to the pool every second (unref'd: it keeps no process alive). */
  start(): void {
    this.#sweeper ??= unref(setInterval(() => void this.returnIdle(LEASE_IDLE_MS).catch(() => {}), SWEEP_MS))
  }

  /** Returns the units of leases unused for `idleMs` (all of them with 0), e.g. before the process stops. */
  async returnIdle(idleMs: number): Promise<void> {
    const now = this.#now()
    const returning: Promise<void>[] = []
    for (const [id, lease] of this.#leases) {
      if (lease.fetching || now - lease.usedAt < idleMs) continue
      const units = Math.floor(lease.units)
      this.#leases.delete(id)
      if (units > 0) returning.push(this.#store.give(lease.key, lease.shape, lease.limit, units))
    }
    await Promise.all(returning)
  }

  /**
   * Drops the counters' leases without giving them back: their holder was declared dead, and its holdings were
   * reconciled by another process (src/governance/holders.ts). A take in flight fills a lease no longer listed.
   */
  forgetCounters(): void {
    for (const [id, lease] of this.#leases) if (lease.shape.kind === 'counter') this.#leases.delete(id)
  }

  async stop(): Promise<void> {
    clearInterval(this.#sweeper)
    this.#sweeper = undefined
    await this.returnIdle(0)
  }

  #lease(key: QuotaKey, shape: QuotaShape, limit: number): Lease {
    const id = `${key.tokenId}\u0000${key.kind}\u0000${key.period}`
    let lease = this.#leases.get(id)
    if (!lease) {
      lease = { key, shape, limit, units: 0, poolLeft: limit, usedAt: this.#now(), emptyUntil: 0 }
      this.#leases.set(id, lease)
    } else if (lease.limit !== limit) {
      // The limit changed (PATCH /admin/tokens): later takes and gives use the new one.
      lease.limit = limit
    }
    return lease
  }
}
