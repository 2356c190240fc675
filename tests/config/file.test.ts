import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROVIDER_KINDS } from '../../src/chat/providers'
import { ConfigError, ConfigFileInvalid, loadConfig } from '../../src/config'
import { PROVIDER_DEFAULTS } from '../../src/config/chat'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/** trellis.yaml (issue #29 §2): read, interpolated, validated where it is written, overridden by the environment. */

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'trellis-config-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let files = 0
/** `text` as a file of its own; the path is relative to `dir`, as the operator would name it. */
function write(text: string, name = `case-${++files}.yaml`): string {
  writeFileSync(join(dir, name), text)
  return name
}
const load = (text: string, env: Record<string, string> = {}) =>
  loadConfig(env, PROVIDER_KINDS, { file: write(text), cwd: dir })

/** The compiler-style lines a file gives, with its name as `F`. */
function findings(text: string, env: Record<string, string> = {}): string[] {
  const name = write(text)
  try {
    loadConfig(env, PROVIDER_KINDS, { file: name, cwd: dir })
  } catch (error) {
    if (error instanceof ConfigFileInvalid) return error.message.split('\n').map((line) => line.replace(name, 'F'))
    throw error
  }
  return []
}

const MINIMAL = `# trellis.yaml
providers:                      # what CHAT_PROVIDERS holds today
  deepseek: { baseUrl: "https://api.deepseek.com/v1", apiKey: "\${DEEPSEEK_API_KEY}" }
models:                         # what CHAT_MODELS holds today
  deepseek-chat: [{ provider: deepseek, model: deepseek-chat }]
`

describe('the minimal file of the issue', () => {
  test('serves deepseek-chat with the key from the environment, and echo beside it', () => {
    const config = load(MINIMAL, { DEEPSEEK_API_KEY: 'sk-from-env' })
    expect(config.chat.providers.deepseek).toEqual({
      ...PROVIDER_DEFAULTS,
      baseUrl: 'https://api.deepseek.com/v1',
      apiKey: 'sk-from-env',
    })
    expect(config.chat.models).toEqual({
      'deepseek-chat': [{ provider: 'deepseek', model: 'deepseek-chat' }],
      echo: [{ provider: 'echo', model: 'echo' }],
      'echo-reasoner': [{ provider: 'echo', model: 'echo-reasoner' }],
    })
    expect(config.file).toMatchObject({ path: join(dir, `case-${files}.yaml`), overridden: [] })
  })

  test('is the same configuration as the two variables it replaces', () => {
    const fromFile = load(MINIMAL, { DEEPSEEK_API_KEY: 'k' }).chat
    const fromEnv = loadConfig(
      {
        CHAT_PROVIDERS: '{"deepseek": {"baseUrl": "https://api.deepseek.com/v1", "apiKeyEnv": "DEEPSEEK_API_KEY"}}',
        CHAT_MODELS: '{"deepseek-chat": [{"provider": "deepseek", "model": "deepseek-chat"}]}',
        DEEPSEEK_API_KEY: 'k',
      },
      PROVIDER_KINDS,
    ).chat
    expect(fromFile).toEqual(fromEnv)
  })
})

describe('echo stays available unless the configuration says otherwise', () => {
  const names = (config: { chat: { models: object } }) => Object.keys(config.chat.models)

  test('models in the file: the built-in models follow them', () => {
    expect(names(load('models:\n  mine: [{ provider: echo, model: echo }]\n'))).toEqual([
      'mine',
      'echo',
      'echo-reasoner',
    ])
  })

  test('CHAT_MODELS too (it once dropped them silently)', () => {
    const config = loadConfig({ CHAT_MODELS: '{"mine": [{"provider": "echo", "model": "echo"}]}' }, PROVIDER_KINDS)
    expect(names(config)).toEqual(['mine', 'echo', 'echo-reasoner'])
  })

  test('a configured model of the same name wins', () => {
    const config = load('models:\n  echo: [{ provider: echo, model: echo-reasoner }]\n')
    expect(config.chat.models.echo).toEqual([{ provider: 'echo', model: 'echo-reasoner' }])
    expect(names(config)).toEqual(['echo', 'echo-reasoner'])
  })

  test('echo: false (or CHAT_ECHO=false) serves the configured models alone; the echo provider stays usable', () => {
    expect(names(load('echo: false\nmodels:\n  mine: [{ provider: echo, model: echo }]\n'))).toEqual(['mine'])
    const env = { CHAT_ECHO: 'false', CHAT_MODELS: '{"mine": [{"provider": "echo", "model": "echo"}]}' }
    expect(names(loadConfig(env, PROVIDER_KINDS))).toEqual(['mine'])
  })

  test('echo off with no model at all is refused: nothing would be served', () => {
    expect(findings('echo: false\n')).toEqual([
      'F:1:7: error echo: echo is off and no model is configured: nothing would be served; add models, or leave echo on',
    ])
    expect(() => loadConfig({ CHAT_ECHO: 'no' }, PROVIDER_KINDS)).toThrow(
      'CHAT_ECHO: echo is off and no model is configured',
    )
  })
})

