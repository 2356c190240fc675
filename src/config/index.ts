import { type ChatConfig, parseChatConfig, type ProviderKinds } from './chat'
import { boolean, byteSize, ConfigError, type Env, integer, sizeInBytes } from './env'
import { type ConfigFile, findConfigFile, readConfigFile } from './file'
import { checkSettings } from './file-check'
import {
  configFileSchema,
  DATABASE_SETTINGS,
  envOf,
  FILE_PATH_OF,
  LOG_LEVELS,
  SERVER_SETTINGS,
  TOP_SETTINGS,
} from './file-schema'
import { ConfigFileInvalid } from './finding'
import { type Limits, parseDefaultLimits } from './limits'
import { type Prices, parsePrices } from './prices'

export { ConfigError } from './env'
export { ConfigFileInvalid } from './finding'

/**
 * Environment and configuration file → validated configuration. Every value is checked at start; a bad value
 * stops the process with one readable line (a finding per line for the file) instead of being silently defaulted.
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
  /** Providers and the model registry (`providers:`, `models:` or CHAT_* variables; see src/config/chat.ts). */
  chat: ChatConfig
  /** `limits:` or `TRELLIS_DEFAULT_LIMITS`: the limits of a token that has none of its own (see src/config/limits.ts). */
  defaultLimits: Limits
  /**
   * `prices:` or `TRELLIS_PRICES`: US dollars per million tokens by model, over the default table
   * (src/cost/default-prices.ts); see src/config/prices.ts.
   */
  prices: Prices
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
  /**
   * The docs site's files (`PUT /docs/assets/…`): each at most `DOCS_ASSET_MAX_BYTES` (25 MiB), all of them
   * together at most `DOCS_ASSETS_MAX_BYTES` (1 GiB).
   */
  docsAssets: { maxFileBytes: number; maxSiteBytes: number }
  /** The most HTML one docs page may render to (`DOCS_MAX_PAGE_HTML`, 4 MiB): a larger page is refused at PUT. */
  docsMaxPageHtml: number
  env: Readonly<Record<string, string | undefined>>
  /** The configuration file read, if any, and which of its settings a variable overrides. */
  file: { name: string; path: string; overridden: { setting: string; variable: string }[] } | undefined
  /** How the file was looked for: a reload looks again the same way. */
  options: ConfigOptions & { cwd: string }
}

export type LogLevel = (typeof LOG_LEVELS)[number]

/** How the configuration was found, so that a reload finds it the same way. */
export type ConfigOptions = {
  /** `--config FILE`: wins over `TRELLIS_CONFIG`. */
  file?: string
  /** false: no `./trellis.yaml` unless named (trellis/testing: a test's server reads only what the test says). */
  search?: boolean
  /** Where `./trellis.yaml` and relative paths are looked for; the process's working directory by default. */
  cwd?: string
}

