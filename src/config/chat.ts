// Plain TypeBox, not Elysia's `t`: Elysia's numeric types accept numeric strings, and a
// configuration file that says "30000" where a number belongs should be corrected, not guessed.
import { Integer } from '../http/integer'
import { integer } from './env'
import { Type as t, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

/**
 * Chat configuration, read from the environment.
 *
 * | Variable | Default | Meaning |
 * |---|---|---|
 * | `CHAT_PROVIDERS` | `{}` | JSON object naming upstreams: `{"<name>": {"baseUrl": "https://api.deepseek.com/v1", "apiKeyEnv": "DEEPSEEK_API_KEY"}}`. Per provider: `kind` (`openai`, the default: an OpenAI-compatible server, relayed as it answers; or `anthropic`: Anthropic's Messages API, translated to and from OpenAI's format and also served natively to `/v1/messages`); `baseUrl` (required, http/https, the prefix before `/chat/completions`, or before `/messages` for `anthropic`, e.g. `https://api.anthropic.com/v1`); `apiKey` or `apiKeyEnv` (the name of another variable holding the key; omit both for keyless servers such as Ollama); `headers` (extra request headers); `connectTimeoutMs` (10000, until response headers of a stream); `firstTokenTimeoutMs` (60000, from headers to the first chunk); `idleTimeoutMs` (30000, silence allowed between chunks); `requestTimeoutMs` (600000, a whole non-streaming request); `maxRetries` (2, extra attempts on 429, 5xx, connect errors and timeouts before the first byte reaches the client); `retryBaseMs` (250, first back-off, doubled per attempt); `retryMaxMs` (10000, cap on any back-off, including an upstream `Retry-After`). Only with `"kind": "anthropic"` (elsewhere they are an error): `anthropicVersion` (`2023-06-01`, sent as `anthropic-version`); `defaultMaxTokens` (4096, the `max_tokens` sent when the client sets neither `max_tokens` nor `max_completion_tokens`, which the Messages API requires); `thinkingBudgetTokens` (unset = no extended thinking; at least 1024: every request thinks with this `budget_tokens` unless it says otherwise). A client asks for thinking with `reasoning_effort`: `minimal` 1024, `low` 2048, `medium` 8192, `high` 16384, `xhigh` 32768 budget tokens, `none` turns the provider's thinking off; the thoughts stream as `reasoning_content`. With thinking and no client limit, `max_tokens` is `defaultMaxTokens` plus the budget; a client limit caps both, the budget shrinking to fit (below 1024 left, `reasoning_effort` is a 400 and the provider's own thinking is skipped). The name `echo` is reserved for the built-in offline provider. |
 * | `CHAT_MODELS` | `{"echo":[{"provider":"echo","model":"echo"}],"echo-reasoner":[{"provider":"echo","model":"echo-reasoner"}]}` | JSON object mapping each public model name (listed by `GET /models`) to an ordered list of `{"provider","model"}` attempts; `model` is the name sent upstream. Later entries are fallbacks, tried only before the first byte reaches the client. `provider` is a `CHAT_PROVIDERS` name or `echo`. |
 * | `CHAT_KEEPALIVE_MS` | `15000` | Interval of `: keep-alive` comments while a stream waits on its upstream; a positive integer. |
 * | `ECHO_TOKEN_DELAY_MS` | `0` | Pause between tokens streamed by the `echo` provider (`0` = as fast as possible). |
 * | `CHAT_MAX_EVENT_BYTES` | `2097152` (2 MiB) | Most bytes one streamed upstream event may hold before it ends; past it the relay stops reading and ends the stream with an error event. At least 4096. |
 * | `CHAT_MAX_RESPONSE_BYTES` | `8388608` (8 MiB) | Most bytes one completion may send, streamed or not, counted while it is made. An `echo` answer that would be larger whole is a 400 naming the parameter to lower, streamed or not; a stream that reaches it (any provider) ends with an error event (`code: "response_too_large"`). At least 65536. |
 *
 * An empty variable counts as unset. Any other bad value throws an `Error` whose one-line message names the variable.
 */
export function parseChatConfig(env: Record<string, string | undefined>): ChatConfig {
  const providers = parseProviders(env)
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

/** Default of `CHAT_MAX_RESPONSE_BYTES`: the most one completion may send. */
/** How often `: keep-alive` goes out while a stream waits on its upstream (`CHAT_KEEPALIVE_MS`); stated here only. */
export const DEFAULT_KEEP_ALIVE_MS = 15_000

export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024

/** Default of `CHAT_MAX_EVENT_BYTES`: the most one streamed upstream event may hold. */
export const DEFAULT_MAX_EVENT_BYTES = 2 * 1024 * 1024

/** The name of the built-in offline provider; `CHAT_PROVIDERS` may not redefine it. */
export const ECHO_PROVIDER = 'echo'

const Timeout = Integer({ minimum: 1 })

/** `anthropic-version` sent when a provider sets none: the version the Messages API is documented against. */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01'

/** `max_tokens` an `anthropic` provider sends when the client sets none (the Messages API requires one). */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096

/** The smallest thinking budget the Messages API accepts. */
export const MIN_THINKING_BUDGET = 1024

const ProviderSettings = t.Object(
  {
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
    kind: t.Optional(t.Union([t.Literal('openai'), t.Literal('anthropic')])),
    anthropicVersion: t.Optional(t.String({ minLength: 1 })),
    defaultMaxTokens: t.Optional(Integer({ minimum: 1 })),
    thinkingBudgetTokens: t.Optional(Integer({ minimum: MIN_THINKING_BUDGET })),
  },
  { additionalProperties: false },
)

/** Settings that only an `anthropic` provider reads; on an `openai` one they are a mistake worth a clear error. */
const ANTHROPIC_ONLY = ['anthropicVersion', 'defaultMaxTokens', 'thinkingBudgetTokens'] as const

const ProvidersSetting = t.Record(t.String({ minLength: 1 }), ProviderSettings)

const ModelRoute = t.Object(
  { provider: t.String({ minLength: 1 }), model: t.String({ minLength: 1 }) },
  { additionalProperties: false },
)

const ModelsSetting = t.Record(t.String({ minLength: 1 }), t.Array(ModelRoute, { minItems: 1 }))

type Settings = Static<typeof ProviderSettings>
type Tuning = 'connectTimeoutMs' | 'firstTokenTimeoutMs' | 'idleTimeoutMs' | 'requestTimeoutMs' | 'maxRetries' | 'retryBaseMs' | 'retryMaxMs'

/** One upstream after defaults are applied and `apiKeyEnv` is resolved to `apiKey`. */
export type ProviderConfig = Omit<Settings, 'apiKeyEnv' | Tuning> & Required<Pick<Settings, Tuning>>
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

function parseProviders(env: Record<string, string | undefined>): Record<string, ProviderConfig> {
  const name = 'CHAT_PROVIDERS'
  const settings = parseJson(name, env[name], ProvidersSetting) ?? {}
  const providers: Record<string, ProviderConfig> = {}
  for (const [provider, { apiKeyEnv, ...entry }] of Object.entries(settings)) {
    const at = `${name}: provider '${provider}'`
    if (provider === ECHO_PROVIDER) throw new Error(`${at}: the name '${ECHO_PROVIDER}' is reserved for the built-in provider`)
    if (!isHttpUrl(entry.baseUrl)) throw new Error(`${at}: baseUrl must be an http:// or https:// URL, got '${entry.baseUrl}'`)
    if (entry.apiKey !== undefined && apiKeyEnv !== undefined) throw new Error(`${at}: set apiKey or apiKeyEnv, not both`)
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
    if (entry.kind === 'anthropic') {
      if (entry.anthropicVersion !== undefined) checkHeaderValue(`${at}: anthropicVersion`, entry.anthropicVersion)
    } else {
      const misplaced = ANTHROPIC_ONLY.find((option) => entry[option] !== undefined)
      if (misplaced) throw new Error(`${at}: ${misplaced} applies only to "kind": "anthropic"`)
    }
    providers[provider] = {
      ...PROVIDER_DEFAULTS,
      ...(entry.kind === 'anthropic' ? { anthropicVersion: DEFAULT_ANTHROPIC_VERSION, defaultMaxTokens: DEFAULT_ANTHROPIC_MAX_TOKENS } : {}),
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

function checkHeaderValue(what: string, value: string): void {
  if (value !== value.trim()) throw new Error(`${what} starts or ends with whitespace (a line break from a file?); remove it`)
  const bad = /[^\t\x20-\x7e]/.exec(value)
  if (bad || !HEADER_VALUE.test(value)) {
    throw new Error(`${what} holds a character an HTTP header cannot carry (U+${bad![0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')})`)
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
        throw new Error(`${name}: model '${model}' uses provider '${route.provider}', which CHAT_PROVIDERS does not define`)
      }
    }
  }
  return models
}

function parseJson<Schema extends typeof ProvidersSetting | typeof ModelsSetting>(
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
