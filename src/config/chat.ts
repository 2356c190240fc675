// Plain TypeBox, not Elysia's `t`: Elysia's numeric types accept numeric strings, and a
// configuration file that says "30000" where a number belongs should be corrected, not guessed.
import { Integer } from '../http/integer'
import { boolean, type Env, integer } from './env'
import type { ConfigFile } from './file'
import type { ConfigFinding } from './finding'
import { resolveModels, resolveProviders, sourceOf } from './chat-sources'
import { Type as t, type Static, type TProperties } from '@sinclair/typebox'

/**
 * Chat configuration, from the environment and the configuration file (`providers:`, `models:`, `echo:` and `chat:`
 * of trellis.yaml; see src/config/file-schema.ts). A variable that is set replaces its setting of the file whole; an
 * empty variable counts as unset. A bad variable throws an `Error` whose one-line message names it; a bad setting of
 * the file is reported where it is written (`file.report`) and the rest is still checked.
 *
 * - `CHAT_PROVIDERS` / `providers:` (none): the upstreams by name, e.g.
 *   `{"deepseek": {"baseUrl": "https://api.deepseek.com/v1", "apiKeyEnv": "DEEPSEEK_API_KEY"}}`.
 *   Every provider takes:
 *   - `kind`: which plug-in speaks to it (`openai`, the default; the kinds are listed in
 *     src/chat/providers/index.ts, each documenting its own settings, which are an error on another kind);
 *   - `baseUrl` (required, http or https; but for an offline kind, `script`): the prefix before the API's paths,
 *     e.g. `https://api.openai.com/v1`;
 *   - `apiKey`, or `apiKeyEnv` naming another variable that holds it (neither for keyless servers such as Ollama);
 *   - `headers`: extra request headers;
 *   - `connectTimeoutMs` (10000, until the response headers of a stream), `firstTokenTimeoutMs` (60000,
 *     from the headers to the first event), `idleTimeoutMs` (30000, silence allowed between events) and
 *     `requestTimeoutMs` (600000, a whole non-streaming request);
 *   - `maxRetries` (2: extra attempts on 429, 5xx, connect errors and timeouts before the first byte
 *     reaches the client), `retryBaseMs` (250, the first back-off, doubled per attempt) and `retryMaxMs`
 *     (10000, the cap on any back-off, an upstream's `Retry-After` included).
 *
 *   The name `echo` is reserved for the built-in offline provider.
 * - `CHAT_MODELS` / `models:`: each public model name (listed by `GET /models`) to an ordered list of
 *   `{"provider", "model"}` attempts, where `model` is the name sent upstream and `provider` a configured
 *   provider or `echo`. Later entries are fallbacks, tried only before the first byte reaches the client.
 * - `CHAT_ECHO` / `echo:` (true): the built-in `echo` and `echo-reasoner` are served beside the configured
 *   models (a configured model of the same name wins); `false` serves the configured models alone.
 * - `CHAT_KEEPALIVE_MS` / `chat.keepAliveMs` (15000): the interval of keep-alives while a stream waits on its upstream.
 * - `ECHO_TOKEN_DELAY_MS` / `chat.echoTokenDelayMs` (0): the pause between tokens streamed by `echo` (0: at once).
 * - `CHAT_MAX_EVENT_BYTES` / `chat.maxEventBytes` (2 MiB, at least 4096): the most bytes one streamed upstream
 *   event may hold; past it the relay stops reading and ends the stream with an error event.
 * - `CHAT_MAX_RESPONSE_BYTES` / `chat.maxResponseBytes` (8 MiB, at least 65536): the most bytes one completion may
 *   send, streamed or not, counted while it is made. An `echo` answer that would be larger whole is a 400 naming
 *   the parameter to lower; a stream that reaches it (any provider) ends with an error event
 *   (`code: "response_too_large"`).
 *
 * `kinds` are the provider plug-ins' settings, passed in by the composition (configuration knows no
 * feature): src/chat/providers/index.ts.
 */
