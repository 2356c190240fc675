// Plain TypeBox, as in chat.ts: a file that says "3000" where a number belongs is corrected, not guessed.
import { Type as t, type TSchema } from '@sinclair/typebox'
import { Integer } from '../http/integer'
import { CHAT_TUNING, ModelsSetting, type ProviderKinds, providersSchema } from './chat'
import { LimitsSchema } from './limits'
import { PricesSchema } from './prices'

/** One setting of the file that is also an environment variable: the variable, and the schema of its value. */
type Setting = { env: string; schema: TSchema }
const setting = (env: string, schema: TSchema): Setting => ({ env, schema })

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const

/** `server:` of trellis.yaml. */
export const SERVER_SETTINGS = {
  port: setting(
    'PORT',
    Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'Listening port; 0: any free port.' }),
  ),
  host: setting(
    'HOST',
    t.String({
      pattern: '^\\S+$',
      title: 'a host name or address',
      default: '0.0.0.0',
      description: 'Listening address.',
    }),
  ),
  workers: setting(
    'WORKERS',
    Integer({
      minimum: 1,
      maximum: 256,
      default: 1,
      description: 'Processes sharing the port; more than 1 needs database.url.',
    }),
  ),
  bodyLimit: setting(
    'BODY_LIMIT',
    t.Union(
      [
        Integer({ minimum: 1024, maximum: 64 * 1024 * 1024 }),
        t.String({ pattern: '^\\d+\\s*([bB]|[kKmM][iI]?[bB])?$', title: 'a size such as 1048576, 512kb or 1mb' }),
      ],
      { default: '1mb', description: 'Request body limit, 1kb to 64mb: bytes, or with kb or mb.' },
    ),
  ),
  idleTimeout: setting(
    'IDLE_TIMEOUT',
    Integer({
      minimum: 1,
      maximum: 255,
      default: 30,
      description: 'Seconds an idle keep-alive connection is kept (streams are exempt).',
    }),
  ),
  shutdownTimeoutMs: setting(
    'SHUTDOWN_TIMEOUT_MS',
    Integer({
      minimum: 0,
      maximum: 600_000,
      default: 10_000,
      description: 'How long SIGTERM waits for requests and streams in flight.',
    }),
  ),
  trustProxy: setting(
    'TRUST_PROXY',
    t.Boolean({
      default: false,
      description: 'Take the client address from X-Forwarded-For (behind a proxy you run only).',
    }),
  ),
  authFailuresPerMinute: setting(
    'AUTH_FAILURES_PER_MINUTE',
    Integer({
      minimum: 1,
      maximum: 1_000_000,
      default: 30,
      description: 'Failed authentications a client address may have a minute.',
    }),
  ),
  gcIntervalMs: setting(
    'GC_INTERVAL_MS',
    Integer({
      minimum: 0,
      maximum: 60_000,
      description:
        'Bun entry: a full garbage collection this often while busy; default 500 with PGlite, 0 with database.url.',
    }),
  ),
}

/** `database:` of trellis.yaml. */
export const DATABASE_SETTINGS = {
  url: setting(
    'DATABASE_URL',
    t.String({
      pattern: '^postgres(ql)?://',
      title: 'a postgres:// or postgresql:// URL',
      description:
        'PostgreSQL; unset: the embedded PGlite in dataDir. Write "${DATABASE_URL}" to keep a password out of the file.',
    }),
  ),
  dataDir: setting(
    'TRELLIS_DATA_DIR',
    t.String({ minLength: 1, default: './data', description: 'The PGlite data directory.' }),
  ),
  poolSize: setting(
    'DB_POOL_SIZE',
    Integer({ minimum: 1, maximum: 1000, default: 10, description: 'Connections per process.' }),
  ),
  connectTimeoutMs: setting(
    'DB_CONNECT_TIMEOUT_MS',
    Integer({
      minimum: 100,
      maximum: 60_000,
      default: 2_000,
      description: 'How long one attempt to connect may take.',
    }),
  ),
  reconnectMaxMs: setting(
    'DB_RECONNECT_MAX_MS',
    Integer({
      minimum: 0,
      maximum: 60_000,
      default: 1_000,
      description: 'Longest pause between reconnection attempts.',
    }),
  ),
  queryTimeoutMs: setting(
    'DB_QUERY_TIMEOUT_MS',
    Integer({
      minimum: 100,
      maximum: 600_000,
      default: 10_000,
      description: 'Longest wait for one statement or transaction.',
    }),
  ),
  migrateOnStart: setting(
    'MIGRATE_ON_START',
    t.Boolean({ default: true, description: 'Apply migrations when the server starts.' }),
  ),
}

