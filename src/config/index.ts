import { type ChatConfig, parseChatConfig, type ProviderKinds } from './chat'
import { boolean, byteSize, ConfigError, type Env, integer } from './env'
import { type Limits, parseDefaultLimits } from './limits'

export { ConfigError } from './env'

/**
 * Environment → validated configuration. Every value is checked at start; a bad value
 * stops the process with one readable line instead of being silently defaulted.
 */
export type Config = {
  port: number
  host: string
  /** Unset → embedded PGlite in `dataDir`. */
  databaseUrl: string | undefined
  dataDir: string
  dbPoolSize: number
  /** How long one attempt to connect to PostgreSQL may take before it fails (postgres.js `connect_timeout`). */
  dbConnectTimeoutMs: number
  /** Longest pause between reconnection attempts after PostgreSQL went away (postgres.js `backoff`). */
  dbReconnectMaxMs: number
  dbQueryTimeoutMs: number
  logLevel: LogLevel
  bodyLimit: number
  migrateOnStart: boolean
  nodeEnv: string
  /** Seconds a connection may sit idle before Bun closes it; streams lift it per request. */
  idleTimeout: number
  /** How long SIGTERM waits for in-flight requests and streams. */
  shutdownTimeoutMs: number
  workers: number
  /**
   * Milliseconds between full garbage collections while requests are in flight (Bun entry only;
   * 0: leave it to the runtime). Defaults to 500 with the embedded PGlite, 0 with DATABASE_URL;
   * see src/runtimes/gc-pacer.ts for why.
   */
  gcIntervalMs: number
  /** Providers and the model registry (CHAT_* variables; see src/config/chat.ts). */
  chat: ChatConfig
  /** `TRELLIS_DEFAULT_LIMITS`: the limits of a token that has none of its own (see src/config/limits.ts). */
  defaultLimits: Limits
  /** Failed authentications a client address may have per minute before it is throttled. */
  authFailuresPerMinute: number
  /** Believe `X-Forwarded-For` (its nearest hop) for the client address: set behind a trusted proxy only. */
  trustProxy: boolean
  /** Record chat usage in the ledger (`USAGE_LEDGER`, on by default). */
  usageLedger: boolean
  /**
   * Stored responses (`POST /v1/responses` with `store`): kept `RESPONSES_RETENTION_DAYS` (30), each
   * holding at most `RESPONSES_MAX_STORED_BYTES` (8 MiB) of conversation.
   */
  responses: { retentionDays: number; maxStoredBytes: number }
  env: Readonly<Record<string, string | undefined>>
}

const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

function databaseUrl(env: Env): string | undefined {
  const raw = env.DATABASE_URL?.trim()
  if (!raw) return undefined
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError(`DATABASE_URL is not a URL: "${raw}"`)
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new ConfigError(`DATABASE_URL must start with postgres:// or postgresql://, got "${url.protocol}//…"`)
  return raw
}

/** `kinds`: the provider plug-ins, whose settings `CHAT_PROVIDERS` may use (src/chat/providers/index.ts). */
export function loadConfig(env: Env, kinds: ProviderKinds): Config {
  const logLevel = (env.LOG_LEVEL?.trim() || 'info') as LogLevel
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`)
  const host = env.HOST?.trim() || '0.0.0.0'
  if (/\s/.test(host)) throw new ConfigError(`HOST must be a host name or address, got "${env.HOST}"`)
  const database = databaseUrl(env)
  const config: Config = {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host,
    databaseUrl: database,
    dataDir: env.TRELLIS_DATA_DIR?.trim() || './data',
    dbPoolSize: integer(env, 'DB_POOL_SIZE', 10, 1, 1000),
    dbConnectTimeoutMs: integer(env, 'DB_CONNECT_TIMEOUT_MS', 2_000, 100, 60_000),
    dbReconnectMaxMs: integer(env, 'DB_RECONNECT_MAX_MS', 1_000, 0, 60_000),
    dbQueryTimeoutMs: integer(env, 'DB_QUERY_TIMEOUT_MS', 10_000, 100, 600_000),
    logLevel,
    bodyLimit: byteSize(env, 'BODY_LIMIT', 1024 * 1024),
    migrateOnStart: boolean(env, 'MIGRATE_ON_START', true),
    nodeEnv: env.NODE_ENV?.trim() || 'development',
    idleTimeout: integer(env, 'IDLE_TIMEOUT', 30, 1, 255),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    workers: integer(env, 'WORKERS', 1, 1, 256),
    gcIntervalMs: integer(env, 'GC_INTERVAL_MS', database ? 0 : 500, 0, 60_000),
    chat: chatConfig(env, kinds),
    defaultLimits: defaultLimits(env),
    authFailuresPerMinute: integer(env, 'AUTH_FAILURES_PER_MINUTE', 30, 1, 1_000_000),
    trustProxy: boolean(env, 'TRUST_PROXY', false),
    usageLedger: boolean(env, 'USAGE_LEDGER', true),
    responses: {
      retentionDays: integer(env, 'RESPONSES_RETENTION_DAYS', 30, 1, 3650),
      maxStoredBytes: byteSize(env, 'RESPONSES_MAX_STORED_BYTES', 8 * 1024 * 1024),
    },
    env,
  }
  if (config.workers > 1 && !config.databaseUrl)
    throw new ConfigError(
      'WORKERS > 1 needs DATABASE_URL: the embedded PGlite database can only be opened by one process',
    )
  return config
}

function chatConfig(env: Env, kinds: ProviderKinds): ChatConfig {
  try {
    return parseChatConfig(env, kinds)
  } catch (error) {
    throw new ConfigError((error as Error).message)
  }
}

function defaultLimits(env: Env): Limits {
  try {
    return parseDefaultLimits(env.TRELLIS_DEFAULT_LIMITS)
  } catch (error) {
    throw new ConfigError((error as Error).message)
  }
}

export const isProduction = (config: Config) => config.nodeEnv === 'production'