export function parseChatConfig(env: Env, kinds: ProviderKinds, file?: ConfigFile): ChatConfig {
  const providerSource = sourceOf(env, 'CHAT_PROVIDERS', providersSchema(kinds), file, 'providers')
  const providers = resolveProviders(providerSource, kinds, env)
  const echo = boolean(env, 'CHAT_ECHO', (file?.value.echo as boolean | undefined) ?? true)
  const models = resolveModels(sourceOf(env, 'CHAT_MODELS', ModelsSetting, file, 'models'), providers, providerSource)
  if (!echo && Object.keys(models).length === 0) {
    const message = 'echo is off and no model is configured: nothing would be served'
    if (env.CHAT_ECHO?.trim() || !file) throw new Error(`CHAT_ECHO: ${message}; set CHAT_MODELS, or leave echo on`)
    file.report(['echo'], `echo: ${message}; add models, or leave echo on`)
  }
  const tuning = (file?.value.chat ?? {}) as Record<string, number | undefined>
  const read = (key: keyof typeof CHAT_TUNING, name: string) => {
    const schema = CHAT_TUNING[key] as unknown as { default: number; minimum: number }
    return integer(env, name, tuning[key] ?? schema.default, schema.minimum)
  }
  return {
    providers,
    models: echo ? withEcho(models) : models,
    keepAliveMs: read('keepAliveMs', 'CHAT_KEEPALIVE_MS'),
    echoTokenDelayMs: read('echoTokenDelayMs', 'ECHO_TOKEN_DELAY_MS'),
    maxResponseBytes: read('maxResponseBytes', 'CHAT_MAX_RESPONSE_BYTES'),
    maxEventBytes: read('maxEventBytes', 'CHAT_MAX_EVENT_BYTES'),
  }
}

/** How often `: keep-alive` goes out while a stream waits on its upstream (`CHAT_KEEPALIVE_MS`); stated here only. */
export const DEFAULT_KEEP_ALIVE_MS = 15_000

/** Default of `CHAT_MAX_RESPONSE_BYTES`: the most one completion may send. */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024

/** Default of `CHAT_MAX_EVENT_BYTES`: the most one streamed upstream event may hold. */
export const DEFAULT_MAX_EVENT_BYTES = 2 * 1024 * 1024

/** The name of the built-in offline provider; `CHAT_PROVIDERS` may not redefine it. */
export const ECHO_PROVIDER = 'echo'

const Timeout = (options: { default: number; description: string }) => Integer({ minimum: 1, ...options })

/** Settings every provider takes, whatever its kind. */
const COMMON_SETTINGS = {
  // Optional to the schema only: every kind that reaches an upstream requires it (resolveProviders, and the
  // published JSON Schema per kind); an offline kind (script) has none.
  baseUrl: t.Optional(
    t.String({
      minLength: 1,
      description:
        "The prefix before the API's paths (http or https), e.g. https://api.deepseek.com/v1; before /messages for " +
        'kind anthropic. Required, but for kind script (offline) and the kinds that wrap another provider (record, replay).',
    }),
  ),
  apiKey: t.Optional(
    t.String({
      minLength: 1,
      description: 'The upstream\'s API key; in the file, write "${VARIABLE}" to take it from the environment.',
    }),
  ),
  apiKeyEnv: t.Optional(
    t.String({ minLength: 1, description: 'The environment variable that holds the API key (instead of apiKey).' }),
  ),
  headers: t.Optional(t.Record(t.String(), t.String(), { description: 'Extra request headers.' })),
  connectTimeoutMs: t.Optional(Timeout({ default: 10_000, description: 'Until the response headers of a stream.' })),
  firstTokenTimeoutMs: t.Optional(Timeout({ default: 60_000, description: 'From the headers to the first event.' })),
  idleTimeoutMs: t.Optional(Timeout({ default: 30_000, description: 'Silence allowed between events.' })),
  requestTimeoutMs: t.Optional(Timeout({ default: 600_000, description: 'A whole non-streaming request.' })),
  maxRetries: t.Optional(
    Integer({
      minimum: 0,
      maximum: 10,
      default: 2,
      description: 'Extra attempts on 429, 5xx, connect errors and timeouts, before the first byte reaches the client.',
    }),
  ),
  retryBaseMs: t.Optional(
    Integer({ minimum: 0, default: 250, description: 'The first back-off, doubled per attempt.' }),
  ),
  retryMaxMs: t.Optional(
    Integer({
      minimum: 0,
      default: 10_000,
      description: "The cap on any back-off, an upstream's Retry-After included.",
    }),
  ),
}

/**
 * What configuration needs of one provider plug-in: the settings its kind adds to the common ones
 * (optional keys, validated at start), their defaults, and a check of what a schema cannot say.
 */