/** Top-level settings of trellis.yaml that are one value each. */
export const TOP_SETTINGS = {
  logLevel: setting(
    'LOG_LEVEL',
    t.Union(
      LOG_LEVELS.map((level) => t.Literal(level)),
      { default: 'info', description: 'debug, info, warn, error or silent.' },
    ),
  ),
  usageLedger: setting(
    'USAGE_LEDGER',
    t.Boolean({ default: true, description: 'Record one usage row per chat request (false: no ledger).' }),
  ),
  echo: setting(
    'CHAT_ECHO',
    t.Boolean({
      default: true,
      description:
        'Serve the built-in echo and echo-reasoner beside the configured models (false: the configured ones alone).',
    }),
  ),
}

/** Where each variable goes in the file: `PORT` → `server.port`. */
export const FILE_PATH_OF: Readonly<Record<string, string>> = Object.fromEntries([
  ...Object.entries(SERVER_SETTINGS).map(([key, { env }]) => [env, `server.${key}`]),
  ...Object.entries(DATABASE_SETTINGS).map(([key, { env }]) => [env, `database.${key}`]),
  ...Object.entries(TOP_SETTINGS).map(([key, { env }]) => [env, key]),
  ['CHAT_PROVIDERS', 'providers'],
  ['CHAT_MODELS', 'models'],
  ['TRELLIS_DEFAULT_LIMITS', 'limits'],
  ['TRELLIS_PRICES', 'prices'],
  ['CHAT_KEEPALIVE_MS', 'chat.keepAliveMs'],
  ['ECHO_TOKEN_DELAY_MS', 'chat.echoTokenDelayMs'],
  ['CHAT_MAX_EVENT_BYTES', 'chat.maxEventBytes'],
  ['CHAT_MAX_RESPONSE_BYTES', 'chat.maxResponseBytes'],
])

/** The variable of a setting of the file: `server.port` → `PORT`. */
export const envOf = (path: string): string | undefined =>
  Object.entries(FILE_PATH_OF).find(([, file]) => file === path)?.[0]

function section(settings: Record<string, Setting>, description: string) {
  const properties = Object.fromEntries(
    Object.entries(settings).map(([key, { env, schema }]) => [key, t.Optional(withVariable(schema, env))]),
  )
  return t.Optional(t.Object(properties, { additionalProperties: false, description }))
}

/** The schema, its description ending with the variable that overrides it. */
function withVariable(schema: TSchema, env: string): TSchema {
  return { ...schema, description: `${schema.description ?? ''} Overridden by ${env}.`.trim() }
}

/**
 * The schema of trellis.yaml. `kinds` are the provider plug-ins, whose own settings a provider may have (see
 * src/chat/providers/index.ts). Every key is optional; the file holds only what differs from the defaults.
 */
export function configFileSchema(kinds: ProviderKinds) {
  const top = Object.fromEntries(
    Object.entries(TOP_SETTINGS).map(([key, { env, schema }]) => [key, t.Optional(withVariable(schema, env))]),
  )
  return t.Object(
    {
      providers: t.Optional(
        withVariable(
          {
            ...providersSchema(kinds),
            description: 'The upstreams, by the name models use. The name echo is reserved.',
          },
          'CHAT_PROVIDERS',
        ),
      ),
      models: t.Optional(
        withVariable(
          { ...ModelsSetting, description: 'Public model names (GET /models) to their ordered attempts.' },
          'CHAT_MODELS',
        ),
      ),
      ...top,
      limits: t.Optional(
        withVariable(
          { ...LimitsSchema, description: 'The limits of a token that has none of its own, field by field.' },
          'TRELLIS_DEFAULT_LIMITS',
        ),
      ),
      prices: t.Optional(withVariable(PricesSchema, 'TRELLIS_PRICES')),
      chat: t.Optional(
        t.Object(
          Object.fromEntries(Object.entries(CHAT_TUNING).map(([key, schema]) => [key, t.Optional(schema as TSchema)])),
          {
            additionalProperties: false,
            description: 'Chat tunables; each is also a variable, named in its description.',
          },
        ),
      ),
      server: section(SERVER_SETTINGS, 'The listening server; a change needs a restart.'),
      database: section(DATABASE_SETTINGS, 'The database; a change needs a restart.'),
    },
    {
      additionalProperties: false,
      // Docker Compose's convention: a place for anchors (`x-upstream: &upstream {…}`), never read.
      patternProperties: { '^x-': { description: 'Ignored: a place for YAML anchors.' } },
    },
  )
}
