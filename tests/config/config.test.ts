import { PROVIDER_KINDS } from '../../src/chat/providers'
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ConfigError, loadConfig } from '../../src/config'
import { buildRegistry } from '../../src/chat/registry'
import { createEchoProvider } from '../../src/chat/providers/echo/echo'
import { PROVIDER_DEFAULTS } from '../../src/config/chat'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

describe('configuration from the environment', () => {
  test('defaults', () => {
    const config = loadConfig({}, PROVIDER_KINDS)
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      databaseUrl: undefined,
      dataDir: './data',
      logLevel: 'info',
      bodyLimit: 1024 * 1024,
      migrateOnStart: true,
      nodeEnv: 'development',
      workers: 1,
      gcIntervalMs: 500,
      responses: { retentionDays: 30, maxStoredBytes: 8 * 1024 * 1024 },
      docsMaxPageHtml: 4 * 1024 * 1024,
    })
  })

  test('paced garbage collection is on by default only with the embedded PGlite', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db:5432/x' }, PROVIDER_KINDS).gcIntervalMs).toBe(0)
    expect(
      loadConfig({ DATABASE_URL: 'postgres://u@db:5432/x', GC_INTERVAL_MS: '250' }, PROVIDER_KINDS).gcIntervalMs,
    ).toBe(250)
    expect(loadConfig({ GC_INTERVAL_MS: '0' }, PROVIDER_KINDS).gcIntervalMs).toBe(0)
  })

  test('every variable is read', () => {
    const config = loadConfig(
      {
        PORT: '8080',
        HOST: '127.0.0.1',
        DATABASE_URL: 'postgres://u@db:5432/x',
        TRELLIS_DATA_DIR: '/data',
        DB_POOL_SIZE: '4',
        LOG_LEVEL: 'warn',
        BODY_LIMIT: '2mb',
        MIGRATE_ON_START: 'false',
        NODE_ENV: 'production',
        WORKERS: '2',
        SHUTDOWN_TIMEOUT_MS: '2500',
        GC_INTERVAL_MS: '1000',
        RESPONSES_RETENTION_DAYS: '7',
        RESPONSES_MAX_STORED_BYTES: '512kb',
        DOCS_MAX_PAGE_HTML: '1mb',
      },
      PROVIDER_KINDS,
    )
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: 'postgres://u@db:5432/x',
      dataDir: '/data',
      dbPoolSize: 4,
      logLevel: 'warn',
      bodyLimit: 2 * 1024 * 1024,
      migrateOnStart: false,
      nodeEnv: 'production',
      workers: 2,
      shutdownTimeoutMs: 2500,
      gcIntervalMs: 1000,
      responses: { retentionDays: 7, maxStoredBytes: 512 * 1024 },
      docsMaxPageHtml: 1024 * 1024,
    })
  })

  test.each([
    [{ PORT: 'abc' }, 'PORT must be a whole number, got "abc"'],
    [{ PORT: '70000' }, 'PORT must be between 0 and 65535, got 70000'],
    [{ PORT: '-1' }, 'PORT must be a whole number'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of debug, info, warn, error, silent, got "loud"'],
    [{ BODY_LIMIT: 'lots' }, 'BODY_LIMIT must be a size such as 1048576, 512kb or 1mb, got "lots"'],
    [{ BODY_LIMIT: '1' }, 'BODY_LIMIT must be between 1kb and 64mb'],
    [{ MIGRATE_ON_START: 'maybe' }, 'MIGRATE_ON_START must be true or false, got "maybe"'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must start with postgres:// or postgresql://'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL is not a URL'],
    [{ DB_POOL_SIZE: '0' }, 'DB_POOL_SIZE must be between 1 and 1000'],
    [{ WORKERS: '2' }, 'WORKERS > 1 needs DATABASE_URL'],
    [{ GC_INTERVAL_MS: '-5' }, 'GC_INTERVAL_MS must be a whole number'],
    [{ RESPONSES_RETENTION_DAYS: '0' }, 'RESPONSES_RETENTION_DAYS must be between 1 and 3650'],
    [{ RESPONSES_MAX_STORED_BYTES: 'huge' }, 'RESPONSES_MAX_STORED_BYTES must be a size'],
  ])('%o is refused with one clear line', (env, message) => {
    expect(() => loadConfig(env, PROVIDER_KINDS)).toThrow(ConfigError)
    expect(() => loadConfig(env, PROVIDER_KINDS)).toThrow(message)
  })
})