export type ProviderKindSettings = {
  settings: TProperties
  defaults?: Readonly<Record<string, unknown>>
  /** The kind reaches no URL of its own (record and replay wrap another provider's): `baseUrl` is refused, not required. */
  withoutBaseUrl?: true
  /**
   * Throws an `Error` naming `at` for a value the schema accepts but the provider cannot use; `providers` are every
   * configured provider's settings as written, for a kind that names another.
   */
  check?(
    settings: Readonly<Record<string, unknown>>,
    at: string,
    providers: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
  ): void
  /** The kind reaches no upstream (script): `baseUrl` is neither required nor used, and no key is needed. */
  offline?: boolean
  /**
   * The settings made ready for the provider, after {@link check}: e.g. a file a setting names, read and checked,
   * so that the configuration holds what the provider serves and a reload sees a change of that file.
   */
  resolve?(settings: Readonly<Record<string, unknown>>, context: KindContext): Record<string, unknown>
}

/** What {@link ProviderKindSettings.resolve} may use: where relative paths start, and where problems go. */
export type KindContext = {
  /** The provider's name in messages, e.g. `provider 'script'`. */
  at: string
  /** The directory of the configuration file, or the working directory when the setting is a variable's. */
  baseDir: string
  env: Env
  /** A problem of the setting at `path` under this provider (`['scenario', 'rules', 0]`), where it is written. */
  report(
    path: readonly (string | number)[],
    message: string,
    options?: { part?: 'key' | 'value'; suggestion?: string },
  ): void
  /** Problems found in another file, each where it is written there (a file with settings: line:column). */
  findings(found: readonly ConfigFinding[]): void
}

/** The provider plug-ins by `kind`; the first is the default kind. */
export type ProviderKinds = Readonly<Record<string, ProviderKindSettings>>

const ModelRoute = t.Object(
  {
    provider: t.String({ minLength: 1, description: 'A configured provider, or echo (built in).' }),
    model: t.String({ minLength: 1, description: 'The model name sent upstream.' }),
  },
  { additionalProperties: false },
)

/** `CHAT_MODELS` and `models:`: public model names to their attempts, in order. */
export const ModelsSetting = t.Record(
  t.String({ minLength: 1 }),
  t.Array(ModelRoute, {
    minItems: 1,
    description: 'The attempts of this public model, in order; later ones are fallbacks before the first byte.',
  }),
)

/** `chat:` of the file: the chat tunables, with their defaults and bounds (each also a variable). */
export const CHAT_TUNING = {
  keepAliveMs: Integer({
    minimum: 1,
    default: DEFAULT_KEEP_ALIVE_MS,
    description: 'Interval of keep-alives while a stream waits on its upstream (CHAT_KEEPALIVE_MS).',
  }),
  echoTokenDelayMs: Integer({
    minimum: 0,
    default: 0,
    description: 'Pause between tokens streamed by echo; 0: as fast as possible (ECHO_TOKEN_DELAY_MS).',
  }),
  maxEventBytes: Integer({
    minimum: 4_096,
    default: DEFAULT_MAX_EVENT_BYTES,
    description: 'Most bytes one streamed upstream event may hold (CHAT_MAX_EVENT_BYTES).',
  }),
  maxResponseBytes: Integer({
    minimum: 65_536,
    default: DEFAULT_MAX_RESPONSE_BYTES,
    description: 'Most bytes one completion may send, streamed or not (CHAT_MAX_RESPONSE_BYTES).',
  }),
}

/** The settings of one provider: the common ones and every kind's (a kind's on another kind is refused later). */
function providerSchema(kinds: ProviderKinds) {
  const kindNames = Object.keys(kinds)
  const extras: TProperties = {}
  // A setting several kinds share (record's and replay's `cassette`) names them all.
  const owners = (key: string) => kindNames.filter((name) => key in kinds[name]!.settings).join(', ')
  for (const kind of Object.values(kinds))
    for (const [key, setting] of Object.entries(kind.settings)) {
      const description = `Only with kind ${owners(key)}.${setting.description ? ` ${setting.description}` : ''}`
      extras[key] = { ...setting, description }
    }
  const kind = t.Optional(
    t.Union(
      kindNames.map((name) => t.Literal(name)),
      { description: `Which plug-in speaks to this upstream: ${kindNames.join(', ')} (default ${kindNames[0]}).` },
    ),
  )
  // baseUrl is required but for offline kinds: said to the file's checker here (file-check.ts), to editors by the
  // published schema's `if`/`then` per kind (json-schema.ts), and to a variable by resolveProviders.
  const offline = kindNames.filter((name) => kinds[name]!.offline || kinds[name]!.withoutBaseUrl)
  const requiredUnless = { property: 'kind', values: offline, required: ['baseUrl'] }
  return t.Object(
    { ...COMMON_SETTINGS, ...extras, kind },
    { additionalProperties: false, [REQUIRED_UNLESS]: requiredUnless },
  )
}

