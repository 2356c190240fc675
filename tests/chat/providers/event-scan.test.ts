import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { MAX_DEPTH } from '../../../src/json/grammar'
import {
  HAS_CHOICES,
  HAS_ERROR,
  HAS_FINISH,
  HAS_USAGE,
  HAS_USAGE_NULL,
  NOT_PROVEN,
  scanJsonObject,
  type MemberRange,
} from '../../../src/chat/providers/event-scan'
import { random } from '../../helpers/random'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/*
 * The relay forwards an upstream event's bytes untouched only when this scan accepts them, so
 * the one property that matters is: whatever it accepts, JSON.parse accepts as an object, with
 * the same top-level `error` and `choices` keys. What it cannot prove it leaves to JSON.parse.
 */

const encoder = new TextEncoder()
const scan = (text: string | Uint8Array) => {
  const bytes = typeof text === 'string' ? encoder.encode(text) : text
  return scanJsonObject(bytes, 0, bytes.length)
}

/**
 * The flags the relay needs, computed the slow way; NOT_PROVEN when JSON.parse rejects the bytes or they are not an
 * object.
 */
function reference(bytes: Uint8Array): number {
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch {
    return NOT_PROVEN
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return NOT_PROVEN
  return ('error' in value ? HAS_ERROR : 0) | ('choices' in value ? HAS_CHOICES : 0)
}

const PIECES = ['', 'a', 'é', '日本', '🌿', '"', '\\', '\n', '\t', '\u0001', '\u2028', 'data: x']
const KEYS = ['id', 'error', 'choices', 'delta', 'content', 'é', 'a"b']

function randomValue(next: () => number, depth: number): unknown {
  const kind = Math.floor(next() * (depth > 4 ? 5 : 7))
  if (kind === 0) return null
  if (kind === 1) return next() < 0.5
  if (kind === 2) return [0, -1, 1.5, 1e21, -0.000001, 123456789][Math.floor(next() * 6)]
  if (kind === 3 || kind === 4)
    return PIECES[Math.floor(next() * PIECES.length)] + PIECES[Math.floor(next() * PIECES.length)]
  if (kind === 5) return Array.from({ length: Math.floor(next() * 3) }, () => randomValue(next, depth + 1))
  return randomObject(next, depth + 1)
}

function randomObject(next: () => number, depth: number): Record<string, unknown> {
  const object: Record<string, unknown> = {}
  const size = Math.floor(next() * 4)
  for (let i = 0; i < size; i++) object[KEYS[Math.floor(next() * KEYS.length)]] = randomValue(next, depth)
  return object
}

describe('accepts exactly what JSON.parse accepts as an object, on the narrow form', () => {
  test('every compact JSON.stringify output of an object is accepted, with the right flags, unless a top-level key needs escapes', () => {
    const next = random(1)
    let escapedKeys = 0
    for (let i = 0; i < 3000; i++) {
      const object = randomObject(next, 0)
      const bytes = encoder.encode(JSON.stringify(object))
      const escaped = Object.keys(object).some((key) => JSON.stringify(key) !== `"${key}"`)
      if (escaped) escapedKeys++
      expect(scan(bytes)).toBe(escaped ? NOT_PROVEN : reference(bytes))
    }
    expect(escapedKeys).toBeGreaterThan(0)
  })

  test('after random byte edits, anything accepted parses as an object with the same flags', () => {
    const next = random(2)
    let accepted = 0
    for (let i = 0; i < 20000; i++) {
      const bytes = encoder.encode(JSON.stringify(randomObject(next, 0)))
      const edited = mutate(bytes, next)
      const flags = scan(edited)
      if (flags === NOT_PROVEN) continue
      accepted++
      expect(flags).toBe(reference(edited))
    }
    // The edits must leave a fair share valid, or the property says little.
    expect(accepted).toBeGreaterThan(2000)
  })

  test.each([
    ['{}', 0],
    [' {"a":1} ', 0],
    ['{\t"a" : [ 1 , 2 ] }', 0],
    ['{"error":{"message":"boom"}}', HAS_ERROR],
    ['{"choices":[],"error":null}', HAS_ERROR | HAS_CHOICES],
    ['{"x":{"error":1,"choices":2}}', 0],
    ['{"id":12345678901234567890123}', 0],
    ['{"n":-0.5e-10,"m":0,"k":1E+2}', 0],
    ['{"s":"\\u00e9\\/\\b\\f\\n\\r\\t\\"\\\\"}', 0],
    ['{"s":"é 日本 🌿"}', 0],
    ['{"a":{"b":[{"c":[true,false,null]}]}}', 0],
  ])('accepts %s', (text, flags) => {
    expect(scan(text)).toBe(flags)
  })

  test.each([
    ['', 'empty'],
    ['[]', 'an array'],
    ['"text"', 'a string'],
    ['{', 'unclosed'],
    ['{"a":1,}', 'a trailing comma'],
    ['{"a":01}', 'a leading zero'],
    ['{"a":1.}', 'a bare decimal point'],
    ['{"a":.5}', 'a missing integer part'],
    ['{"a":1e}', 'an empty exponent'],
    ['{"a":-}', 'a lone minus'],
    ['{"a":tru}', 'a cut literal'],
    ['{"a":"\\x"}', 'an unknown escape'],
    ['{"a":"\\u12g4"}', 'a bad unicode escape'],
    ['{"a":"\u0001"}', 'a raw control character'],
    ['{"a":1}x', 'trailing bytes'],
    ['{"a":1}{}', 'two objects'],
    ['{a:1}', 'an unquoted key'],
    ['{"a" 1}', 'a missing colon'],
    ['{"a":1\r}', 'a CR, which ends a line in an event stream'],
    ['{"\\u0065rror":1}', 'a top-level key spelled with escapes'],
  ])('does not accept %s (%s)', (text) => {
    expect(scan(text)).toBe(NOT_PROVEN)
  })

  test.each([
    [[0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d], 'an overlong encoding'],
    [[0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d], 'a UTF-16 surrogate'],
    [[0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xf4, 0x90, 0x80, 0x80, 0x22, 0x7d], 'a code point above U+10FFFF'],
    [[0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe6, 0x97, 0x22, 0x7d], 'a cut sequence'],
    [[0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0x80, 0x22, 0x7d], 'a stray continuation byte'],
  ])('does not accept malformed UTF-8: %p (%s)', (bytes) => {
    expect(scan(new Uint8Array(bytes))).toBe(NOT_PROVEN)
  })

  test(`nesting deeper than ${MAX_DEPTH} is left to JSON.parse; up to it is accepted`, () => {
    const nested = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1)
    expect(scan(nested(MAX_DEPTH))).toBe(0)
    expect(scan(nested(MAX_DEPTH + 1))).toBe(NOT_PROVEN)
  })

  test('scans only the given range of a larger buffer', () => {
    const bytes = encoder.encode('data: {"a":1}\n\n')
    expect(scanJsonObject(bytes, 6, 13)).toBe(0)
    expect(scanJsonObject(bytes, 6, 14)).toBe(NOT_PROVEN)
  })
})

