import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { PROVIDER_KINDS } from '../../../../src/chat/providers'
import { isScriptProvider, loadScenario } from '../../../../src/chat/providers/script'
import { scenarioSchemaText } from '../../../../src/chat/providers/script/json-schema'
import { chatSetupFrom } from '../../../../src/chat'
import { loadConfig } from '../../../../src/config'
import { ConfigFileInvalid } from '../../../../src/config/finding'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../../../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * A script provider's scenario is configuration: checked at start and at every reload, each problem a finding at its
 * line and column (in the scenario file, or under `providers:` inline) with a did-you-mean; its JSON Schema is served
 * and committed. A reload serves a changed scenario file; `setScenario` swaps one in a running provider.
 */

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'trellis-scenario-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const MODELS = 'models:\n  scripted: [{ provider: script, model: scripted }]\n'

/** Writes trellis.yaml (and files beside it), loads it, and gives the findings' lines, or [] when it loads. */
function findings(config: string, files: Record<string, string> = {}): string[] {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  writeFileSync(join(dir, 'trellis.yaml'), config)
  try {
    loadConfig({ TRELLIS_CONFIG: join(dir, 'trellis.yaml') }, PROVIDER_KINDS)
    return []
  } catch (error) {
    if (!(error instanceof ConfigFileInvalid)) throw error
    return error.message.split('\n').map((line) => line.replace(`${dir}/`, ''))
  }
}

const fileProvider = `providers:\n  script: { kind: script, scenario: llm.yaml }\n${MODELS}`

describe('a scenario file', () => {
  test("the README's example loads as written, and its scenario is the issue's minimal form", () => {
    const readme = readFileSync(join(import.meta.dir, '../../../../README.md'), 'utf8')
    const section = readme.slice(
      readme.indexOf('## The script provider'),
      readme.indexOf('## Limits, usage and metrics'),
    )
    const config = /```yaml\n([\s\S]*?)```/.exec(section)![1]!
    expect(findings(config)).toEqual([])
    // The fixture (a scenario file, which the tests read) is the same scenario; the formatter realigns its comments.
    const minimal = readFileSync(join(import.meta.dir, 'fixtures/minimal.yaml'), 'utf8')
    expect(parse(config).providers.script.scenario).toEqual(parse(minimal))
    expect(findings(fileProvider, { 'llm.yaml': minimal })).toEqual([])
  })

  const BAD: [what: string, scenario: string, expected: string][] = [
    [
      'a misspelt key',
      'rules:\n  - mach: { last_user: hi }\n    reply: [{ text: x }]\n',
      'llm.yaml:2:5: error rules[0].mach: unknown setting (did you mean "match"?)',
    ],
    [
      'a misspelt step',
      'rules:\n  - reply:\n      - txt: hello\n',
      'llm.yaml:3:9: error rules[0].reply[0].txt: unknown setting (did you mean "text"?)',
    ],
    [
      'a misspelt finish reason',
      'rules:\n  - reply: [{ finish_reason: stopp }]\n',
      'llm.yaml:2:30: error rules[0].reply[0].finish_reason: "stopp" is not one of stop, length, tool_calls, content_filter (did you mean "stop"?)',
    ],
    [
      'a status that is no error',
      'rules:\n  - reply: [{ error: { status: 200 } }]\n',
      'llm.yaml:2:32: error rules[0].reply[0].error.status: must be from 400 to 599, got 200',
    ],
    [
      'a step doing two things',
      'rules:\n  - reply:\n      - { text: hi, gap_ms: 5 }\n',
      'llm.yaml:3:21: error rules[0].reply[0]: a step does one thing, this one text and gap_ms: make each',
    ],
    [
      'an empty step',
      'rules:\n  - reply:\n      - {}\n',
      'llm.yaml:3:9: error rules[0].reply[0]: a step needs one of text',
    ],
    [
      'a catastrophic regular expression',
      'rules:\n  - match: { last_user: "/(a+)+$/" }\n    reply: [{ text: x }]\n',
      'llm.yaml:2:25: error rules[0].match.last_user: a quantified group holding a quantifier',
    ],
    [
      'a regular expression that does not compile',
      'rules:\n  - match: { last_user: "/(ab/" }\n    reply: [{ text: x }]\n',
      'llm.yaml:2:25: error rules[0].match.last_user: not a regular expression',
    ],
    [
      'tool arguments that are no JSON object',
      'rules:\n  - reply: [{ tool_call: { name: f, arguments: "[1]" } }]\n',
      'llm.yaml:2:48: error rules[0].reply[0].tool_call.arguments: the text must be a JSON object',
    ],
    [
      'reasoning tokens past the completion',
      'rules:\n  - reply: [{ usage: { completion_tokens: 1, reasoning_tokens: 2 } }]\n',
      'llm.yaml:2:64: error rules[0].reply[0].usage: reasoning_tokens is part of completion_tokens',
    ],
    [
      'a header value HTTP cannot carry',
      'rules:\n  - reply: [{ error: { status: 429, headers: { retry-after: " 1" } } }]\n',
      "llm.yaml:2:61: error rules[0].reply[0].error.headers: 'retry-after' starts or ends with whitespace",
    ],
    ['no rules', 'rules: []\n', 'llm.yaml:1:8: error rules: needs at least 1 item'],
    ['not YAML', 'rules: [\n', 'llm.yaml:2:1: error invalid YAML'],
  ]
  test.each(BAD)('%s: a finding at its line and column in the scenario file', (_what, scenario, expected) => {
    const lines = findings(fileProvider, { 'llm.yaml': scenario })
    expect(lines.length).toBeGreaterThan(0)
    expect(lines[0]).toStartWith(expected)
  })

  test('a file that does not exist is named where the configuration names it', () => {
    const lines = findings(`providers:\n  script: { kind: script, scenario: nowhere.yaml }\n${MODELS}`)
    expect(lines[0]).toStartWith(
      "trellis.yaml:2:37: error provider 'script': scenario names nowhere.yaml, which does not exist",
    )
  })
})

