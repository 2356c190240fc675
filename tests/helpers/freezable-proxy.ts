import type { Socket } from 'bun'

type Direction = 'to upstream' | 'to client'
type Pair = { client: Socket<Pair>; upstream?: Socket<Pair>; held: [Direction, Uint8Array][] }

/**
 * A TCP relay to `target` that can be frozen: while frozen it accepts bytes from both sides and
 * forwards none, as a stopped (SIGSTOP) server or a silent network path would. Thawing forwards
 * what was held, in order.
 */
export function freezableProxy(target: { hostname: string; port: number }) {
  let frozen = false
  const pairs = new Set<Pair>()
  const send = (pair: Pair, direction: Direction, bytes: Uint8Array) => {
    const to = direction === 'to client' ? pair.client : pair.upstream
    if (frozen || !to || pair.held.length > 0) pair.held.push([direction, bytes])
    else to.write(bytes)
  }
  const release = (pair: Pair) => {
    while (!frozen && pair.upstream && pair.held.length > 0) {
      const [direction, bytes] = pair.held.shift()!
      ;(direction === 'to client' ? pair.client : pair.upstream).write(bytes)
    }
  }
  const listener = Bun.listen<Pair>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      async open(client) {
        const pair: Pair = { client, held: [] }
        client.data = pair
        pairs.add(pair)
        pair.upstream = await Bun.connect<Pair>({
          ...target,
          data: pair,
          socket: {
            data: (_, bytes) => send(pair, 'to client', new Uint8Array(bytes)),
            close: () => void (pairs.delete(pair), pair.client.end()),
            error: () => void pair.client.end(),
          },
        })
        release(pair)
      },
      data: (client, bytes) => send(client.data, 'to upstream', new Uint8Array(bytes)),
      close: (client) => void (pairs.delete(client.data), client.data.upstream?.end()),
      error: (client) => void client.data.upstream?.end(),
    },
  })
  return {
    url: (database: string) => `postgres://postgres@127.0.0.1:${listener.port}/${database}`,
    freeze: () => void (frozen = true),
    thaw: () => {
      frozen = false
      for (const pair of pairs) release(pair)
    },
    stop: () => {
      for (const pair of pairs) pair.client.end(), pair.upstream?.end()
      listener.stop(true)
    },
  }
}
