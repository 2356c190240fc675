import process from 'node:process'
import { bootstrap } from './bootstrap'
import { singleProcessConfigOrExit, shutdownOnSignals, startedOrExit } from './lifecycle'
import { nodeModulesUiAssets } from './node-modules-assets'
import { peerAddressOf, rememberPeer } from './peer-address'

/** The part of Deno's global this entry uses (the project type-checks against Bun's types). */
declare const Deno: {
  version: { deno: string }
  serve(
    options: { port: number; hostname: string; onListen?: (addr: { hostname: string; port: number }) => void },
    handler: (request: Request, info: { remoteAddr?: { hostname?: string } }) => Response | Promise<Response>,
  ): { shutdown(): Promise<void>; finished: Promise<void> }
}

/**
 * Deno hands every request a body stream, even one that by HTTP has none (no
 * Content-Length, no Transfer-Encoding): a `DELETE` sent with `Content-Type:
 * application/json` would then fail to parse an empty body. Bun and our Node bridge give
 * such requests no body; so does this.
 */
function withoutPhantomBody(request: Request): Request {
  if (
    request.body === null ||
    request.headers.has('transfer-encoding') ||
    (request.headers.get('content-length') ?? '0') !== '0'
  )
    return request
  // Not `new Request(request, { body: null })`: a null body in the init keeps the input's body.
  return new Request(request.url, { method: request.method, headers: request.headers, signal: request.signal })
}

/**
 * The Deno entry (Deno 2): the same app, served by `Deno.serve(app.fetch)`. Deno runs a
 * bundle of our sources (packages stay in node_modules):
 *
 *   bun run build:deno && deno run --allow-all dist/deno/deno.js
 */
const config = singleProcessConfigOrExit('Deno')
const shutdown = shutdownOnSignals()
const { app, deps, gate, close, firstToken } = await startedOrExit(
  bootstrap(config, { uiAssets: nodeModulesUiAssets, shutdownSignal: shutdown.signal, peerAddress: peerAddressOf }),
)
const address = Promise.withResolvers<{ hostname: string; port: number }>()
const server = Deno.serve(
  { port: config.port, hostname: config.host, onListen: address.resolve },
  gate.track((request: Request, info: { remoteAddr?: { hostname?: string } }) =>
    app.fetch(rememberPeer(withoutPhantomBody(request), info.remoteAddr?.hostname)),
  ),
)
const { hostname, port } = await address.promise
const url = `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}/`
// Announced before "listening", which is what scripts wait for before they read what the server printed.
await firstToken(url)
deps.logger.info('listening', {
  url,
  database: deps.database.kind,
  pid: process.pid,
  runtime: `deno ${Deno.version.deno}`,
})
shutdown.serving(
  // Deno has no way to cut connections early; the process exit after the deadline does it.
  { drain: () => server.shutdown(), force: () => {} },
  { timeoutMs: config.shutdownTimeoutMs, logger: deps.logger, gate, close },
)
