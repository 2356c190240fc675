/**
 * A limit on how long the server waits for PostgreSQL to answer. postgres.js waits forever: a
 * frozen server, a lost network path or a full pool held every request that touched the database
 * until the client gave up, and the pool with it. A statement or transaction that outlives the
 * limit rejects with code `QUERY_TIMEOUT`, which routes answer as 503 (src/db/failures.ts).
 *
 * At the limit the statement is also cancelled (postgres.js `query.cancel()`): one still waiting in
 * the pool's queue is dropped and never sent, and one the server is running is ended by a cancel
 * request, as `statement_timeout` would (which is not set as a connection parameter: PgBouncer refuses
 * unknown startup parameters). postgres.js also pipelines a query behind a running one on a busy
 * connection; that one is cancelled when its turn comes, and a quick write can beat the cancel. So a
 * write answered 503 may still commit: behind a slow statement, or when the server answers nothing at
 * all, not even the cancel request, and comes back later.
 */

/** `work`, or a rejection with code `QUERY_TIMEOUT` once `ms` pass (then `onExpire` runs). */
export function withDeadline<T>(work: PromiseLike<T>, ms: number, onExpire?: () => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(Object.assign(new Error(`the database did not answer within ${ms} ms`), { code: 'QUERY_TIMEOUT' }))
      onExpire?.()
    }, ms)
  })
  return Promise.race([work, expired]).finally(() => clearTimeout(timer))
}

type Cancellable = PromiseLike<unknown> & { cancel?: () => unknown }
type Queryable = { unsafe(...args: never[]): Cancellable; begin(...args: never[]): Promise<unknown> }

/**
 * `client` (postgres.js) with every statement, and every transaction as a whole, bounded by `ms`.
 * A query starts when it is first awaited, so the limit covers the wait for a free connection as
 * well. postgres.js returns the query object itself from `.values()`, so the deadline sits on the
 * instance's `then`, which is what `await` calls. `begin` and `savepoint` run their own BEGIN,
 * COMMIT and ROLLBACK out of sight of `unsafe`, so the whole transaction gets the limit too.
 */
export function boundedClient<C extends Queryable>(client: C, ms: number): C {
  const bound = (query: Cancellable) => {
    const then = query.then.bind(query)
    Object.defineProperty(query, 'then', {
      value: (onFulfilled?: (value: unknown) => unknown, onRejected?: (reason: unknown) => unknown) =>
        withDeadline({ then } as PromiseLike<unknown>, ms, () => cancel(query)).then(onFulfilled, onRejected),
      configurable: true,
    })
    return query
  }
  // begin([options,] fn) and savepoint([name,] fn): the transaction's own client is bounded as well.
  const transaction =
    (run: (...args: unknown[]) => Promise<unknown>) =>
    (...args: unknown[]) => {
      const fn = args.pop() as (scoped: C) => unknown
      return withDeadline(
        run(...args, (scoped: C) => fn(boundedClient(scoped, ms))),
        ms,
      )
    }
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe') return (...args: never[]) => bound(target.unsafe(...args))
      if (property === 'begin' || property === 'savepoint') {
        const run = Reflect.get(target, property, receiver) as ((...args: unknown[]) => Promise<unknown>) | undefined
        return run && transaction(run.bind(target))
      }
      const value = Reflect.get(target, property, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/** Cancels a postgres.js query; a cancel that cannot reach a frozen server fails quietly. */
function cancel(query: Cancellable): void {
  try {
    const pending = query.cancel?.()
    if (pending && typeof (pending as Promise<unknown>).catch === 'function')
      (pending as Promise<unknown>).catch(() => {})
  } catch {
    // Nothing to cancel: it finished or failed as the limit passed.
  }
}
