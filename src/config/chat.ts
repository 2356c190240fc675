// Plain TypeBox, not Elysia's `t`: Elysia's numeric types accept numeric strings, and a
// configuration file that says "30000" where a number belongs should be corrected, not guessed.
import { Integer } from '../http/integer'
import { integer } from './env'
import { Type as t, type Static, type TProperties, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

/**
 * Chat configuration, read from the environment. An empty variable counts as unset; any other bad
 * value throws an `Error` whose one-line message names the variable.
 *
 * - `CHAT_PROVIDERS` (`{}`): a JSON object naming upstreams, e.g.
 *   `{"deepseek": {"baseUrl": "https://api.deepseek.com/v1", "apiKeyEnv": "DEEPSEEK_API_KEY"}}`.
 *   Every provider takes:
 *   - `kind`: which plug-in speaks to it (`openai`, the default; the kinds are listed in
 *     src/chat/providers/index.ts, each documenting its own settings, which are an error on another kind);
 *   - `baseUrl` (required, http or https): the prefix before the API's paths, e.g. `https://api.openai.com/v1`;
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
 * - `CHAT_MODELS` (`echo` and `echo-reasoner` on the echo provider): a JSON object mapping each public
 *   model name (listed by `GET /models`) to an ordered list of `{"provider", "model"}` attempts, where
 *   `model` is the name sent upstream and `provider` a `CHAT_PROVIDERS` name or `echo`. Later entries are
 *   fallbacks, tried only before the first byte reaches the client.
 * - `CHAT_KEEPALIVE_MS` (15000): the interval of keep-alives while a stream waits on its upstream.
 * - `ECHO_TOKEN_DELAY_MS` (0): the pause between tokens streamed by `echo` (0: as fast as possible).
 * - `CHAT_MAX_EVENT_BYTES` (2 MiB, at least 4096): the most bytes one streamed upstream event may hold;
 *   past it the relay stops reading and ends the stream with an error event.
 * - `CHAT_MAX_RESPONSE_BYTES` (8 MiB, at least 65536): the most bytes one completion may send, streamed
 *   or not, counted while it is made. An `echo` answer that would be larger whole is a 400 naming the
 *   parameter to lower; a stream that reaches it (any provider) ends with an error event
 *   (`code: "response_too_large"`).
 *
 * `kinds` are the provider plug-ins' settings, passed in by the composition (configuration knows no
 * feature): src/chat/providers/index.ts.
 */
export function parseChatConfig(env: Record<string, string | undefined>, kinds: ProviderKinds): ChatConfig {
  const providers = parseProviders(env, kinds)
  const models = parseModels(env.CHAT_MODELS, providers)
  return {
    providers,
    models,
    keepAliveMs: integer(env, 'CHAT_KEEPALIVE_MS', DEFAULT_KEEP_ALIVE_MS, 1),
    echoTokenDelayMs: integer(env, 'ECHO_TOKEN_DELAY_MS', 0, 0),
    maxResponseBytes: integer(env, 'CHAT_MAX_RESPONSE_BYTES', DEFAULT_MAX_RESPONSE_BYTES, 65_536),
    maxEventBytes: integer(env, 'CHAT_MAX_EVENT_BYTES', DEFAULT_MAX_EVENT_BYTES, 4_096),
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

const Timeout = Integer({ minimum: 1 })

/** Settings every provider takes, whatever its kind. */
const COMMON_SETTINGS = {
  baseUrl: t.String({ minLength: 1 }),
  apiKey: t.Optional(t.String({ minLength: 1 })),
  apiKeyEnv: t.Optional(t.String({ minLength: 1 })),
  headers: t.Optional(t.Record(t.String(), t.String())),
  connectTimeoutMs: t.Optional(Timeout),
  firstTokenTimeoutMs: t.Optional(Timeout),
  idleTimeoutMs: t.Optional(Timeout),
  requestTimeoutMs: t.Optional(Timeout),
  maxRetries: t.Optional(Integer({ minimum: 0, maximum: 10 })),
  retryBaseMs: t.Optional(Integer({ minimum: 0 })),
  retryMaxMs: t.Optional(Integer({ minimum: 0 })),
}

/**
 * What configuration needs of one provider plug-in: the settings its kind adds to the common ones
 * (optional keys, validated at start), their defaults, and a check of what a schema cannot say.
 */
export type ProviderKindSettings = {
  settings: TProperties
  defaults?: Readonly<Record<string, unknown>>
  /** Throws an `Error` naming `at` for a value the schema accepts but the provider cannot use. */
  check?(settings: Readonly<Record<string, unknown>>, at: string): void
}

/** The provider plug-ins by `kind`; the first is the default kind. */
export type ProviderKinds = Readonly<Record<string, ProviderKindSettings>>

const ModelRoute = t.Object(
  { provider: t.String({ minLength: 1 }), model: t.String({ minLength: 1 }) },
  { additionalProperties: false },
)

const ModelsSetting = t.Record(t.String({ minLength: 1 }), t.Array(ModelRoute, { minItems: 1 }))

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
export type ProviderConfig = Omit<Settings, 'apiKeyEnv' | Tuning> & Required<Pick<Settings, Tuning>> & { kind?: string }
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

/** What `GET /models` lists when `CHAT_MODELS` is unset. */
export const DEFAULT_MODELS: Record<string, ModelRoute[]> = {
  echo: [{ provider: ECHO_PROVIDER, model: 'echo' }],
  'echo-reasoner': [{ provider: ECHO_PROVIDER, model: 'echo-reasoner' }],
}

function parseProviders(env: Record<string, string | undefined>, kinds: ProviderKinds): Record<string, ProviderConfig> {
  const name = 'CHAT_PROVIDERS'
  const kindNames = Object.keys(kinds)
  const extras: TProperties = {}
  for (const kind of Object.values(kinds)) Object.assign(extras, kind.settings)
  const schema = t.Record(
    t.String({ minLength: 1 }),
    t.Object(
      { ...COMMON_SETTINGS, ...extras, kind: t.Optional(t.Union(kindNames.map((kind) => t.Literal(kind)))) },
      { additionalProperties: false },
    ),
  )
  const settings = (parseJson(name, env[name], schema) ?? {}) as Record<
    string,
    Settings & { kind?: string; apiKeyEnv?: string } & Record<string, unknown>
  >
  const providers: Record<string, ProviderConfig> = {}
  for (const [provider, { apiKeyEnv, ...entry }] of Object.entries(settings)) {
    const at = `${name}: provider '${provider}'`
    if (provider === ECHO_PROVIDER)
      throw new Error(`${at}: the name '${ECHO_PROVIDER}' is reserved for the built-in provider`)
    if (!isHttpUrl(entry.baseUrl))
      throw new Error(`${at}: baseUrl must be an http:// or https:// URL, got '${entry.baseUrl}'`)
    if (entry.apiKey !== undefined && apiKeyEnv !== undefined)
      throw new Error(`${at}: set apiKey or apiKeyEnv, not both`)
    let apiKey = entry.apiKey
    if (apiKeyEnv !== undefined) {
      apiKey = env[apiKeyEnv]
      if (!apiKey) throw new Error(`${at}: apiKeyEnv names ${apiKeyEnv}, which is unset or empty`)
    }
    // Checked here, once: a key with a trailing newline (a file read with `$(cat …)`) failed every
    // request as a retried "could not reach the upstream".
    if (apiKey !== undefined) checkHeaderValue(`${at}: the API key${apiKeyEnv ? ` in ${apiKeyEnv}` : ''}`, apiKey)
    for (const [header, value] of Object.entries(entry.headers ?? {})) {
      if (!HEADER_NAME.test(header)) throw new Error(`${at}: headers: '${header}' is not a valid HTTP header name`)
      checkHeaderValue(`${at}: header '${header}'`, value)
    }
    const kindName = entry.kind ?? kindNames[0]!
    const kind = kinds[kindName]!
    const misplaced = Object.keys(entry).find((key) => key in extras && !(key in kind.settings))
    if (misplaced) {
      const owner = kindNames.find((other) => misplaced in kinds[other]!.settings)
      throw new Error(`${at}: ${misplaced} applies only to "kind": "${owner}"`)
    }
    kind.check?.(entry, at)
    providers[provider] = <ProviderConfig>{
      ...PROVIDER_DEFAULTS,
      ...kind.defaults,
      ...entry,
      baseUrl: entry.baseUrl.replace(/\/+$/, ''),
      ...(apiKey === undefined ? {} : { apiKey }),
    }
  }
  return providers
}

/** RFC 9110 token characters. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
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

function parseModels(raw: string | undefined, providers: Record<string, ProviderConfig>): Record<string, ModelRoute[]> {
  const name = 'CHAT_MODELS'
  const models = parseJson(name, raw, ModelsSetting)
  if (models === undefined) return DEFAULT_MODELS
  if (Object.keys(models).length === 0) throw new Error(`${name}: must name at least one model`)
  for (const [model, routes] of Object.entries(models)) {
    for (const route of routes) {
      if (route.provider !== ECHO_PROVIDER && !(route.provider in providers)) {
        throw new Error(
          `${name}: model '${model}' uses provider '${route.provider}', which CHAT_PROVIDERS does not define`,
        )
      }
    }
  }
  return models
}

function parseJson<Schema extends TSchema>(
  name: string,
  raw: string | undefined,
  schema: Schema,
): Static<Schema> | undefined {
  if (raw === undefined || raw.trim() === '') return undefined
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch (error) {
    throw new Error(`${name}: not valid JSON (${(error as Error).message})`)
  }
  const problem = Value.Errors(schema, value).First()
  if (problem) throw new Error(`${name}: ${problem.path || '(root)'}: ${problem.message}`)
  return value as Static<Schema>
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}
