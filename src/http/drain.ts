/**
 * What a serving process needs to stop cleanly: whether it is draining, and how many requests
 * are being handled right now, so that the database closes only after the last of them.
 *
 * A request counts from the moment the runtime hands it over until its `Response` exists; a
 * stream's body goes on after that, but streams never touch the database once they have begun.
 *
 * @example
 * const gate = new RequestGate()
 * Bun.serve({ fetch: gate.track(app.fetch) })
 * // on SIGTERM:
 * gate.startDraining(); await server.stop(); await gate.idle(10_000); await database.close()
 */
export class RequestGate {
  #draining = false
  #inFlight = 0
  #waiters: (() => void)[] = []

  get draining(): boolean {
    return this.#draining
  }

  get inFlight(): number {
    return this.#inFlight
  }

  /** From now on, responses say `Connection: close`, and requests that arrive are refused with 503. */
  startDraining(): void {
    this.#draining = true
  }

  /** `fetch`, counting the requests it is handling. */
  track<Args extends unknown[]>(fetch: (request: Request, ...rest: Args) => Response | Promise<Response>) {
    return async (request: Request, ...rest: Args): Promise<Response> => {
      this.#inFlight++
      try {
        return await fetch(request, ...rest)
      } finally {
        if (--this.#inFlight === 0) for (const wake of this.#waiters.splice(0)) wake()
      }
    }
  }

  /** Resolves once no request is being handled, or after `timeoutMs`; true when it was idle. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.#inFlight === 0) return Promise.resolve(true)
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs)
      this.#waiters.push(() => {
        clearTimeout(timer)
        resolve(true)
      })
    })
  }
}