describe('chat configuration is validated at start too', () => {
  test('a bad CHAT_MODELS stops the server with one line naming the variable', () => {
    expect(() => loadConfig({ CHAT_MODELS: '{not json' }, PROVIDER_KINDS)).toThrow(ConfigError)
    expect(() => loadConfig({ CHAT_MODELS: '{not json' }, PROVIDER_KINDS)).toThrow('CHAT_MODELS')
  })

  test('with nothing configured, echo and echo-reasoner are served', () => {
    expect(Object.keys(loadConfig({}, PROVIDER_KINDS).chat.models).sort()).toEqual(['echo', 'echo-reasoner'])
  })
})

describe('an anthropic provider in CHAT_PROVIDERS (issue #15)', () => {
  const providers = (settings: Record<string, unknown>) =>
    JSON.stringify({ claude: { baseUrl: 'https://api.anthropic.com/v1/', ...settings } })

  test('kind anthropic: its own defaults filled in (anthropic-version, max_tokens), thinking off', () => {
    const config = loadConfig(
      {
        CHAT_PROVIDERS: providers({ kind: 'anthropic', apiKeyEnv: 'ANTHROPIC_API_KEY' }),
        ANTHROPIC_API_KEY: 'sk-ant-1',
      },
      PROVIDER_KINDS,
    )
    expect<unknown>(config.chat.providers.claude).toEqual({
      ...PROVIDER_DEFAULTS,
      kind: 'anthropic',
      baseUrl: 'https://api.anthropic.com/v1',
      apiKey: 'sk-ant-1',
      anthropicVersion: '2023-06-01',
      defaultMaxTokens: 4096,
    })
  })

  test('every anthropic option is read', () => {
    const config = loadConfig(
      {
        CHAT_PROVIDERS: providers({
          kind: 'anthropic',
          apiKey: 'k',
          anthropicVersion: '2024-10-22',
          defaultMaxTokens: 8000,
          thinkingBudgetTokens: 2048,
        }),
      },
      PROVIDER_KINDS,
    )
    expect(config.chat.providers.claude).toMatchObject({
      anthropicVersion: '2024-10-22',
      defaultMaxTokens: 8000,
      thinkingBudgetTokens: 2048,
    })
  })

  test('an openai provider gets none of them', () => {
    expect(loadConfig({ CHAT_PROVIDERS: providers({ kind: 'openai' }) }, PROVIDER_KINDS).chat.providers.claude).toEqual(
      { ...PROVIDER_DEFAULTS, kind: 'openai', baseUrl: 'https://api.anthropic.com/v1' },
    )
  })

  test('the registry builds it by kind, named anthropic:<name>', async () => {
    const config = loadConfig(
      {
        CHAT_PROVIDERS: JSON.stringify({
          claude: { kind: 'anthropic', baseUrl: 'http://a.example/v1' },
          deepseek: { baseUrl: 'http://d.example/v1' },
        }),
        CHAT_MODELS: JSON.stringify({
          c: [
            { provider: 'claude', model: 'claude-x' },
            { provider: 'deepseek', model: 'd' },
          ],
        }),
      },
      PROVIDER_KINDS,
    )
    const served: string[] = []
    const registry = buildRegistry(config.chat, { echo: createEchoProvider })
    await registry
      .completeWith('c', new AbortController().signal, async (entry) => {
        served.push(entry.provider.name, String(Boolean(entry.provider.messages)))
        throw new Error('stop')
      })
      .catch(() => {})
    expect(served).toEqual(['anthropic:claude', 'true'])
  })

  test.each([
    [{ kind: 'gemini' }, 'CHAT_PROVIDERS: /claude/kind'],
    [
      { anthropicVersion: '2023-06-01' },
      `CHAT_PROVIDERS: provider 'claude': anthropicVersion applies only to "kind": "anthropic"`,
    ],
    [
      { kind: 'openai', defaultMaxTokens: 100 },
      `CHAT_PROVIDERS: provider 'claude': defaultMaxTokens applies only to "kind": "anthropic"`,
    ],
    [{ thinkingBudgetTokens: 2048 }, `provider 'claude': thinkingBudgetTokens applies only to "kind": "anthropic"`],
    [{ kind: 'anthropic', defaultMaxTokens: 0 }, 'CHAT_PROVIDERS: /claude/defaultMaxTokens'],
    [{ kind: 'anthropic', defaultMaxTokens: 1.5 }, 'CHAT_PROVIDERS: /claude/defaultMaxTokens'],
    [{ kind: 'anthropic', defaultMaxTokens: '4096' }, 'CHAT_PROVIDERS: /claude/defaultMaxTokens'],
    [{ kind: 'anthropic', thinkingBudgetTokens: 512 }, 'CHAT_PROVIDERS: /claude/thinkingBudgetTokens'],
    [{ kind: 'anthropic', anthropicVersion: '' }, 'CHAT_PROVIDERS: /claude/anthropicVersion'],
    [
      { kind: 'anthropic', anthropicVersion: '2023-06-01\n' },
      `provider 'claude': anthropicVersion starts or ends with whitespace`,
    ],
  ])('%o is refused with one clear line', (settings, message) => {
    const env = { CHAT_PROVIDERS: providers(settings) }
    expect(() => loadConfig(env, PROVIDER_KINDS)).toThrow(ConfigError)
    expect(() => loadConfig(env, PROVIDER_KINDS)).toThrow(message)
  })
})

