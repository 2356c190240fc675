import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import type { Drainable } from './lifecycle'
import { rememberPeer } from './peer-address'

/** Any Web-standard handler, such as `app.fetch`. */
export type FetchHandler = (request: Request) => Response | Promise<Response>

export type ListenOptions = { port: number; hostname: string; keepAliveTimeoutMs: number }

/**
 * Serves a fetch handler with `node:http`: each request becomes a Web `Request` (its
 * body a stream, its `signal` aborted when the client goes away), each `Response` is
 * written back chunk by chunk with back-pressure, so event streams flow as they are made.
 * A few dozen lines instead of a framework adapter dependency.
 */
export async function listenFetch(handler: FetchHandler, options: ListenOptions): Promise<Drainable & { url: string }> {
  let closing = false
  const server = createServer({ noDelay: true, keepAliveTimeout: options.keepAliveTimeoutMs }, (req, res) => {
    void respond(handler, req, res, () => closing).finally(() => {
      if (closing) server.closeIdleConnections()
    })
  })
  server.listen(options.port, options.hostname)
  await once(server, 'listening')
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  return {
    url: `http://${options.hostname.includes(':') ? `[${options.hostname}]` : options.hostname}:${port}/`,
    drain: () => {
      closing = true
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      return closed
    },
    force: () => server.closeAllConnections(),
  }
}

async function respond(handler: FetchHandler, req: IncomingMessage, res: ServerResponse, closing: () => boolean) {
  const abort = new AbortController()
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  res.on('close', () => {
    if (res.writableFinished) return
    abort.abort(new Error('the client closed the connection'))
    void reader?.cancel().catch(() => {})
  })
  let request: Request
  let response: Response
  try {
    request = toRequest(req, abort.signal)
  } catch {
    return void res
      .writeHead(400, { 'content-type': 'application/json', connection: 'close' })
      .end('{"error":400,"message":"malformed request target or Host header"}')
  }
  try {
    response = await handler(request)
  } catch {
    response = Response.json(
      { error: 500, message: 'internal error' },
      { status: 500, headers: { 'content-type': 'application/json' } },
    )
  }
  const headers: Record<string, string | string[]> = {}
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie') headers[key] = value
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length) headers['set-cookie'] = cookies
  // While draining, every answer closes its connection so keep-alive cannot hold the drain open.
  // So does an answer given before the request body was read to its end (a 413, a 401): the
  // unread rest would otherwise be parsed as the next request on this connection.
  if (closing() || !req.complete) headers.connection = 'close'
  res.writeHead(response.status, headers)
  if (!response.body) return void res.end()
  res.flushHeaders()
  reader = response.body.getReader()
  const gone = once(res, 'close').then(() => 'gone' as const)
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      if (res.destroyed) return
      if (!res.write(chunk.value) && (await Promise.race([once(res, 'drain'), gone])) === 'gone') return
    }
  } catch {
    // The body failed mid-stream (or was cancelled because the client left); the connection just ends.
    res.destroy()
    return
  }
  res.end()
}

function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers()
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1])
  const url = new URL(req.url ?? '/', `http://${req.headers.host || 'localhost'}`)
  const hasBody =
    req.method !== 'GET' &&
    req.method !== 'HEAD' &&
    (req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0')
  const request = new Request(url, {
    method: req.method,
    headers,
    signal,
    // node:stream/web's ReadableStream is the global one; only the type declarations differ.
    body: hasBody ? (Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>) : undefined,
    // Node's fetch needs this for a streamed request body.
    duplex: 'half',
  } as RequestInit)
  return rememberPeer(request, req.socket.remoteAddress)
}
