import { isDeepStrictEqual } from 'node:util'
import type { Logger } from '../telemetry/logger'
import type { ProviderKinds } from './chat'
import { ConfigError } from './env'
import { FILE_PATH_OF } from './file-schema'
import { ConfigFileInvalid, type ConfigFinding } from './finding'
import { type Config, loadConfig } from './index'

/** What a reload did: applied, or refused with why (the running configuration unchanged). */
export type ReloadOutcome =
  | {
      reloaded: true
      /** The file read, or null with none. */
      file: string | null
      /** What changed and was applied: `providers`, `models`, `limits`, `prices`, `chat`. */
      changed: string[]
      /** Settings that differ from the running ones but apply only at the next start, e.g. `server.port (PORT)`. */
      needs_restart: string[]
      models: string[]
    }
  | { reloaded: false; file: string | null; message: string; findings: ConfigFinding[] }

/** The parts of {@link Config} a reload replaces while the process serves, by what the operator calls them. */
const RELOADABLE = {
  providers: (config: Config) => config.chat.providers,
  models: (config: Config) => config.chat.models,
  limits: (config: Config) => config.defaultLimits,
  prices: (config: Config) => config.prices,
  chat: ({ chat: { providers: _p, models: _m, ...tuning } }: Config) => tuning,
} as const
export type Reloadable = keyof typeof RELOADABLE

/** Every other setting: read once at start. The names are the file's, with their variables. */
const RESTART_ONLY: [setting: string, read: (config: Config) => unknown][] = [
  ['server.port', (c) => c.port],
  ['server.host', (c) => c.host],
  ['server.workers', (c) => c.workers],
  ['server.bodyLimit', (c) => c.bodyLimit],
  ['server.idleTimeout', (c) => c.idleTimeout],
  ['server.shutdownTimeoutMs', (c) => c.shutdownTimeoutMs],
  ['server.trustProxy', (c) => c.trustProxy],
  ['server.authFailuresPerMinute', (c) => c.authFailuresPerMinute],
  ['server.gcIntervalMs', (c) => c.gcIntervalMs],
  ['database.url', (c) => c.databaseUrl],
  ['database.dataDir', (c) => c.dataDir],
  ['database.poolSize', (c) => c.dbPoolSize],
  ['database.connectTimeoutMs', (c) => c.dbConnectTimeoutMs],
  ['database.reconnectMaxMs', (c) => c.dbReconnectMaxMs],
  ['database.queryTimeoutMs', (c) => c.dbQueryTimeoutMs],
  ['database.migrateOnStart', (c) => c.migrateOnStart],
  ['logLevel', (c) => c.logLevel],
  ['usageLedger', (c) => c.usageLedger],
]

const variableOf = (setting: string) => Object.entries(FILE_PATH_OF).find(([, path]) => path === setting)?.[0]

/**
 * Re-reads the configuration file and the environment of the start (`SIGHUP`, `POST /admin/config/reload`) and
 * hands what changed of providers, models, default limits, prices and the chat tunables to `apply`; `config`, the object
 * the process was started with, is updated in place, so every reader sees the new values from then on. A
 * configuration that does not load is refused whole: nothing changes, and the findings are logged and returned.
 * Settings that cannot change while the process serves (its port, its database…) are named, not applied.
 */
export class ConfigReloader {
  readonly #config: Config
  readonly #kinds: ProviderKinds
  readonly #apply: (next: Config, changed: readonly Reloadable[]) => void
  readonly #logger: Logger

  constructor(options: {
    config: Config
    kinds: ProviderKinds
    apply: (next: Config, changed: readonly Reloadable[]) => void
    logger: Logger
  }) {
    this.#config = options.config
    this.#kinds = options.kinds
    this.#apply = options.apply
    this.#logger = options.logger
  }

  /** Synchronous, so that two reloads never interleave. `trigger` is for the log: `SIGHUP`, `http`. */
  reload(trigger: string): ReloadOutcome {
    const running = this.#config
    let next: Config
    try {
      next = loadConfig(running.env, this.#kinds, running.options)
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error
      const findings = error instanceof ConfigFileInvalid ? error.findings : []
      const file = error instanceof ConfigFileInvalid ? error.file : (running.file?.name ?? null)
      const message = `the configuration was not reloaded, and the running one stays: ${
        error instanceof ConfigFileInvalid
          ? `${error.file} does not validate (${findings.length} error${findings.length === 1 ? '' : 's'})`
          : error.message
      }`
      this.#logger.error('configuration reload refused', {
        trigger,
        file,
        error: error.message.split('\n')[0],
        findings: findings.map((finding) => `${finding.file}:${finding.line}:${finding.column}: ${finding.message}`),
      })
      return { reloaded: false, file, message, findings }
    }
    const changed = (Object.keys(RELOADABLE) as Reloadable[]).filter(
      (part) => !isDeepStrictEqual(RELOADABLE[part](running), RELOADABLE[part](next)),
    )
    const needsRestart = RESTART_ONLY.filter(([, read]) => !isDeepStrictEqual(read(running), read(next))).map(
      ([setting]) => `${setting} (${variableOf(setting)})`,
    )
    if (changed.length > 0) this.#apply(next, changed)
    running.chat = next.chat
    running.defaultLimits = next.defaultLimits
    running.prices = next.prices
    running.file = next.file
    const models = Object.keys(next.chat.models)
    this.#logger.info('configuration reloaded', { trigger, file: next.file?.name ?? null, changed, models })
    if (needsRestart.length > 0)
      this.#logger.warn('configuration changes that need a restart were not applied', { settings: needsRestart })
    return { reloaded: true, file: next.file?.name ?? null, changed, needs_restart: needsRestart, models }
  }
}