describe('responses on an openai provider in CHAT_PROVIDERS (issue #26)', () => {
  const providers = (settings: Record<string, unknown>) =>
    JSON.stringify({ oai: { baseUrl: 'https://api.openai.com/v1', ...settings } })
  const registryWith = (settings: Record<string, unknown>) =>
    buildRegistry(
      loadConfig(
        {
          CHAT_PROVIDERS: providers(settings),
          CHAT_MODELS: JSON.stringify({ m: [{ provider: 'oai', model: 'gpt-x' }] }),
        },
        PROVIDER_KINDS,
      ).chat,
      { echo: createEchoProvider },
    )
  /** Whether the registry's provider for `m` relays the Responses API natively. */
  const relaysNatively = async (settings: Record<string, unknown>) => {
    let native: boolean | undefined
    await registryWith(settings)
      .completeWith('m', new AbortController().signal, async (entry) => {
        native = entry.provider.responses !== undefined
        throw new Error('stop')
      })
      .catch(() => {})
    return native
  }

  test.each([
    [{ responses: 'native' }, 'native'],
    [{ kind: 'openai', responses: 'native' }, 'native'],
    [{ responses: 'translate' }, 'translate'],
  ])('%o is read', (settings, value) => {
    expect(loadConfig({ CHAT_PROVIDERS: providers(settings) }, PROVIDER_KINDS).chat.providers.oai).toMatchObject({
      responses: value,
    })
  })

  test('only "native" gives the provider a native Responses relay; "translate" is the default', async () => {
    expect(await relaysNatively({ responses: 'native' })).toBe(true)
    expect(await relaysNatively({ responses: 'translate' })).toBe(false)
    expect(await relaysNatively({})).toBe(false)
  })

  test.each([
    [{ kind: 'anthropic', responses: 'native' }, `provider 'oai': responses applies only to "kind": "openai"`],
    [{ kind: 'anthropic', responses: 'translate' }, `provider 'oai': responses applies only to "kind": "openai"`],
    [{ responses: 'passthrough' }, 'CHAT_PROVIDERS: /oai/responses'],
    [{ responses: 'Native' }, 'CHAT_PROVIDERS: /oai/responses'],
    [{ responses: true }, 'CHAT_PROVIDERS: /oai/responses'],
    [{ responses: '' }, 'CHAT_PROVIDERS: /oai/responses'],
    [{ responses: null }, 'CHAT_PROVIDERS: /oai/responses'],
  ])('%o is refused with one clear line', (settings, message) => {
    const env = { CHAT_PROVIDERS: providers(settings) }
    expect(() => loadConfig(env, PROVIDER_KINDS)).toThrow(ConfigError)
    expect(() => loadConfig(env, PROVIDER_KINDS)).toThrow(message)
  })
})
