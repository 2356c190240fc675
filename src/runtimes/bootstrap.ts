import process from 'node:process'
import type { PGliteOptions } from '@electric-sql/pglite'
import { configReloaderFor, createApp, holdersFor, metricsFor, type AppDeps } from '../app'
import { chatSetupFrom } from '../chat'
import { TokenService } from '../auth/service'
import { type Config, isProduction } from '../config'
import { type DatabaseHandle, openDatabase } from '../db/connect'
import { lockDataDir, RESTART_WAIT_MS } from '../db/data-dir-lock'
import { migrate } from '../db/migrate'
import { Governance } from '../governance/service'
import { RequestGate } from '../http/drain'
import { UsageLedger } from '../usage/ledger'
import { Pricing } from '../cost/pricing'
import { createLogger, type Logger } from '../telemetry/logger'

/** How a process holds the embedded database's lock: how long it waits for it, and what it does if it loses it. */
export type LockPolicy = { waitMs: number; onLost: (error: Error) => void }

/** A CLI command next to a running server is refused at once; see src/db/data-dir-lock.ts. */
const CLI_LOCK: LockPolicy = {
  waitMs: 0,
  onLost: (error) => {
    console.error(`trellis: lost the lock on the embedded database (${error.message}); stopping`)
    process.exit(1)
  },
}

/**
 * Opens the configured database: PostgreSQL, or PGlite in `dataDir` guarded by a lock so that
 * no second process can open it at the same time (see src/db/data-dir-lock.ts).
 */
export async function openConfiguredDatabase(
  config: Config,
  pglite?: PGliteOptions,
  lock: LockPolicy = CLI_LOCK,
): Promise<DatabaseHandle> {
  if (config.databaseUrl) {
    const {
      dbPoolSize: poolSize,
      dbConnectTimeoutMs: connectTimeoutMs,
      dbReconnectMaxMs: reconnectMaxMs,
      dbQueryTimeoutMs: queryTimeoutMs,
    } = config
    return openDatabase({ url: config.databaseUrl, poolSize, connectTimeoutMs, reconnectMaxMs, queryTimeoutMs })
  }
  const unlock = await lockDataDir(config.dataDir, lock)
  try {
    const handle = await openDatabase({ dataDir: config.dataDir, pglite })
    return { ...handle, close: () => handle.close().finally(unlock) }
  } catch (error) {
    await unlock()
    throw error
  }
}

/**
 * Everything a runtime entry needs before it can serve: database, migrations, tokens, the app itself, the
 * first-run development token to announce once the entry listens, and the configuration's reloader (SIGHUP). Runtime-neutral; the entries in
 * src/runtimes/bun.ts and src/runtimes/ only add the listening socket and signal handling.
 */
export async function bootstrap(
  config: Config,
  extra: Partial<AppDeps> & { pglite?: PGliteOptions; logger?: Logger } = {},
) {
  const logger = extra.logger ?? createLogger(config.logLevel)
  // A server restarting after a crash waits out the lock its predecessor left; one that loses it stops.
  // A database opened by the caller (trellis/testing's in-memory PGlite) is used as it is.
  const database =
    extra.database ??
    (await openConfiguredDatabase(config, extra.pglite, {
      waitMs: RESTART_WAIT_MS,
      onLost: (error) => {
        logger.error('lost the lock on the embedded database; stopping, since another process may now open it', {
          error: error.message,
        })
        logger.flush()
        process.exit(1)
      },
    }))
  try {
    if (config.migrateOnStart) {
      const applied = await migrate(database.unbounded)
      if (applied.length) logger.info('migrations applied', { applied })
    }
    const tokens = new TokenService(database.db)
    const gate = new RequestGate()
    const clock = () => new Date()
    const ledger = config.usageLedger ? new UsageLedger(database, logger) : undefined
    const metrics = metricsFor(database, ledger)
    const governance = new Governance(database.db, {
      defaults: config.defaultLimits,
      clock,
      onRefused: (kind) => metrics.rateLimited(kind),
      holders: {
        ...holdersFor(database),
        onReconciled: (holder) => logger.warn('reconciled the quota of a dead process', { holder }),
      },
    })
    // Registered before the first request (a database that is away or not migrated: at a later heartbeat); on PGlite
    // this first heartbeat also reconciles what a predecessor killed with -9 held.
    await governance.holders.beat().catch(() => {})
    // Made here rather than by the app, so that the entry can reload on SIGHUP what the app serves from.
    const chat = extra.chat ?? chatSetupFrom(config.chat, metrics)
    // Recorded and read back before the first request, so that the first rows are priced.
    const pricing = extra.pricing ?? new Pricing(database.db, logger)
    if (!extra.pricing) await pricing.start(config.prices)
    const reloader = configReloaderFor({ config, chat, governance, pricing, metrics, logger })
    const deps: AppDeps = {
      config,
      database,
      tokens,
      logger,
      clock,
      gate,
      governance,
      ledger,
      pricing,
      metrics,
      reloader,
      ...extra,
      chat,
    }
    // After the last request: leases go back to the shared pool, the ledger writes what it holds (and takes what its
    // rows spent off this process's holdings), then this process's holder leaves (src/governance/holders.ts).
    const close = async () => {
      await governance
        .stop()
        .catch((error) => logger.warn('could not return quota leases', { error: (error as Error).message }))
      pricing.stop()
      await ledger?.stop()
      await governance
        .retire()
        .catch((error) => logger.warn('could not retire the quota holder', { error: (error as Error).message }))
      await database.close()
    }
    // Called by the entry once it listens: a token printed before the bind would point a curl line at
    // whatever else holds the port, for a server that then exits.
    const firstToken = (url: string) => announceDevelopmentToken(config, tokens, url)
    return { app: createApp(deps), deps, gate, close, firstToken, reloader }
  } catch (error) {
    await database.close()
    throw error
  }
}

/**
 * On the first start with no tokens at all, and never in production, mint one admin
 * token so a newcomer can try the API at once. It is printed once and not stored in clear.
 */
export async function announceDevelopmentToken(config: Config, tokens: TokenService, url?: string) {
  if (isProduction(config) || config.env.TRELLIS_WORKER || (await tokens.count()) > 0) return
  const created = await tokens.createFirst({ owner: 'dev', scopes: ['admin'] })
  if (!created) return // another replica starting at the same moment minted it
  const { token } = created
  const base = url ? new URL(url) : new URL(`http://${config.host}:${config.port}`)
  // A server on every interface is reached on this machine as localhost.
  if (base.hostname === '0.0.0.0' || base.hostname === '[::]') base.hostname = 'localhost'
  const origin = base.origin
  console.log(
    [
      '',
      'No tokens existed, so a development admin token was created. It is shown only this once:',
      `  ${token}`,
      'Try it:',
      `  curl -s -X POST ${origin}/plants -H 'Authorization: Bearer ${token}' -H ` +
        `'Content-Type: application/json' -d '{"name":"Monstera","tag":"tropical"}'`,
      config.databaseUrl
        ? 'More tokens: trellis token create --owner NAME --scope chat (or POST /admin/tokens).'
        : 'More tokens, while this server holds the embedded database (the CLI cannot open it meanwhile):',
      ...(config.databaseUrl
        ? []
        : [
            `  curl -s -X POST ${origin}/admin/tokens -H 'Authorization: Bearer ${token}' -H ` +
              `'Content-Type: application/json' -d ` +
              `'{"owner":"alice","scopes":["plants:read","plants:write","chat"]}'`,
          ]),
      '',
    ].join('\n'),
  )
}