/**
 * A schema keyword of the file's checker (file-check.ts): `{property, values, required}`, the keys required unless the
 * object's `property` is one of `values`. JSON Schema says it with `if`/`then`, which the checker does not read.
 */
export const REQUIRED_UNLESS = 'x-required-unless'

/** `CHAT_PROVIDERS` and `providers:`. */
export const providersSchema = (kinds: ProviderKinds) => t.Record(t.String({ minLength: 1 }), providerSchema(kinds))

type Settings = Static<ReturnType<typeof t.Object<typeof COMMON_SETTINGS>>>
type Tuning =
  | 'connectTimeoutMs'
  | 'firstTokenTimeoutMs'
  | 'idleTimeoutMs'
  | 'requestTimeoutMs'
  | 'maxRetries'
  | 'retryBaseMs'
  | 'retryMaxMs'

/**
 * One upstream after defaults are applied and `apiKeyEnv` is resolved to `apiKey`: the common
 * settings and its `kind`. The object also carries the settings of that kind, which only the
 * kind's plug-in reads (and types).
 */
export type ProviderConfig = Omit<Settings, 'apiKeyEnv' | Tuning | 'baseUrl'> &
  Required<Pick<Settings, Tuning>> & {
    kind?: string
    /** Empty for a kind without one (script, record, replay). */
    baseUrl: string
  }
/** One attempt of a public model: which provider, and the model name it is sent as. */
export type ModelRoute = Static<typeof ModelRoute>

/** The chat feature's slice of the configuration. */
export type ChatConfig = {
  providers: Record<string, ProviderConfig>
  models: Record<string, ModelRoute[]>
  keepAliveMs: number
  echoTokenDelayMs: number
  /** `CHAT_MAX_RESPONSE_BYTES`. */
  maxResponseBytes: number
  /** `CHAT_MAX_EVENT_BYTES`. */
  maxEventBytes: number
}

/** Defaults for every provider setting a `CHAT_PROVIDERS` entry may omit. */
export const PROVIDER_DEFAULTS: Required<Pick<Settings, Tuning>> = {
  connectTimeoutMs: 10_000,
  firstTokenTimeoutMs: 60_000,
  idleTimeoutMs: 30_000,
  requestTimeoutMs: 600_000,
  maxRetries: 2,
  retryBaseMs: 250,
  retryMaxMs: 10_000,
}

/** The built-in models, served beside the configured ones unless `echo` is off (`CHAT_ECHO=false`). */
export const DEFAULT_MODELS: Record<string, ModelRoute[]> = {
  echo: [{ provider: ECHO_PROVIDER, model: 'echo' }],
  'echo-reasoner': [{ provider: ECHO_PROVIDER, model: 'echo-reasoner' }],
}

/** Visible ASCII, space and tab: what every HTTP client accepts in a header value. */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/

/** Throws when `value` cannot be sent as an HTTP header value, naming `what` (kinds' checks use it too). */
export function checkHeaderValue(what: string, value: string): void {
  if (value !== value.trim())
    throw new Error(`${what} starts or ends with whitespace (a line break from a file?); remove it`)
  const bad = /[^\t\x20-\x7e]/.exec(value)
  if (bad || !HEADER_VALUE.test(value)) {
    throw new Error(
      `${what} holds a character an HTTP header cannot carry (U+${bad![0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')})`,
    )
  }
}

/** The configured models, then the built-in ones whose names they leave free. */
function withEcho(models: Record<string, ModelRoute[]>): Record<string, ModelRoute[]> {
  const all = { ...models }
  for (const [name, routes] of Object.entries(DEFAULT_MODELS)) if (!Object.hasOwn(all, name)) all[name] = routes
  return all
}