test('limits: in the file may hold a money budget, in dollars', () => {
  expect(load('limits: { rpm: 60, budget_usd: 25.5 }\n').defaultLimits).toEqual({ rpm: 60, budget_usd: 25.5 })
})

describe('the environment overrides the file, setting by setting', () => {
  const FILE = `
server: { port: 8080, host: 127.0.0.1, bodyLimit: 2mb }
database: { dataDir: /srv/trellis, poolSize: 4 }
logLevel: warn
limits: { rpm: 60 }
chat: { keepAliveMs: 5000 }
providers:
  up: { baseUrl: "http://file.example/v1" }
models:
  m: [{ provider: up, model: x }]
`

  test('the file alone', () => {
    const config = load(FILE)
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      bodyLimit: 2 * 1024 * 1024,
      dataDir: '/srv/trellis',
      dbPoolSize: 4,
      logLevel: 'warn',
      defaultLimits: { rpm: 60 },
    })
    expect(config.chat.keepAliveMs).toBe(5000)
    expect(config.chat.providers.up!.baseUrl).toBe('http://file.example/v1')
  })

  test('a variable that is set wins, and replaces a JSON setting whole; an empty one counts as unset', () => {
    const config = load(FILE, {
      PORT: '9090',
      HOST: '',
      LOG_LEVEL: 'debug',
      TRELLIS_DEFAULT_LIMITS: '{"tpm": 1000}',
      CHAT_KEEPALIVE_MS: '7000',
      CHAT_PROVIDERS: '{"up": {"baseUrl": "http://env.example/v1"}}',
    })
    expect(config).toMatchObject({ port: 9090, host: '127.0.0.1', logLevel: 'debug', defaultLimits: { tpm: 1000 } })
    expect(config.chat.keepAliveMs).toBe(7000)
    expect(config.chat.providers.up!.baseUrl).toBe('http://env.example/v1')
    expect(config.file!.overridden).toEqual([
      { setting: 'server.port', variable: 'PORT' },
      { setting: 'logLevel', variable: 'LOG_LEVEL' },
      { setting: 'providers', variable: 'CHAT_PROVIDERS' },
      { setting: 'limits', variable: 'TRELLIS_DEFAULT_LIMITS' },
      { setting: 'chat.keepAliveMs', variable: 'CHAT_KEEPALIVE_MS' },
    ])
  })

  test('a bad variable is still named as before, whatever the file says', () => {
    expect(() => load(FILE, { PORT: 'abc' })).toThrow('PORT must be a whole number, got "abc"')
  })

  test('a model of the file may use a provider of CHAT_PROVIDERS, and is refused where it is written when it does not exist', () => {
    expect(findings(FILE, { CHAT_PROVIDERS: '{"other": {"baseUrl": "http://o.example"}}' })).toEqual([
      "F:10:19: error model 'm' uses provider 'up', which CHAT_PROVIDERS does not define",
    ])
  })
})

