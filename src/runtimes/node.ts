import process from 'node:process'
import { bootstrap } from './bootstrap'
import { listenFailure, reloadOnHangup, singleProcessConfigOrExit, shutdownOnSignals, startedOrExit } from './lifecycle'
import { listenFetch } from './node-http'
import { nodeModulesUiAssets } from './node-modules-assets'
import { peerAddressOf } from './peer-address'

/**
 * The Node.js entry (Node 20+): the same app, served by `node:http` through a small
 * fetch bridge. Node cannot run TypeScript, so it runs a bundle of our sources (packages
 * stay in node_modules):
 *
 *   bun run build:node && node dist/node/node.js
 */
const config = singleProcessConfigOrExit('Node')
const shutdown = shutdownOnSignals()
const { app, deps, gate, close, firstToken, reloader } = await startedOrExit(
  bootstrap(config, { uiAssets: nodeModulesUiAssets, shutdownSignal: shutdown.signal, peerAddress: peerAddressOf }),
)
const server = await listenFetch(gate.track(app.fetch), {
  port: config.port,
  hostname: config.host,
  keepAliveTimeoutMs: config.idleTimeout * 1000,
}).catch(async (error) => {
  // Nothing was announced yet: a port in use ends the start with one line, and no token made for nobody.
  await close()
  console.error(`trellis: cannot listen on ${config.host}:${config.port}: ${listenFailure(error)}`)
  process.exit(1)
})
reloadOnHangup(reloader)
// Announced before "listening", which is what scripts wait for before they read what the server printed.
await firstToken(server.url)
deps.logger.info('listening', {
  url: server.url,
  database: deps.database.kind,
  pid: process.pid,
  runtime: `node ${process.version}`,
})
shutdown.serving(server, { timeoutMs: config.shutdownTimeoutMs, logger: deps.logger, gate, close })
