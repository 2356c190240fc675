import { PROVIDER_KINDS } from '../../src/chat/providers'
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { DEFAULT_MODELS, parseChatConfig, PROVIDER_DEFAULTS } from '../../src/config/chat'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

describe('chat configuration from the environment', () => {
  test('with nothing set: echo and echo-reasoner, 15 s keep-alive, echo at full speed', () => {
    expect(parseChatConfig({}, PROVIDER_KINDS)).toEqual({
      providers: {},
      models: DEFAULT_MODELS,
      keepAliveMs: 15_000,
      echoTokenDelayMs: 0,
      maxResponseBytes: 8 * 1024 * 1024,
      maxEventBytes: 2 * 1024 * 1024,
    })
  })

  test('empty variables count as unset', () => {
    expect(
      parseChatConfig(
        { CHAT_PROVIDERS: '', CHAT_MODELS: ' ', CHAT_KEEPALIVE_MS: '', ECHO_TOKEN_DELAY_MS: '' },
        PROVIDER_KINDS,
      ),
    ).toEqual(parseChatConfig({}, PROVIDER_KINDS))
  })

  test('a full configuration: defaults filled in, apiKeyEnv resolved, trailing slash dropped', () => {
    const config = parseChatConfig(
      {
        CHAT_PROVIDERS: JSON.stringify({
          deepseek: { baseUrl: 'https://api.deepseek.com/v1/', apiKeyEnv: 'DEEPSEEK_API_KEY', maxRetries: 1 },
          local: { baseUrl: 'http://127.0.0.1:11434/v1', idleTimeoutMs: 120000, headers: { 'x-tenant': 'plants' } },
        }),
        CHAT_MODELS: JSON.stringify({
          'deepseek-chat': [
            { provider: 'deepseek', model: 'deepseek-chat' },
            { provider: 'local', model: 'qwen2.5:7b' },
          ],
          offline: [{ provider: 'echo', model: 'echo' }],
        }),
        DEEPSEEK_API_KEY: 'sk-test',
        CHAT_KEEPALIVE_MS: '5000',
        ECHO_TOKEN_DELAY_MS: '50',
      },
      PROVIDER_KINDS,
    )
    expect(config.providers.deepseek).toEqual({
      ...PROVIDER_DEFAULTS,
      baseUrl: 'https://api.deepseek.com/v1',
      apiKey: 'sk-test',
      maxRetries: 1,
    })
    expect(config.providers.local).toEqual({
      ...PROVIDER_DEFAULTS,
      baseUrl: 'http://127.0.0.1:11434/v1',
      idleTimeoutMs: 120000,
      headers: { 'x-tenant': 'plants' },
    })
    // The built-in models stay beside the configured ones (issue #29: CHAT_MODELS once dropped them silently).
    expect(Object.keys(config.models)).toEqual(['deepseek-chat', 'offline', 'echo', 'echo-reasoner'])
    expect(config.models['deepseek-chat'][1]).toEqual({ provider: 'local', model: 'qwen2.5:7b' })
    expect(config.keepAliveMs).toBe(5000)
    expect(config.echoTokenDelayMs).toBe(50)
  })

  const provider = (settings: Record<string, unknown>) =>
    JSON.stringify({ up: { baseUrl: 'http://up.example/v1', ...settings } })

  // Every bad value fails loudly, with a one-line message that names the variable.
  const BAD: { env: Record<string, string>; message: string }[] = [
    { env: { CHAT_PROVIDERS: '{not json' }, message: 'CHAT_PROVIDERS: not valid JSON' },
    { env: { CHAT_PROVIDERS: '[]' }, message: 'CHAT_PROVIDERS: (root): Expected object' },
    {
      env: { CHAT_PROVIDERS: JSON.stringify({ up: {} }) },
      message: 'CHAT_PROVIDERS: /up/baseUrl: required for kind openai',
    },
    { env: { CHAT_PROVIDERS: provider({ baseURL: 'x' }) }, message: 'CHAT_PROVIDERS: /up/baseURL' },
    {
      env: { CHAT_PROVIDERS: JSON.stringify({ up: { baseUrl: 'ftp://up.example' } }) },
      message: "provider 'up': baseUrl must be an http:// or https:// URL",
    },
    {
      env: { CHAT_PROVIDERS: JSON.stringify({ up: { baseUrl: 'api.openai.com/v1' } }) },
      message: "provider 'up': baseUrl must be an http:// or https:// URL",
    },
    { env: { CHAT_PROVIDERS: provider({ connectTimeoutMs: 0 }) }, message: 'CHAT_PROVIDERS: /up/connectTimeoutMs' },
    { env: { CHAT_PROVIDERS: provider({ idleTimeoutMs: '30000' }) }, message: 'CHAT_PROVIDERS: /up/idleTimeoutMs' },
    { env: { CHAT_PROVIDERS: provider({ maxRetries: 1.5 }) }, message: 'CHAT_PROVIDERS: /up/maxRetries' },
    { env: { CHAT_PROVIDERS: provider({ maxRetries: 50 }) }, message: 'CHAT_PROVIDERS: /up/maxRetries' },
    { env: { CHAT_PROVIDERS: provider({ headers: { 'x-n': 1 } }) }, message: 'CHAT_PROVIDERS: /up/headers/x-n' },
    {
      env: { CHAT_PROVIDERS: provider({ apiKey: 'a', apiKeyEnv: 'B' }), B: 'b' },
      message: "provider 'up': set apiKey or apiKeyEnv, not both",
    },
    {
      env: { CHAT_PROVIDERS: provider({ apiKeyEnv: 'MISSING_KEY' }) },
      message: "provider 'up': apiKeyEnv names MISSING_KEY, which is unset or empty",
    },
    {
      env: { CHAT_PROVIDERS: JSON.stringify({ echo: { baseUrl: 'http://up.example' } }) },
      message: "CHAT_PROVIDERS: provider 'echo': the name 'echo' is reserved",
    },
    {
      env: { CHAT_PROVIDERS: provider({ apiKeyEnv: 'KEY' }), KEY: 'sk-abc\n' },
      message: "provider 'up': the API key in KEY starts or ends with whitespace (a line break from a file?)",
    },
    {
      env: { CHAT_PROVIDERS: provider({ apiKey: ' sk-abc' }) },
      message: "provider 'up': the API key starts or ends with whitespace",
    },
    {
      env: { CHAT_PROVIDERS: provider({ apiKey: 'sk-a\nb' }) },
      message: "provider 'up': the API key holds a character an HTTP header cannot carry (U+000A)",
    },
    {
      env: { CHAT_PROVIDERS: provider({ apiKey: 'sk-ä' }) },
      message: 'a character an HTTP header cannot carry (U+00E4)',
    },
    {
      env: { CHAT_PROVIDERS: provider({ headers: { 'bad name': 'v' } }) },
      message: "headers: 'bad name' is not a valid HTTP header name",
    },
    {
      env: { CHAT_PROVIDERS: provider({ headers: { 'x-org': 'org\r\nx-injected: 1' } }) },
      message: "header 'x-org' holds a character an HTTP header cannot carry (U+000D)",
    },
    { env: { CHAT_MODELS: '{}' }, message: 'CHAT_MODELS: must name at least one model' },
    { env: { CHAT_MODELS: JSON.stringify({ m: [] }) }, message: 'CHAT_MODELS: /m' },
    { env: { CHAT_MODELS: JSON.stringify({ m: { provider: 'echo', model: 'echo' } }) }, message: 'CHAT_MODELS: /m' },
    { env: { CHAT_MODELS: JSON.stringify({ m: [{ provider: 'echo' }] }) }, message: 'CHAT_MODELS: /m/0/model' },
    {
      env: { CHAT_MODELS: JSON.stringify({ m: [{ provider: 'nowhere', model: 'x' }] }) },
      message: "CHAT_MODELS: model 'm' uses provider 'nowhere', which CHAT_PROVIDERS does not define",
    },
    { env: { CHAT_KEEPALIVE_MS: '0' }, message: 'CHAT_KEEPALIVE_MS must be at least 1, got 0' },
    { env: { CHAT_KEEPALIVE_MS: '15s' }, message: 'CHAT_KEEPALIVE_MS must be a whole number, got "15s"' },
    { env: { CHAT_KEEPALIVE_MS: '1e3' }, message: 'CHAT_KEEPALIVE_MS' },
    { env: { ECHO_TOKEN_DELAY_MS: '-1' }, message: 'ECHO_TOKEN_DELAY_MS must be a whole number, got "-1"' },
    { env: { ECHO_TOKEN_DELAY_MS: '2.5' }, message: 'ECHO_TOKEN_DELAY_MS' },
  ]

  for (const { env, message } of BAD) {
    test(`rejects ${JSON.stringify(env)}`, () => {
      let thrown: unknown
      try {
        parseChatConfig(env, PROVIDER_KINDS)
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(Error)
      expect((thrown as Error).message).toContain(message)
      expect((thrown as Error).message).not.toContain('\n')
    })
  }

  test('an API key never appears in an error message, not even a malformed one', () => {
    expect(() =>
      parseChatConfig({ CHAT_PROVIDERS: provider({ apiKey: 'sk-secret-value\n' }) }, PROVIDER_KINDS),
    ).not.toThrow(/sk-secret-value/)
  })

  test('an API key never appears in an error message', () => {
    const env = { CHAT_PROVIDERS: JSON.stringify({ up: { baseUrl: 'nope', apiKey: 'sk-secret-value' } }) }
    expect(() => parseChatConfig(env, PROVIDER_KINDS)).toThrow(/baseUrl/)
    expect(() => parseChatConfig(env, PROVIDER_KINDS)).not.toThrow(/sk-secret-value/)
  })
})