describe('a scenario inline', () => {
  test('is checked where it is written in trellis.yaml, the schema and the semantics alike', () => {
    const config =
      'providers:\n  script:\n    kind: script\n    scenario:\n      rules:\n        - reply: [{ txt: hi }]\n' +
      '        - reply: [{ text: a, stall: true }]\n' +
      MODELS
    expect(findings(config)).toEqual([
      'trellis.yaml:6:21: error providers.script.scenario.rules[0].reply[0].txt: unknown setting (did you mean "text"?)',
    ])
    const semantic = config.replace('txt: hi', 'text: hi')
    expect(findings(semantic)[0]).toStartWith(
      "trellis.yaml:7:30: error provider 'script': scenario.rules[1].reply[0]: a step does one thing",
    )
  })

  test('a script provider needs a scenario, and takes no baseUrl requirement; other kinds still need baseUrl', () => {
    expect(findings(`providers:\n  script: { kind: script }\n${MODELS}`)[0]).toContain('kind script needs a scenario')
    expect(findings('providers:\n  up: { kind: openai }\n')).toEqual([
      'trellis.yaml:2:3: error providers.up: baseUrl is required',
    ])
  })

  test('in CHAT_PROVIDERS too, the first problem as one line naming the variable', () => {
    const env = (scenario: unknown) => ({
      CHAT_PROVIDERS: JSON.stringify({ script: { kind: 'script', scenario } }),
      CHAT_MODELS: JSON.stringify({ scripted: [{ provider: 'script', model: 'scripted' }] }),
    })
    expect(() => loadConfig(env({ rules: [{ reply: [{ text: 'hi' }] }] }), PROVIDER_KINDS)).not.toThrow()
    expect(() => loadConfig(env({ rules: [{ reply: [{ text: 'a', gap_ms: 1 }] }] }), PROVIDER_KINDS)).toThrow(
      "CHAT_PROVIDERS: provider 'script': scenario.rules[0].reply[0]: a step does one thing",
    )
  })
})

describe('loadScenario, for setScenario', () => {
  test('checks an object or a file as the configuration does', () => {
    expect(loadScenario({ rules: [{ reply: [{ text: 'hi' }] }] }).rules).toHaveLength(1)
    expect(() => loadScenario({ rules: [{ reply: [{ text: 'hi', refusal: 'no' }] }] })).toThrow('a step does one thing')
    expect(() => loadScenario({ rules: [] } as never)).toThrow('/rules')
    writeFileSync(join(dir, 'swap.yaml'), 'rules:\n  - reply: [{ txet: hi }]\n')
    expect(() => loadScenario(join(dir, 'swap.yaml'))).toThrow(':2:15: error rules[0].reply[0].txet: unknown setting')
  })
})