/** One random edit: delete, insert or replace a byte, with bytes that matter to JSON and UTF-8 favoured. */
function mutate(bytes: Uint8Array, next: () => number): Uint8Array {
  const interesting = [
    0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x30, 0x31, 0x2d, 0x2e, 0x65, 0x20, 0x0d, 0x00, 0x80, 0xc3, 0xe6,
    0xf0, 0xff, 0x75,
  ]
  const at = Math.floor(next() * (bytes.length + 1))
  const byte = next() < 0.8 ? interesting[Math.floor(next() * interesting.length)] : Math.floor(next() * 256)
  const operation = Math.floor(next() * 3)
  if (operation === 0 && bytes.length > 0)
    return new Uint8Array([
      ...bytes.subarray(0, Math.min(at, bytes.length - 1)),
      ...bytes.subarray(Math.min(at, bytes.length - 1) + 1),
    ])
  if (operation === 1) return new Uint8Array([...bytes.subarray(0, at), byte, ...bytes.subarray(at)])
  const copy = bytes.slice()
  if (copy.length > 0) copy[Math.min(at, copy.length - 1)] = byte
  return copy
}

describe('the usage and finish flags, which let the relay read only the events that carry them', () => {
  const flags = (text: string) => {
    const bytes = new TextEncoder().encode(text)
    return scanJsonObject(bytes, 0, bytes.length)
  }
  const ROWS: { text: string; flags: number }[] = [
    {
      text: '{"choices":[{"delta":{"content":"a"},"finish_reason":null}],"usage":null}',
      flags: HAS_CHOICES | HAS_USAGE_NULL,
    },
    { text: '{"usage":null,"choices":[]}', flags: HAS_CHOICES },
    { text: '{"choices":[{"delta":{},"finish_reason":"stop"}]}', flags: HAS_CHOICES | HAS_FINISH },
    { text: '{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":3}}', flags: HAS_CHOICES | HAS_USAGE },
    {
      text: '{"choices":[{"delta":{},"finish_reason":"length"}],"usage":{"total_tokens":9}}',
      flags: HAS_CHOICES | HAS_FINISH | HAS_USAGE,
    },
    { text: '{"x":{"usage":{"a":1}},"choices":[]}', flags: HAS_CHOICES },
    { text: '{"choices":[{"finish_reason":1}]}', flags: HAS_CHOICES },
    { text: '{"error":{"message":"finish_reason"}}', flags: HAS_ERROR },
  ]
  for (const row of ROWS) {
    test(row.text, () => {
      expect(flags(row.text)).toBe(row.flags)
    })
  }
})

test('the `,"usage":null` member is located exactly, so that cutting it out leaves the chunk as it was without it', () => {
  for (const [text, without] of [
    ['{"id":"a","choices":[],"usage":null}', '{"id":"a","choices":[]}'],
    ['{"id":"a","usage" : null ,"choices":[1]}', '{"id":"a" ,"choices":[1]}'],
  ]) {
    const bytes = new TextEncoder().encode(text)
    const member: MemberRange = { start: 0, end: 0 }
    expect(scanJsonObject(bytes, 0, bytes.length, undefined, member) & HAS_USAGE_NULL).toBe(HAS_USAGE_NULL)
    const cut = text.slice(0, member.start) + text.slice(member.end)
    expect(cut).toBe(without)
    expect(JSON.parse(cut)).toEqual(
      Object.fromEntries(Object.entries(JSON.parse(text)).filter(([key]) => key !== 'usage')),
    )
  }
})