describe('${VAR} interpolation, in text values', () => {
  test('anywhere in a string, several times; $${ is a literal ${; a lone $ stays', () => {
    const config = load(
      'providers:\n  up:\n    baseUrl: "http://${HOST_A}:${PORT_A}/v1"\n    headers: { x-price: "$5", x-tmpl: "$${NOT_READ}" }\n',
      { HOST_A: 'up.example', PORT_A: '8000' },
    )
    expect(config.chat.providers.up).toMatchObject({
      baseUrl: 'http://up.example:8000/v1',
      headers: { 'x-price': '$5', 'x-tmpl': '${NOT_READ}' },
    })
  })

  test('a value is inserted as it is, never read again', () => {
    const config = load('database: { dataDir: "${DIR}" }\n', { DIR: '${HOME}/x' })
    expect(config.dataDir).toBe('${HOME}/x')
  })

  test('keys are not interpolated', () => {
    const config = load('models:\n  "${NAME}": [{ provider: echo, model: echo }]\n', {})
    expect(Object.keys(config.chat.models)[0]).toBe('${NAME}')
  })
})

/**
 * Bad files and the lines they give: `F:line:column: error …`, in the order of the file, every problem at once.
 * No line shows a secret.
 */
const BAD: [what: string, text: string, env: Record<string, string>, lines: string[]][] = [
  [
    'an unset variable names itself and its line',
    'providers:\n  deepseek: { baseUrl: "https://api.deepseek.com/v1", apiKey: "${DEEPSEEK_API_KEY}" }\n',
    {},
    [
      'F:2:63: error providers.deepseek.apiKey: ${DEEPSEEK_API_KEY} names DEEPSEEK_API_KEY, which is unset or empty in the environment',
    ],
  ],
  [
    'an empty variable too',
    'database: { url: "${DATABASE}" }\n',
    { DATABASE: '' },
    ['F:1:18: error database.url: ${DATABASE} names DATABASE, which is unset or empty in the environment'],
  ],
  [
    'a malformed reference',
    'server: { host: "${not a name}" }\n',
    {},
    [
      'F:1:17: error server.host: "${not a name}" is not a variable reference: write ${NAME} (letters, digits and _), or $${ for a literal ${',
    ],
  ],
  [
    'an unclosed reference',
    'server:\n  host: ${HOST\n',
    {},
    [
      'F:2:9: error server.host: "${HOST" is not a variable reference: write ${NAME} (letters, digits and _), or $${ for a literal ${',
    ],
  ],
  [
    'a variable where a number belongs: set the variable itself',
    'server:\n  port: ${MY_PORT}\n',
    { MY_PORT: '8080' },
    [
      'F:2:9: error server.port: expected a whole number from 0 to 65535, got the string "${MY_PORT}"; ${…} fills in text only: set PORT in the environment instead',
    ],
  ],
  [
    'misspelt keys, with did-you-mean at every level',
    'provders:\n  x: 1\nserver:\n  prot: 3000\n',
    {},
    [
      'F:1:1: error provders: unknown setting (did you mean "providers"?)',
      'F:4:3: error server.prot: unknown setting (did you mean "port"?)',
    ],
  ],
  [
    'a misspelt provider setting',
    'providers:\n  up:\n    baseURL: http://up.example\n',
    {},
    [
      'F:2:3: error providers.up: baseUrl is required',
      'F:3:5: error providers.up.baseURL: unknown setting (did you mean "baseUrl"?)',
    ],
  ],
  [
    'a provider without its baseUrl (only the kinds that wrap another go without)',
    'providers:\n  up:\n    apiKey: k\n  rec:\n    kind: record\n',
    {},
    ['F:2:3: error providers.up: baseUrl is required'],
  ],
  [
    'an unknown key with nothing close: the keys there are listed',
    'database:\n  whatever: 1\n',
    {},
    [
      'F:2:3: error database.whatever: unknown setting; database takes url, dataDir, poolSize, connectTimeoutMs, reconnectMaxMs, queryTimeoutMs, migrateOnStart',
    ],
  ],
  [
    'a misspelt kind',
    'providers:\n  claude: { kind: antropic, baseUrl: "https://api.anthropic.com/v1" }\n',
    {},
    [
      'F:2:19: error providers.claude.kind: "antropic" is not one of openai, anthropic, record, replay, script (did you mean "anthropic"?)',
    ],
  ],
  [
    "a kind's setting on another kind, and a bad value of one",
    'providers:\n  a: { baseUrl: "http://a", anthropicVersion: "2023-06-01" }\n  o: { kind: anthropic, baseUrl: "http://o", responses: native }\n  c: { kind: anthropic, baseUrl: "http://c", thinkingBudgetTokens: 10 }\n',
    {},
    ['F:4:68: error providers.c.thinkingBudgetTokens: must be at least 1024, got 10'],
  ],
  [
    "a kind's setting on another kind",
    'providers:\n  a: { baseUrl: "http://a", anthropicVersion: "2023-06-01" }\n  o: { kind: anthropic, baseUrl: "http://o", responses: native }\n',
    {},
    [
      "F:2:29: error provider 'a': anthropicVersion applies only to kind: anthropic",
      "F:3:46: error provider 'o': responses applies only to kind: openai",
    ],
  ],
  [
    'what the schema cannot say: a URL, the reserved name, both keys, a header',
    'providers:\n  a: { baseUrl: "ftp://a" }\n  echo: { baseUrl: "http://e" }\n  b: { baseUrl: "http://b", apiKey: k, apiKeyEnv: K }\n  c: { baseUrl: "http://c", headers: { "x-a": "v\\n" } }\n  d: { kind: anthropic, baseUrl: "http://d", anthropicVersion: " 2023-06-01" }\n',
    { K: 'k' },
    [
      "F:2:17: error provider 'a': baseUrl must be an http:// or https:// URL, got 'ftp://a'",
      "F:3:3: error provider 'echo': the name 'echo' is reserved for the built-in provider",
      "F:4:51: error provider 'b': set apiKey or apiKeyEnv, not both",
      "F:5:38: error provider 'c': header 'x-a' starts or ends with whitespace (a line break from a file?); remove it",
      "F:6:64: error provider 'd': anthropicVersion starts or ends with whitespace (a line break from a file?); remove it",
    ],
  ],
  [
    'a model on a provider that does not exist, with the closest one',
    'providers:\n  deepseek: { baseUrl: "https://api.deepseek.com/v1" }\nmodels:\n  chat: [{ provider: deepsek, model: deepseek-chat }]\n',
    {},
    [
      "F:4:22: error model 'chat' uses provider 'deepsek', which is not under providers (echo, deepseek) (did you mean \"deepseek\"?)",
    ],
  ],
  [
    'wrong shapes',
    'models:\n  a: { provider: echo, model: echo }\n  b: []\n  c: [{ provider: echo }]\nlimits: { rpm: 0, tpm: "100" }\n',
    {},
    [
      'F:2:6: error models.a: expected a list, got a mapping',
      'F:3:6: error models.b: needs at least 1 item',
      'F:4:7: error models.c[0]: model is required',
      'F:5:16: error limits.rpm: must be from 1 to 1000000000000, got 0',
      'F:5:24: error limits.tpm: expected a whole number from 1 to 1000000000000, got the string "100"',
    ],
  ],
  [
    'a money budget that is not an amount of dollars',
    'limits: { budget_usd: 0 }\n',
    {},
    ['F:1:23: error limits.budget_usd: must be from 0.000001 to 1000000000, got 0'],
  ],
  [
    'YAML 1.2: yes is text, not true',
    'usageLedger: yes\nlogLevel: loud\n',
    {},
    [
      'F:1:14: error usageLedger: expected true or false, got the string "yes"',
      'F:2:11: error logLevel: "loud" is not one of debug, info, warn, error, silent',
    ],
  ],
  [
    'sizes',
    'server: { bodyLimit: 100mb }\n',
    {},
    ['F:1:22: error server.bodyLimit: must be between 1kb and 64mb, got "100mb"'],
  ],
  ['a key twice', 'logLevel: info\nlogLevel: warn\n', {}, ['F:2:1: error invalid YAML: Map keys must be unique']],
  [
    'a syntax error',
    'providers:\n  up: { baseUrl: "http://x"\nmodels: {}\n',
    {},
    ['F:3:1: error invalid YAML: Flow map in block collection must be sufficiently indented and end with a }'],
  ],
  [
    'a list at the top',
    '- providers\n',
    {},
    ['F:1:1: error the file must be a mapping of settings (providers:, models:, …), not a list'],
  ],
  ['models: {}', 'models: {}\n', {}, ['F:1:9: error models: must name at least one model']],
]