describe('GET /config/scenario-schema', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await makeTestApp()
  }, SETUP_TIMEOUT)
  afterAll(() => t.close(), SETUP_TIMEOUT)

  test('public, and the same as schemas/scenario.schema.json in the repository', async () => {
    const response = await t.request('/config/scenario-schema')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/schema+json')
    const served = await response.text()
    expect(served).toBe(scenarioSchemaText())
    // Stale after a change of the scenario's schema? Run `bun scripts/config-schema.ts`.
    expect(served).toBe(readFileSync(join(import.meta.dir, '../../../../schemas/scenario.schema.json'), 'utf8'))
    expect(JSON.parse(served).properties.rules.items.properties.reply.items.properties).toHaveProperty('tool_call')
  })
})

describe('a reload, and setScenario', () => {
  let t: TestApp
  let token: string
  let admin: string
  beforeAll(async () => {
    writeFileSync(join(dir, 'live.yaml'), 'rules:\n  - reply: [{ text: before }]\n')
    writeFileSync(
      join(dir, 'live-trellis.yaml'),
      `providers:\n  script: { kind: script, scenario: live.yaml }\n${MODELS}`,
    )
    t = await makeTestApp({ env: { TRELLIS_CONFIG: join(dir, 'live-trellis.yaml') } })
    token = await t.tokenFor('scenario-user', ['chat'])
    admin = await t.tokenFor('scenario-admin', ['admin'])
  }, SETUP_TIMEOUT)
  afterAll(() => t.close(), SETUP_TIMEOUT)

  const ask = async () => {
    const response = await t.request('/v1/chat/completions', {
      method: 'POST',
      token,
      json: { model: 'scripted', messages: [{ role: 'user', content: 'hi' }] },
    })
    return (await response.json()).choices[0].message.content
  }

  test('a reload serves the scenario file as it is now; a file that no longer validates is refused', async () => {
    expect(await ask()).toBe('before')
    writeFileSync(join(dir, 'live.yaml'), 'rules:\n  - reply: [{ text: after }]\n')
    const reloaded = await (await t.request('/admin/config/reload', { method: 'POST', token: admin })).json()
    expect(reloaded.changed).toContain('providers')
    expect(await ask()).toBe('after')
    writeFileSync(join(dir, 'live.yaml'), 'rules:\n  - reply: [{ text: broken, gap_ms: 1 }]\n')
    const refused = await t.request('/admin/config/reload', { method: 'POST', token: admin })
    expect(refused.status).toBe(400)
    expect((await refused.json()).findings[0].file).toBe(join(dir, 'live.yaml').replace(`${process.cwd()}/`, ''))
    expect(await ask()).toBe('after')
  })

  test('setScenario on the provider the registry serves answers the next request from the new scenario', async () => {
    writeFileSync(join(dir, 'live.yaml'), 'rules:\n  - reply: [{ text: after }]\n')
    const config = loadConfig({ TRELLIS_CONFIG: join(dir, 'live-trellis.yaml') }, PROVIDER_KINDS)
    const chat = chatSetupFrom(config.chat)
    const own = await makeTestApp({ env: { TRELLIS_CONFIG: join(dir, 'live-trellis.yaml') }, deps: { chat } })
    const ownToken = await own.tokenFor('scenario-swapper', ['chat'])
    const answer = async () => {
      const response = await own.request('/v1/chat/completions', {
        method: 'POST',
        token: ownToken,
        json: { model: 'scripted', messages: [{ role: 'user', content: 'hi' }] },
      })
      return (await response.json()).choices[0].message.content
    }
    try {
      const provider = chat.registry.provider('script')!
      expect(isScriptProvider(provider)).toBe(true)
      expect(await answer()).toBe('after')
      if (!isScriptProvider(provider)) return
      provider.setScenario({ rules: [{ reply: [{ text: 'swapped' }] }] })
      expect(await answer()).toBe('swapped')
      // A scenario that does not validate is refused, and the running one stays.
      expect(() => provider.setScenario({ rules: [{ reply: [{ txt: 'x' }] }] } as never)).toThrow('txt')
      expect(await answer()).toBe('swapped')
      writeFileSync(join(dir, 'swapped.yaml'), 'rules:\n  - reply: [{ pieces: [from, " a file"] }]\n')
      provider.setScenario(join(dir, 'swapped.yaml'))
      expect(await answer()).toBe('from a file')
      expect(isScriptProvider(chat.registry.provider('echo')!)).toBe(false)
    } finally {
      await own.close()
    }
  })
})
