/**
 * The price table in the configuration: `prices:` in trellis.yaml, checked like every setting (each problem at its
 * line and column), or `TRELLIS_PRICES` (JSON, the same shape), which wins; a bad one stops the start naming it.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROVIDER_KINDS } from '../../src/chat/providers'
import { ConfigError, ConfigFileInvalid, loadConfig } from '../../src/config'
import { MAX_PRICE_USD } from '../../src/cost/prices'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'trellis-prices-config-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let files = 0
function load(text: string, env: Record<string, string> = {}) {
  const name = `case-${++files}.yaml`
  writeFileSync(join(dir, name), text)
  try {
    return loadConfig(env, PROVIDER_KINDS, { file: name, cwd: dir })
  } catch (error) {
    if (error instanceof ConfigFileInvalid) return error.message.split('\n').map((line) => line.replace(name, 'F'))
    throw error
  }
}

describe('prices: in trellis.yaml', () => {
  test('is read as written', () => {
    const config = load('prices:\n  gpt-4o: { input: 2.5, cached_input: 1.25, output: 10, from: "2026-01-01" }\n')
    expect(config).toMatchObject({
      prices: { 'gpt-4o': { input: 2.5, cached_input: 1.25, output: 10, from: '2026-01-01' } },
    })
  })

  const BAD: [string, string, string][] = [
    [
      'a price below zero',
      'prices:\n  m: { input: -1, output: 1 }\n',
      'F:2:15: error prices.m.input: must be from 0 to 1000000, got -1',
    ],
    ['no output price', 'prices:\n  m: { input: 1 }\n', 'F:2:3: error prices.m: output is required'],
    [
      'a field it does not know',
      'prices:\n  m: { input: 1, output: 1, outptu: 2 }\n',
      'F:2:29: error prices.m.outptu: unknown setting (did you mean "output"?)',
    ],
    [
      'a date that is no date',
      'prices:\n  m: { input: 1, output: 1, from: "2026-02-30" }\n',
      'F:2:35: error prices.m.from: must be a calendar date such as 2026-01-01, got "2026-02-30"',
    ],
    [
      'a price as text',
      'prices:\n  m: { input: "cheap", output: 1 }\n',
      'F:2:15: error prices.m.input: expected a number, got the string "cheap"',
    ],
  ]
  for (const [name, text, start] of BAD)
    test(`${name}: at its line and column`, () => {
      const lines = load(text) as string[]
      expect(Array.isArray(lines)).toBe(true)
      expect(lines[0]).toBe(start)
    })
})

describe('TRELLIS_PRICES', () => {
  test('wins over the file', () => {
    const config = load('prices:\n  m: { input: 1, output: 1 }\n', {
      TRELLIS_PRICES: '{"n": {"input": 3, "output": 4}}',
    })
    expect(config).toMatchObject({ prices: { n: { input: 3, output: 4 } } })
  })

  const BAD: [string, string, string][] = [
    ['not JSON', '{m: 1}', 'TRELLIS_PRICES: not valid JSON'],
    ['a negative price', '{"m": {"input": -1, "output": 1}}', 'TRELLIS_PRICES: /m/input'],
    ['an unknown field', '{"m": {"input": 1, "output": 1, "cache": 2}}', 'TRELLIS_PRICES: /m'],
    ['a date that is no date', '{"m": {"input": 1, "output": 1, "from": "2026-13-01"}}', 'TRELLIS_PRICES: /m/from'],
    // Past it, a count times a rate could pass 2^63 micro-dollars in SQL and lose exactness in between.
    ['a price past the largest', `{"m": {"input": ${MAX_PRICE_USD + 1}, "output": 1}}`, 'TRELLIS_PRICES: /m/input'],
  ]
  for (const [name, value, message] of BAD)
    test(`${name}: refused, naming the variable`, () => {
      expect(() => loadConfig({ TRELLIS_PRICES: value }, PROVIDER_KINDS)).toThrow(ConfigError)
      expect(() => loadConfig({ TRELLIS_PRICES: value }, PROVIDER_KINDS)).toThrow(message)
    })
})
