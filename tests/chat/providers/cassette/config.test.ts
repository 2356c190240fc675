/**
 * Record and replay providers in trellis.yaml: what they refuse, reported where it is written (`file:line:column`)
 * like every other setting, and a cassette that is not one reported at its own line and column.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROVIDER_KINDS } from '../../../../src/chat/providers'
import { loadConfig } from '../../../../src/config'
import { ConfigFileInvalid } from '../../../../src/config/finding'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const dir = mkdtempSync(join(tmpdir(), 'trellis-cassette-config-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const CASSETTE = join(dir, 'c.jsonl')
const HEADER = '{"trellis_cassette":1,"provider":"up","kind":"openai","settings":{}}'
const EXCHANGE =
  '{"at":"2026-11-27T03:00:00.000Z","request":{"method":"POST","path":"/chat/completions","headers":{},"body":{}},' +
  '"response":{"status":200,"ms":0,"headers":{},"json":{}}}'

/** The findings of loading `yaml` (F for the file, C for the cassette), or [] when it loads. */
function findings(yaml: string, cassette?: string): string[] {
  if (cassette !== undefined) writeFileSync(CASSETTE, cassette)
  const file = join(dir, 'trellis.yaml')
  writeFileSync(file, yaml.replaceAll('$C', CASSETTE))
  try {
    loadConfig({}, PROVIDER_KINDS, { file, cwd: dir })
  } catch (error) {
    if (!(error instanceof ConfigFileInvalid)) throw error
    return error.message.split('\n').map((line) => line.replace(file, 'F').replaceAll(CASSETTE, 'C'))
  }
  return []
}

// The cassette's path (a temporary directory's) comes last on its line, so that the columns before it are the same
// wherever the tests run.
const replay = (settings = '') => `providers:\n  rep: { kind: replay, ${settings}cassette: $C }\n`
const RECORD_BASE = 'providers:\n  up: { baseUrl: "http://127.0.0.1:9/v1" }\n'

describe('a good cassette loads', () => {
  test('a header and an exchange', () => expect(findings(replay(), `${HEADER}\n${EXCHANGE}\n`)).toEqual([]))
  test('a header alone: no exchange yet, every request a miss', () =>
    expect(findings(replay(), `${HEADER}\n`)).toEqual([]))
  test('timing and ignore', () =>
    expect(findings(replay('timing: { scale: 0.1 }, ignore: [user, metadata.user_id], '), `${HEADER}\n`)).toEqual([]))
})

describe('a cassette that is not one is refused at its line and column', () => {
  test.each([
    ['not JSON', `${HEADER}\n{"request": }\n`, 'C:2:13: not JSON: expected a value but found "}"'],
    ['no header', `${EXCHANGE}\n`, 'C:1:1: not the first line (the cassette header):'],
    [
      'a header of another version',
      HEADER.replace(':1,', ':2,'),
      'C:1:21: not the first line (the cassette header): trellis_cassette:',
    ],
    [
      'a status that is text',
      `${HEADER}\n${EXCHANGE.replace('"status":200', '"status":"200"')}`,
      'C:2:133: not an exchange: response.status: Expected integer',
    ],
    ['an unknown field', `${HEADER}\n${EXCHANGE.replace('"ms":0', '"ms":0,"msec":1')}`, 'C:2:'],
    [
      'an exchange with neither response nor unreachable',
      `${HEADER}\n{"at":"2026-11-27T03:00:00Z","request":{"method":"POST","path":"/x","headers":{},"body":null}}\n`,
      'C:2:1: an exchange needs a response, or unreachable',
    ],
    ['an empty file', '', 'cassette C is empty: record it first (kind: record)'],
  ])('%s', (_name, text, fragment) => {
    const [line, ...rest] = findings(replay(), text)
    expect(rest).toEqual([])
    expect(line).toStartWith("F:2:34: error provider 'rep': cassette ")
    expect(line).toContain(fragment)
  })

  test('a file too large for maxCassetteBytes is not read', () => {
    const [line] = findings(replay('maxCassetteBytes: 4096, '), `${HEADER}\n${EXCHANGE}\n`.repeat(40))
    expect(line).toMatch(/cassette C cannot be read: is \d+ bytes, more than maxCassetteBytes \(4096\)/)
  })

  test('a file that does not exist', () => {
    rmSync(CASSETTE, { force: true })
    expect(findings(replay())[0]).toContain('cassette C cannot be read: ENOENT')
  })
})

describe('settings refused where they are written', () => {
  test.each([
    [
      'replay without a cassette',
      'providers:\n  rep: { kind: replay }\n',
      "F:2:8: error provider 'rep': cassette is required: the file to replay",
    ],
    [
      'replay with a baseUrl',
      `providers:\n  rep: { kind: replay, baseUrl: "http://x", cassette: $C }\n`,
      "F:2:24: error provider 'rep': kind replay takes no baseUrl",
    ],
    [
      'a timing that is none of them',
      `providers:\n  rep: { kind: replay, timing: fast, cassette: $C }\n`,
      'F:2:32: error providers.rep.timing: "fast" is not one of original, none',
    ],
    [
      'record without provider',
      `${RECORD_BASE}  rec: { kind: record, cassette: $C }\n`,
      "F:3:8: error provider 'rec': provider is required: the configured provider to record",
    ],
    [
      'record of a provider not configured',
      `${RECORD_BASE}  rec: { kind: record, provider: upp, cassette: $C }\n`,
      "F:3:34: error provider 'rec': provider 'upp' is not configured",
    ],
    [
      'record of a record',
      `${RECORD_BASE}  rec: { kind: record, provider: up, cassette: $C }\n` +
        '  rec2: { kind: record, provider: rec, cassette: $C }\n',
      "F:4:35: error provider 'rec2': provider 'rec' is of kind record; only openai and anthropic can be recorded",
    ],
    [
      'record without a cassette',
      `${RECORD_BASE}  rec: { kind: record, provider: up }\n`,
      "F:3:8: error provider 'rec': cassette is required: the file to record to",
    ],
    [
      'a replay setting on record',
      `${RECORD_BASE}  rec: { kind: record, provider: up, timing: none, cassette: $C }\n`,
      "F:3:38: error provider 'rec': timing applies only to kind: replay",
    ],
  ])('%s', (_name, yaml, expected) => {
    expect(findings(yaml, `${HEADER}\n`)[0]).toStartWith(expected)
  })

  test.each([
    [
      'record to a cassette of another provider',
      `${RECORD_BASE}  rec: { kind: record, provider: up, cassette: $C }\n`,
      "F:3:48: error provider 'rec': cassette C:1:1: recorded from provider 'other' (kind openai), not 'up' (kind openai)",
      HEADER.replace('"up"', '"other"'),
    ],
    [
      'record to a cassette that is not one',
      `${RECORD_BASE}  rec: { kind: record, provider: up, cassette: $C }\n`,
      "F:3:48: error provider 'rec': cassette C:2:1: not JSON",
      `${HEADER}\nhalf a line`,
    ],
  ])('%s: the cassette appended to must be one, of this provider', (_name, yaml, expected, cassette) => {
    expect(findings(yaml, cassette)[0]).toStartWith(expected)
  })
})