function databaseUrl(env: Env, fromFile: string | undefined): string | undefined {
  const raw = env.DATABASE_URL?.trim() || undefined
  if (!raw) return fromFile
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

/**
 * The environment and the configuration file (`--config`, `TRELLIS_CONFIG` or `./trellis.yaml`), validated. A
 * variable that is set wins over the file, which wins over the defaults. A bad variable throws a {@link ConfigError}
 * naming it; a file that does not validate throws {@link ConfigFileInvalid} with every finding, `file:line:column`.
 * `kinds`: the provider plug-ins, whose settings a provider may use (src/chat/providers/index.ts).
 */
export function loadConfig(env: Env, kinds: ProviderKinds, options: ConfigOptions = {}): Config {
  const source = findConfigFile(env, options)
  const file = source ? readConfigFile(source, env) : undefined
  if (file?.parsed) checkSettings(configFileSchema(kinds), file, envOf)
  if (file && file.findings.length > 0) throw invalid(file)
  const read = settingsReader(env)
  const logLevel = read.text(TOP_SETTINGS.logLevel, file?.value.logLevel) as LogLevel
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`)
  const server = (file?.value.server ?? {}) as Record<string, unknown>
  const db = (file?.value.database ?? {}) as Record<string, unknown>
  const host = read.text(SERVER_SETTINGS.host, server.host)
  if (/\s/.test(host)) throw new ConfigError(`HOST must be a host name or address, got "${env.HOST}"`)
  const database = databaseUrl(env, db.url as string | undefined)
  const bodyLimit = byteSize(env, 'BODY_LIMIT', fileSize(file, server.bodyLimit) ?? 1024 * 1024)
  const config: Config = {
    port: read.integer(SERVER_SETTINGS.port, server.port),
    host,
    databaseUrl: database,
    dataDir: read.text(DATABASE_SETTINGS.dataDir, db.dataDir),
    dbPoolSize: read.integer(DATABASE_SETTINGS.poolSize, db.poolSize),
    dbConnectTimeoutMs: read.integer(DATABASE_SETTINGS.connectTimeoutMs, db.connectTimeoutMs),
    dbReconnectMaxMs: read.integer(DATABASE_SETTINGS.reconnectMaxMs, db.reconnectMaxMs),
    dbQueryTimeoutMs: read.integer(DATABASE_SETTINGS.queryTimeoutMs, db.queryTimeoutMs),
    logLevel,
    bodyLimit,
    migrateOnStart: read.boolean(DATABASE_SETTINGS.migrateOnStart, db.migrateOnStart),
    nodeEnv: env.NODE_ENV?.trim() || 'development',
    idleTimeout: read.integer(SERVER_SETTINGS.idleTimeout, server.idleTimeout),
    shutdownTimeoutMs: read.integer(SERVER_SETTINGS.shutdownTimeoutMs, server.shutdownTimeoutMs),
    workers: read.integer(SERVER_SETTINGS.workers, server.workers),
    gcIntervalMs: read.integer(SERVER_SETTINGS.gcIntervalMs, server.gcIntervalMs ?? (database ? 0 : 500)),
    chat: chatConfig(env, kinds, file),
    defaultLimits: defaultLimits(env, file),
    prices: prices(env, file),
    authFailuresPerMinute: read.integer(SERVER_SETTINGS.authFailuresPerMinute, server.authFailuresPerMinute),
    trustProxy: read.boolean(SERVER_SETTINGS.trustProxy, server.trustProxy),
    usageLedger: read.boolean(TOP_SETTINGS.usageLedger, file?.value.usageLedger),
    // Not in the file's schema yet: environment only (README, "Responses API").
    responses: {
      retentionDays: integer(env, 'RESPONSES_RETENTION_DAYS', 30, 1, 3650),
      maxStoredBytes: byteSize(env, 'RESPONSES_MAX_STORED_BYTES', 8 * 1024 * 1024),
    },
    // Environment only, like the stored responses' limits (README, "Docs files").
    docsAssets: {
      maxFileBytes: byteSize(env, 'DOCS_ASSET_MAX_BYTES', 25 * 1024 * 1024, 1024),
      maxSiteBytes: byteSize(env, 'DOCS_ASSETS_MAX_BYTES', 1024 * 1024 * 1024, 1024 * 1024),
    },
    docsMaxPageHtml: byteSize(env, 'DOCS_MAX_PAGE_HTML', 4 * 1024 * 1024),
    env,
    file: file && { name: source!.name, path: source!.path, overridden: overridden(env, file) },
    options: { ...options, cwd: options.cwd ?? process.cwd() },
  }
  if (file && file.findings.length > 0) throw invalid(file)
  if (config.workers > 1 && !config.databaseUrl)
    throw new ConfigError(
      'WORKERS > 1 needs DATABASE_URL: the embedded PGlite database can only be opened by one process',
    )
  return config
}

/** The file's findings in the order of the file. */
function invalid(file: ConfigFile): ConfigFileInvalid {
  const findings = [...file.findings].sort((a, b) => a.line - b.line || a.column - b.column)
  return new ConfigFileInvalid(file.source.name, findings)
}

/** Reads a variable, falling back to the file's value, then to the setting's default; bounds are the schema's. */
function settingsReader(env: Env) {
  type Bounded = { default?: unknown; minimum?: number; maximum?: number }
  return {
    integer: ({ env: name, schema }: { env: string; schema: Bounded }, fromFile: unknown) =>
      integer(env, name, (fromFile ?? schema.default) as number, schema.minimum ?? 0, schema.maximum),
    boolean: ({ env: name, schema }: { env: string; schema: Bounded }, fromFile: unknown) =>
      boolean(env, name, (fromFile ?? schema.default) as boolean),
    text: ({ env: name, schema }: { env: string; schema: Bounded }, fromFile: unknown) =>
      env[name]?.trim() || ((fromFile ?? schema.default) as string),
  }
}

/** `server.bodyLimit` in bytes; a size out of bounds is reported where it is written. */
function fileSize(file: ConfigFile | undefined, value: unknown): number | undefined {
  if (value === undefined || !file) return undefined
  const bytes = typeof value === 'number' ? value : sizeInBytes(String(value))
  if (bytes === undefined || bytes < 1024 || bytes > 64 * 1024 * 1024) {
    file.report(['server', 'bodyLimit'], `server.bodyLimit: must be between 1kb and 64mb, got ${JSON.stringify(value)}`)
    return undefined
  }
  return bytes
}

/** The settings of the file that a variable overrides, such as `server.port` by `PORT`. */
function overridden(env: Env, file: ConfigFile): { setting: string; variable: string }[] {
  const has = (path: string) => {
    let node: unknown = file.value
    for (const key of path.split('.')) node = (node as Record<string, unknown> | undefined)?.[key]
    return node !== undefined
  }
  return Object.entries(FILE_PATH_OF)
    .filter(([name, path]) => env[name]?.trim() && has(path))
    .map(([variable, setting]) => ({ setting, variable }))
}

function chatConfig(env: Env, kinds: ProviderKinds, file: ConfigFile | undefined): ChatConfig {
  try {
    return parseChatConfig(env, kinds, file)
  } catch (error) {
    throw new ConfigError((error as Error).message)
  }
}

function defaultLimits(env: Env, file: ConfigFile | undefined): Limits {
  try {
    const raw = env.TRELLIS_DEFAULT_LIMITS
    if ((raw === undefined || raw.trim() === '') && file?.value.limits !== undefined) return file.value.limits as Limits
    return parseDefaultLimits(raw)
  } catch (error) {
    throw new ConfigError((error as Error).message)
  }
}

function prices(env: Env, file: ConfigFile | undefined): Prices {
  try {
    return parsePrices(env.TRELLIS_PRICES, file)
  } catch (error) {
    throw new ConfigError((error as Error).message)
  }
}

export const isProduction = (config: Config) => config.nodeEnv === 'production'
