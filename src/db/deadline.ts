/**
 * A limit on how long the server waits for PostgreSQL to answer. postgres.js waits forever: a
 * frozen server, a lost network path or a full pool held every request that touched the database
 * until the client gave up, and the pool with it. A query that outlives the limit rejects with
 * code `QUERY_TIMEOUT`, which routes answer as 503 (src/db/failures.ts).
 *
 * The work itself is not taken back: a write whose answer came too late may still commit. The
 * server-side `statement_timeout` (set to the same limit on every connection) ends slow statements,
 * so a connection stays blocked only while the server or the network does not answer at all.
 */

/** `work`, or a rejection with code `QUERY_TIMEOUT` once `ms` pass. */
export function withDeadline<T>(work: PromiseLike<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`the database did not answer within ${ms} ms`), { code: 'QUERY_TIMEOUT' })), ms)
  })
  return Promise.race([work, expired]).finally(() => clearTimeout(timer))
}

type Queryable = { unsafe(...args: never[]): PromiseLike<unknown>; begin(...args: never[]): Promise<unknown> }

/**
 * `client` (postgres.js) with every statement bounded by `ms`, inside transactions too. A query
 * starts when it is first awaited, so the limit covers the wait for a free connection as well.
 * postgres.js returns the query object itself from `.values()`, so the deadline sits on the
 * instance's `then`, which is what `await` calls.
 */
export function boundedClient<C extends Queryable>(client: C, ms: number): C {
  const bound = (query: PromiseLike<unknown>) => {
    const then = query.then.bind(query)
    Object.defineProperty(query, 'then', {
      value: (onFulfilled?: (value: unknown) => unknown, onRejected?: (reason: unknown) => unknown) =>
        withDeadline({ then } as PromiseLike<unknown>, ms).then(onFulfilled, onRejected),
      configurable: true,
    })
    return query
  }
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe') return (...args: never[]) => bound(target.unsafe(...args))
      if (property === 'begin') {
        // begin([options,] fn): the transaction's own client is bounded as well.
        return (...args: unknown[]) => {
          const fn = args.pop() as (scoped: C) => unknown
          return (target.begin as (...a: unknown[]) => Promise<unknown>)(...args, (scoped: C) => fn(boundedClient(scoped, ms)))
        }
      }
      const value = Reflect.get(target, property, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}
