import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Ajv from 'ajv'
import { parse } from 'yaml'
import { PROVIDER_KINDS } from '../../src/chat/providers'
import { loadConfig } from '../../src/config'
import { configJsonSchema } from '../../src/config/json-schema'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * The JSON Schema editors read (schemas/trellis.schema.json, GET /config/schema) agrees with the server's own
 * validation on the examples this repository shows: examples/trellis.yaml and every yaml block of the README.
 */

const ROOT = join(import.meta.dir, '../..')
const validate = new Ajv({ strict: false, allErrors: true }).compile(configJsonSchema(PROVIDER_KINDS))

/** `${NAME}` placeholders filled, as an operator's environment would. */
function environmentFor(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/\$\{([A-Za-z_]\w*)\}/g)].map(([, name]) => [name!, `value-of-${name}`]))
}

/** `text` loaded by the server as a file of its own. */
function loadText(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-schema-'))
  try {
    writeFileSync(join(dir, 'trellis.yaml'), text)
    return loadConfig(environmentFor(text), PROVIDER_KINDS, { cwd: dir })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// Configuration files only: a scenario (top-level `rules:`, "Testing with Trellis") is the script provider's, and
// tests/e2e/readme-testing.test.ts runs it.
const readmeBlocks = [...readFileSync(join(ROOT, 'README.md'), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)]
  .map((match) => match[1]!)
  .filter((block) => !/^rules:/m.test(block))

describe('the examples this repository shows are valid, for the server and for editors', () => {
  test('the README has yaml blocks', () => expect(readmeBlocks.length).toBeGreaterThanOrEqual(2))

  test.each([
    ['examples/trellis.yaml', readFileSync(join(ROOT, 'examples/trellis.yaml'), 'utf8')],
    ...readmeBlocks.map((block, index) => [`README yaml block ${index + 1}`, block] as [string, string]),
  ])('%s', (_name, text) => {
    expect(() => loadText(text)).not.toThrow()
    expect({ valid: validate(parse(text) ?? {}), errors: validate.errors ?? null }).toEqual({
      valid: true,
      errors: null,
    })
  })

  test('the README states the issue minimal file word for word, and it serves its model beside echo', () => {
    const minimal = readmeBlocks.find((block) => block.includes('what CHAT_PROVIDERS holds'))!
    expect(Object.keys(loadText(minimal).chat.models)).toEqual(['deepseek-chat', 'echo', 'echo-reasoner'])
  })
})

describe('the JSON Schema', () => {
  const valid = (value: unknown) => validate(value) as boolean

  test('refuses what the server refuses that a schema can say', () => {
    expect(valid({ provders: {} })).toBe(false)
    expect(valid({ server: { port: 70000 } })).toBe(false)
    expect(valid({ server: { port: '3000' } })).toBe(false)
    expect(valid({ logLevel: 'loud' })).toBe(false)
    expect(valid({ providers: { up: {} } })).toBe(false)
    expect(valid({ models: { m: [] } })).toBe(false)
    expect(valid({ database: { url: 'mysql://x' } })).toBe(false)
    expect(valid({ server: { bodyLimit: '100gb' } })).toBe(false)
  })

  test("a kind's settings only on that kind (the default kind when none is named)", () => {
    const provider = (settings: object) => valid({ providers: { up: { baseUrl: 'http://up', ...settings } } })
    expect(provider({ responses: 'native' })).toBe(true)
    expect(provider({ kind: 'openai', responses: 'native' })).toBe(true)
    expect(provider({ kind: 'anthropic', anthropicVersion: '2023-06-01', thinkingBudgetTokens: 1024 })).toBe(true)
    expect(provider({ anthropicVersion: '2023-06-01' })).toBe(false)
    expect(provider({ kind: 'openai', defaultMaxTokens: 10 })).toBe(false)
    expect(provider({ kind: 'anthropic', responses: 'native' })).toBe(false)
    expect(provider({ kind: 'gemini' })).toBe(false)
  })

  test('every setting has a description, naming its variable where it has one', () => {
    const schema = configJsonSchema(PROVIDER_KINDS) as { properties: Record<string, { description?: string }> }
    for (const [key, setting] of Object.entries(schema.properties))
      expect({ key, has: !!setting.description }).toEqual({ key, has: true })
    const server = schema.properties.server as unknown as { properties: Record<string, { description: string }> }
    expect(server.properties.port!.description).toContain('PORT')
  })
})
