import { PROVIDER_KINDS } from '../../src/chat/providers'
import { createApp, type AppDeps } from '../../src/app'
import type { Scope } from '../../src/auth/model'
import { TokenService } from '../../src/auth/service'
import { loadConfig } from '../../src/config'
import { UsageLedger } from '../../src/usage/ledger'
import { Pricing } from '../../src/cost/pricing'
import { createLogger } from '../../src/telemetry/logger'
import { bunUiAssets } from '../../src/runtimes/bun-assets'
import { freshDatabase } from './database'

export type TestApp = Awaited<ReturnType<typeof makeTestApp>>

/**
 * How a test reaches the app: in process through `app.handle`, or over TCP through a
 * real `Bun.serve` listening on a random loopback port.
 */
export type Transport = 'app.handle' | 'listening server'
export const TRANSPORTS: Transport[] = ['app.handle', 'listening server']

/**
 * The real application on a fresh database. `request` goes through `transport`;
 * `logs` collects the structured log lines instead of printing them.
 */
export async function makeTestApp(
  options: { env?: Record<string, string>; deps?: Partial<AppDeps>; transport?: Transport; migrated?: boolean } = {},
) {
  const config = loadConfig({ LOG_LEVEL: 'info', ...options.env }, PROVIDER_KINDS)
  const database = await freshDatabase({ migrated: options.migrated })
  const logs: Record<string, unknown>[] = []
  const logger = createLogger(config.logLevel, (line) => logs.push(JSON.parse(line)))
  const tokens = new TokenService(database.db)
  const deps: AppDeps = {
    config,
    database,
    tokens,
    logger,
    clock: () => new Date(),
    uiAssets: bunUiAssets,
    ...options.deps,
  }
  // The ledger the app would make itself, made here so a test can flush it (`deps.ledger.flush()`) rather than sleep
  // past its batch delay.
  deps.ledger ??= deps.config.usageLedger ? new UsageLedger(deps.database, deps.logger) : undefined
  // The price table the app would make itself, started here so that the first request is priced (as at a real start).
  if (!deps.pricing) {
    deps.pricing = new Pricing(deps.database.db, deps.logger)
    if (options.migrated !== false) await deps.pricing.start(deps.config.prices)
  }
  const app = createApp(deps)
  const server =
    options.transport === 'listening server'
      ? Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: app.fetch })
      : undefined
  return {
    app,
    deps,
    logs,
    /** The listening server's origin (only with the 'listening server' transport). */
    origin: server?.url.origin,
    /** Issues a real token through the token service. */
    tokenFor: async (owner: string, scopes: Scope[] = ['plants:read', 'plants:write']) =>
      (await tokens.create({ owner, scopes })).token,
    /** `app.handle` with a path and optional init; JSON bodies get their content type. */
    request: (path: string, init: RequestInit & { token?: string; json?: unknown } = {}) => {
      const headers = new Headers(init.headers)
      if (init.token) headers.set('authorization', `Bearer ${init.token}`)
      let body = init.body
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json')
        body = typeof init.json === 'string' ? init.json : JSON.stringify(init.json)
      }
      if (server) return fetch(`${server.url.origin}${path}`, { ...init, headers, body, redirect: 'manual' })
      return app.handle(new Request(`http://localhost${path}`, { ...init, headers, body }))
    },
    close: async () => {
      deps.pricing?.stop()
      await server?.stop(true)
      await database.close()
    },
  }
}

/** A unique owner name, so tests on a shared database never see each other's plants. */
export const uniqueOwner = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}`

/**
 * For beforeAll/afterAll: the first PGlite of a run performs initdb, which takes seconds
 * on a busy two-core machine, well past bun's 5 s default for hooks.
 */
export const SETUP_TIMEOUT = 120_000
