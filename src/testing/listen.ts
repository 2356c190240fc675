import { listenFetch } from '../runtimes/node-http'
import { peerAddressOf } from '../runtimes/peer-address'

type Handler = (request: Request) => Response | Promise<Response>

/** A test server's socket, on whichever runtime runs the tests. */
export type Listener = {
  /** The origin, e.g. `http://127.0.0.1:41234`. */
  origin: string
  /** Lifts the idle timeout of one request (a stream that waits on a scripted stall). */
  keepOpen(request: Request): void
  peerAddress(request: Request): string | undefined
  /** Closes the socket and every connection at once: a test server has no one to drain for. */
  stop(): Promise<void>
}

/**
 * Listens on `port` (0: a free one) of `host`: with `Bun.serve` under Bun, with `node:http` elsewhere (Node's test
 * runner, Vitest). The handler is given the moment the socket is bound, so `handler` may be set after this returns.
 */
export async function listen(handler: () => Handler, host: string, port: number): Promise<Listener> {
  const bun = (globalThis as { Bun?: typeof Bun }).Bun
  if (bun) {
    const server = bun.serve({ port, hostname: host, idleTimeout: 30, fetch: (request) => handler()(request) })
    return {
      origin: server.url.origin,
      keepOpen: (request) => server.timeout(request, 0),
      peerAddress: (request) => server.requestIP(request)?.address,
      stop: () => server.stop(true),
    }
  }
  const server = await listenFetch((request) => handler()(request), { port, hostname: host, keepAliveTimeoutMs: 5_000 })
  return {
    origin: new URL(server.url).origin,
    keepOpen: () => {},
    peerAddress: peerAddressOf,
    stop: async () => {
      const closed = server.drain()
      server.force()
      await closed
    },
  }
}
