import type { Socket, SocketHandler, TLSOptions } from 'bun'
import { checkServerIdentity, type PeerCertificate } from 'node:tls'
import { unref } from '../../../runtimes/timers'
import type { Exchange } from './exchange'

/** Where a request goes, parsed once per URL. */
export type Target = { origin: string; tls: boolean; hostname: string; port: number; hostHeader: string; path: string }

/** One socket to one origin, serving one exchange at a time. */
export class Connection {
  socket: Socket<Connection> | undefined
  exchange: Exchange | undefined
  closed = false
  /** When it last went back to the pool (performance.now()). */
  idleSince = 0
  /** Settles when a TLS connection's certificate has been checked. */
  #verifying: { resolve: () => void; reject: (error: Error) => void } | undefined

  constructor(
    readonly origin: string,
    readonly pool: ConnectionPool,
    readonly hostname: string,
  ) {}

  verified(): Promise<void> {
    return new Promise((resolve, reject) => (this.#verifying = { resolve, reject }))
  }

  /**
   * Bun's TCP sockets complete a TLS handshake whatever the certificate, even with
   * `rejectUnauthorized: true` (checked under Bun 1.3.14: a self-signed certificate connects and
   * reports `authorized: true`). So the two checks Node's `tls.connect` makes are made here: the
   * chain's verification result, and the certificate's names against the host.
   */
  onHandshake(socket: Socket<Connection>, success: boolean, error: Error | null): void {
    const verifying = this.#verifying
    this.#verifying = undefined
    let problem: Error | undefined
    try {
      const certificate = socket.getPeerCertificate() as PeerCertificate | undefined
      // A failed handshake (plain HTTP on the port, no common TLS version) has no error and no certificate.
      if (error) problem = error
      else if (!success || !certificate) problem = new Error('TLS handshake failed')
      else problem = checkServerIdentity(this.hostname, certificate)
    } catch (thrown) {
      problem = thrown instanceof Error ? thrown : new Error(String(thrown))
    }
    if (!problem) return verifying?.resolve()
    this.closed = true
    socket.terminate()
    verifying?.reject(problem)
  }

  onClose(error: Error | undefined): void {
    this.#verifying?.reject(error ?? new Error('the connection closed during the TLS handshake'))
    this.#verifying = undefined
    this.exchange?.onClose(error)
  }

  destroy(): void {
    this.closed = true
    this.socket?.terminate()
  }
}

const HANDLERS: SocketHandler<Connection, 'uint8array'> = {
  binaryType: 'uint8array',
  // Bytes on a connection with no request in flight can only be garbage: it is not reused.
  data: (socket, bytes) => (socket.data.exchange ? socket.data.exchange.onData(bytes) : socket.data.destroy()),
  drain: (socket) => socket.data.exchange?.onDrain(),
  // The server's FIN: a close-delimited body ends, anything else in flight broke off.
  end: (socket) => closed(socket.data, undefined),
  close: (socket, error) => closed(socket.data, error),
  error: (socket, error) => closed(socket.data, error),
  open: (socket) => {
    socket.data.socket = socket
    // Given up on (aborted) while it was connecting.
    if (socket.data.closed) socket.terminate()
  },
  connectError: () => {},
  handshake: (socket, success, error) => socket.data.onHandshake(socket, success, error),
}

function closed(connection: Connection, error: Error | undefined): void {
  if (connection.closed && !connection.exchange) return
  connection.closed = true
  connection.pool.forget(connection)
  connection.onClose(error)
  connection.socket?.terminate()
}

export class ConnectionPool {
  readonly #idle = new Map<string, Connection[]>()
  #idleCount = 0
  #sweeper: ReturnType<typeof setInterval> | undefined
  readonly #idleMs: number

  constructor(
    readonly tls: TLSOptions | undefined,
    idleSeconds: number,
  ) {
    this.#idleMs = idleSeconds * 1000
  }

  /** The most recently used idle connection to `origin`, if one is still open. */
  idle(origin: string): Connection | undefined {
    const list = this.#idle.get(origin)
    while (list && list.length > 0) {
      const connection = list.pop()!
      this.#idleCount--
      if (connection.closed) continue
      connection.socket!.ref()
      return connection
    }
    return undefined
  }

  /** A new connection; `signal` abandons the attempt (a blackholed host would otherwise hang until the OS gives up). */
  async connect(target: Target, signal: AbortSignal | undefined): Promise<Connection> {
    const connection = new Connection(target.origin, this, target.hostname)
    const verified = target.tls ? connection.verified() : undefined
    verified?.catch(() => {})
    const connecting = Bun.connect<Connection>({
      hostname: target.hostname,
      port: target.port,
      data: connection,
      socket: HANDLERS as unknown as SocketHandler<Connection>,
      tls: target.tls ? { serverName: target.hostname, ...this.tls, rejectUnauthorized: true } : undefined,
    })
    try {
      connection.socket = signal ? await abandonable(connecting, signal) : await connecting
      if (verified) await (signal ? abandonable(verified, signal) : verified)
    } catch (error) {
      connection.destroy()
      throw error
    }
    connection.socket.setNoDelay(true)
    return connection
  }

  release(connection: Connection): void {
    if (connection.closed) return
    let list = this.#idle.get(connection.origin)
    if (!list) this.#idle.set(connection.origin, (list = []))
    if (list.length >= MAX_IDLE_PER_ORIGIN) return connection.destroy()
    list.push(connection)
    this.#idleCount++
    connection.idleSince = performance.now()
    // A pooled connection must not keep the process alive.
    connection.socket!.unref()
    this.#sweeper ??= unref(setInterval(() => this.#sweep(), Math.min(500, this.#idleMs / 2)))
  }

  forget(connection: Connection): void {
    const list = this.#idle.get(connection.origin)
    const at = list?.indexOf(connection) ?? -1
    if (at === -1) return
    list!.splice(at, 1)
    this.#idleCount--
  }

  /**
   * Closes connections idle for longer than the limit, before the server would: one that the
   * server closes just as a request is written to it fails that request. One timer for the pool,
   * not one per connection: uSockets' own socket timeouts tick in 4 s steps, too coarse here.
   */
  #sweep(): void {
    const cutoff = performance.now() - this.#idleMs
    for (const list of this.#idle.values()) {
      // Oldest first: a list is in the order connections were released.
      while (list.length > 0 && list[0].idleSince <= cutoff) {
        this.#idleCount--
        list.shift()!.destroy()
      }
    }
    if (this.#idleCount === 0) {
      clearInterval(this.#sweeper)
      this.#sweeper = undefined
    }
  }

  closeIdle(): void {
    for (const list of this.#idle.values()) for (const connection of list.splice(0)) connection.destroy()
    this.#idleCount = 0
    clearInterval(this.#sweeper)
    this.#sweeper = undefined
  }
}

const MAX_IDLE_PER_ORIGIN = 256

/** `connecting`, unless `signal` aborts first. */
function abandonable<T>(connecting: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted()
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    connecting.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}