describe('a file that does not validate is refused with every problem where it is written', () => {
  test.each(BAD)('%s', (_what, text, env, lines) => {
    expect(findings(text, env)).toEqual(lines)
  })

  test('the error carries the findings, and the name the operator gave', () => {
    let thrown: unknown
    try {
      load('server: { prot: 1 }\n')
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(ConfigError)
    expect((thrown as ConfigFileInvalid).findings).toEqual([
      {
        file: `case-${files}.yaml`,
        line: 1,
        column: 11,
        path: 'server.prot',
        message: 'server.prot: unknown setting',
        suggestion: 'port',
      },
    ])
  })

  test('no message shows a secret that came from the environment', () => {
    const secret = 'sk-very-secret'
    const env = { KEY: secret, BAD: `${secret}\n` }
    const lines = [
      ...findings(
        'providers:\n  a: { baseUrl: "http://a", apiKey: "${KEY}" }\n  b: { baseUrl: "http://b", apiKey: "${BAD}" }\n',
        env,
      ),
      ...findings('server: { workers: "${KEY}" }\nlogLevel: "${KEY}"\n', env),
    ]
    expect(lines.length).toBe(3)
    for (const line of lines) expect(line).not.toContain(secret)
  })
})

describe('what else a file may hold', () => {
  test('comments only, or nothing: the defaults', () => {
    expect(load('# nothing yet\n').port).toBe(3000)
    expect(load('').port).toBe(3000)
  })

  test('an empty setting (its entries commented out) counts as unset', () => {
    const config = load('providers:\n  # deepseek: { baseUrl: "https://api.deepseek.com/v1" }\nserver:\n  port:\n')
    expect(config.chat.providers).toEqual({})
    expect(config.port).toBe(3000)
  })

  test('anchors and merge keys; top-level x- keys are a place for anchors, and ignored', () => {
    const config = load(
      'x-upstream: &upstream { maxRetries: 0, idleTimeoutMs: 5000 }\nproviders:\n  a: { <<: *upstream, baseUrl: "http://a" }\n  b:\n    <<: *upstream\n    baseUrl: http://b\n    maxRetries: 1\n',
    )
    expect(config.chat.providers.a).toMatchObject({ baseUrl: 'http://a', maxRetries: 0, idleTimeoutMs: 5000 })
    expect(config.chat.providers.b).toMatchObject({ baseUrl: 'http://b', maxRetries: 1, idleTimeoutMs: 5000 })
  })

  test('provider plug-ins validate their own settings exactly as in CHAT_PROVIDERS', () => {
    const config = load(
      'providers:\n  claude: { kind: anthropic, baseUrl: "https://api.anthropic.com/v1", anthropicVersion: "2024-10-22", thinkingBudgetTokens: 2048 }\n  oai: { baseUrl: "https://api.openai.com/v1", responses: native }\n',
    )
    expect(config.chat.providers.claude).toMatchObject({
      kind: 'anthropic',
      anthropicVersion: '2024-10-22',
      defaultMaxTokens: 4096,
      thinkingBudgetTokens: 2048,
    })
    expect(config.chat.providers.oai).toMatchObject({ responses: 'native' })
  })
})

describe('where the file is found', () => {
  test('--config, then TRELLIS_CONFIG, then ./trellis.yaml in the working directory', () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'))
    expect(loadConfig({}, PROVIDER_KINDS, { cwd }).file).toBeUndefined()
    writeFileSync(join(cwd, 'trellis.yaml'), 'server: { port: 1 }\n')
    writeFileSync(join(cwd, 'other.yaml'), 'server: { port: 2 }\n')
    writeFileSync(join(cwd, 'third.yaml'), 'server: { port: 3 }\n')
    expect(loadConfig({}, PROVIDER_KINDS, { cwd }).port).toBe(1)
    expect(loadConfig({ TRELLIS_CONFIG: 'other.yaml' }, PROVIDER_KINDS, { cwd }).port).toBe(2)
    expect(loadConfig({ TRELLIS_CONFIG: 'other.yaml' }, PROVIDER_KINDS, { cwd, file: 'third.yaml' }).port).toBe(3)
  })

  test('a file that is named must exist', () => {
    expect(() => loadConfig({ TRELLIS_CONFIG: 'missing.yaml' }, PROVIDER_KINDS, { cwd: dir })).toThrow(
      'TRELLIS_CONFIG names missing.yaml, which does not exist',
    )
    expect(() => loadConfig({}, PROVIDER_KINDS, { cwd: dir, file: 'missing.yaml' })).toThrow(
      '--config names missing.yaml, which does not exist',
    )
  })
})
