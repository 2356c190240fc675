import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { scanJson } from '../../src/json/positional'
import { NodeSearch } from '../../src/json/node-search'
import { validateDocsConfig } from '../../src/docs-config/validation/validate'
import { corpusFiles } from '../docs-config/corpus'
import { unmark } from '../docs-config/marked-text'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * Texts that make a native search for `"key"` go wrong if it trusts the first match: the same key in several
 * objects and at several depths, key-like text inside strings, escaped quotes and backslashes, keys written
 * with \u escapes, keys made of separators, and odd whitespace.
 */
const TRICKY_TEXTS: [string, string][] = [
  [
    "the same key in nested objects, before and after the parent's own",
    '{"a": {"name": 1}, "name": 2, "b": [{"name": 3}, {"c": {"name": 4}}], "d": {"e": {"name": 5}, "name": 6}}',
  ],
  [
    'key-like text inside strings',
    '{"x": "\\"name\\": 1", "y": "name", "z": ["name", "\\"name\\":", "{\\"name\\": 0}"], "name": {"name": 1}}',
  ],
  ['a key ending in an escaped quote, then the plain key', '{"o": {"\\"name": 1, "name\\"": 2}, "name": 3}'],
  ['escaped backslashes before quotes', '{"a\\\\": {"b": "\\\\"}, "b\\\\\\"": 1, "b": [{"b": 2}], "a": "\\\\\\\\"}'],
  [
    "the outermost object's key last, the same key in earlier objects",
    '{"a": {"note": 1}, "b": [{"note": 2}], "note": 3}\n\n',
  ],
  ["the outermost object's key first, the same key in its last member", '{"note": 0, "x": {"note": 1}}'],
  ["the outermost object's key holding the same key", '{"x": {"note": 1}, "note": {"note": 2}, "y": [{"note": 3}]}'],
  [
    'a key written with a \\u escape, the same key literal deeper',
    '{"outer": {"name": "inner"}, "n\\u0061me": {"name": "deeper"}, "x": 1}',
  ],
  [
    'a key written with a \\u escape after the only literal one, in another object',
    '{"outer": {"name": "inner"}, "n\\u0061me": "root"}',
  ],
  ['a key holding "/" written as \\/ after the only literal one', '{"o": {"a/b": 1}, "a\\/b": 2}'],
  ['a key holding a backslash after a key that reads the same unescaped', '{"o": {"a\\b": 1}, "a\\\\b": 2}'],
  ['a \\u escape elsewhere, keys literal', '{"a": "caf\\u00e9", "b": {"a": 1}, "c": {"b": {"a": 2}}}'],
  ['non-ASCII keys, literal and escaped', '{"café": {"ü": 1, "x": {"ü": 2}}, "caf\\u00e9x": {"\\u00fc": 3}}'],
  [
    'a key that also spells the gap between two strings',
    '{"], [": 1, "z": [["a"], [":b"]], "e": ["x", ":"], ", ": {"e": [1, ": 2"]}}',
  ],
  [
    'keys made of separators and spaces',
    '{"x": [", ", ":", " "], ", ": {":": 1}, ":": [{", ": 2}], " ": {" ": 3}, "a b": {"a b": 4}}',
  ],
  ['empty keys', '{"": {"": {"": 1}}, "a": {"": 2}}'],
  ['keys holding "/" and "~" (escaped in pointers)', '{"a/b": {"c~d": {"a/b": 1}}, "~": {"/": 2}, "x\\/y": 3}'],
  ['integer-like keys, which JavaScript objects reorder', '{"2": "b", "1": {"0": [1, {"1": 2}]}, "10": {"2": 3}}'],
  [
    'tabs, carriage returns and blank lines around colons and commas',
    '{\r\n\t"a"\t :\r\n\t{ "b" :[ 1 ,\r\n 2 ] } ,\n\n "b"\n:\n{"a":"b"}\r\n}',
  ],
  ['strings holding brackets and braces', '{"a": "[{", "b": ["]}", {"c": "}}]]"}], "c": {"a": "{"}}'],
  [
    'array items sharing strings with other items and keys',
    '{"a": [{"group": "x", "pages": ["p"]}, {"group": "y", "pages": ["x", "y"]}, {"group": "z"}], "b": ["x", "y", "x", "w", ""], "y": {"z": ["z"]}}',
  ],
  [
    'object items whose first key JavaScript enumerates out of text order',
    '{"a": [{"k": "v1", "1": "n"}, {"b": "u", "2": "v2"}, {"3": "v3", "k": 1}, {}, {"k": 2}]}',
  ],
  [
    "object items whose first value is not a string, or is another item's",
    '{"a": [{"n": "k"}, {"n": "m"}, {"n": 1, "m": "k"}, [{"g": "q"}], {"g": "q"}], "m": 1}',
  ],
  ['arrays nested in arrays', '{"a": [[[1]], [2, [3, {"a": [4, {"a": 5}]}]]], "b": []}'],
  ['a byte-order mark before the document', '\ufeff{"a": {"a": 1}}'],
  ['a document that is an array', '[{"a": 1}, [{"a": 2}], "a"]'],
]

/** Texts of the corpus that parse and have no duplicate keys (the search's precondition). */
const CORPUS_TEXTS = corpusFiles().filter(([, text]) => {
  const scan = scanJson(text)
  return scan.ok && scan.duplicates.length === 0
})

function parse(text: string): unknown {
  return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
}

describe('searching a node finds exactly what a full scan records', () => {
  test('the corpus offers texts to compare on', () => {
    expect(CORPUS_TEXTS.length).toBeGreaterThan(20)
  })

  test.each([...TRICKY_TEXTS, ...CORPUS_TEXTS])(
    '%s: every key and value, each searched alone and all in turn',
    (_name, text) => {
      const scan = scanJson(text)
      if (!scan.ok) throw new Error(scan.error.message)
      expect(scan.duplicates).toEqual([])
      const value = parse(text)
      const shared = new NodeSearch(text, value)
      for (const [pointer, position] of scan.positions) {
        const expected = { pointer, value: position.value, key: position.key ?? position.value }
        const alone = new NodeSearch(text, value)
        expect({ pointer, value: alone.offsetOf(pointer, 'value'), key: alone.offsetOf(pointer, 'key') }).toEqual(
          expected,
        )
        expect({ pointer, value: shared.offsetOf(pointer, 'value'), key: shared.offsetOf(pointer, 'key') }).toEqual(
          expected,
        )
      }
    },
  )
})

describe('a node that is not in the text', () => {
  const TEXT = '{"a": {"b": [10, 20]}, "s": "text"}'
  const ABSENT_ROWS: [string, string, string][] = [
    ['a missing key', '/a/missing', '{"b"'],
    ['a key below a missing key', '/a/missing/deeper', '{"b"'],
    ['an index past the end', '/a/b/2', '[10'],
    ['an index that is not a number', '/a/b/x', '[10'],
    ['an index with a leading zero', '/a/b/01', '[10'],
    ['a key below a string', '/s/length', '"text"'],
    ['a key below a number', '/a/b/1/x', '20'],
  ]
  test.each(ABSENT_ROWS)('%s is placed at its nearest ancestor in the text', (_case, pointer, startsWith) => {
    const search = new NodeSearch(TEXT, JSON.parse(TEXT))
    expect(TEXT.slice(search.offsetOf(pointer, 'key'))).toStartWith(startsWith)
    expect(TEXT.slice(search.offsetOf(pointer, 'value'))).toStartWith(startsWith)
  })
})

describe('the validator, with keys that a plain text search would confuse', () => {
  test("the same unknown key in several objects is reported at each object's own key", () => {
    const lines = [
      '{',
      '  "name": "Acme \\"extra\\": 1",',
      '  "colors": { "primary": "#000", "background": { "light": "#fff", "dark": "#000", "extra": 1 }, "extra": 2 },',
      '  "navigation": [{ "group": "extra", "pages": ["extra"], "extra": 3 }],',
      '  "api": { "auth": { "method": "key", "extra": { "extra": 4 } } },',
      '  "extra": { "extra": 5 }',
      '}',
    ]
    const result = validateDocsConfig(lines.join('\n'))
    const keyAt = (line: number, occurrence: number) => {
      let column = -1
      for (let count = 0; count < occurrence; count++) column = lines[line - 1].indexOf('"extra":', column + 1)
      return { line, column: column + 1 }
    }
    expect(result.errors).toEqual([])
    expect(result.warnings.map(({ path, line, column }) => ({ path, line, column }))).toEqual([
      { path: '/colors/background/extra', ...keyAt(3, 1) },
      { path: '/colors/extra', ...keyAt(3, 2) },
      { path: '/navigation/0/extra', ...keyAt(4, 1) },
      { path: '/api/auth/extra', ...keyAt(5, 1) },
      { path: '/extra', ...keyAt(6, 1) },
    ])
  })

  test('a top-level key written with a \\u escape is found where it is written, not at a literal one deeper', () => {
    const text =
      '{\n  "name": "Acme",\n  "colors": { "primary": "#000", "twitter": 1 },\n  "navigation": [{ "group": "A", "pages": ["a"] }],\n  "footerSocials": { "\\u0074ypo": "https://twitter.com/acme" }\n}'
    const result = validateDocsConfig(text)
    expect(result.errors).toEqual([expect.objectContaining({ path: '/footerSocials/typo', line: 5, column: 22 })])
    expect(result.warnings).toEqual([expect.objectContaining({ path: '/colors/twitter', line: 3, column: 34 })])
  })
})

describe('the validator places every corpus issue where a full scan records its node', () => {
  type Place = { line: number; column: number }

  /** Where the scanner records each node's value and, for a property, its key. */
  function scannedPlaces(text: string): Map<string, { value: Place; key?: Place }> {
    const scan = scanJson(text)
    if (!scan.ok) throw new Error(scan.error.message)
    const places = new Map<string, { value: Place; key?: Place }>()
    for (const [pointer, { line, column, keyLine, keyColumn }] of scan.positions) {
      places.set(pointer, {
        value: { line, column },
        ...(keyLine !== undefined && keyColumn !== undefined ? { key: { line: keyLine, column: keyColumn } } : {}),
      })
    }
    return places
  }

  test('the corpus has warnings and errors to place', () => {
    const results = CORPUS_TEXTS.map(([, text]) => validateDocsConfig(text))
    // Fewer since #27 knows every key Mintlify documents (they warned before); those left are still unknown keys
    // and values a version or anchor does not define.
    expect(results.reduce((sum, result) => sum + result.warnings.length, 0)).toBeGreaterThan(5)
    expect(results.reduce((sum, result) => sum + result.errors.length, 0)).toBeGreaterThan(0)
  })

  test.each(CORPUS_TEXTS)('%s', (_name, text) => {
    const places = scannedPlaces(text)
    const result = validateDocsConfig(text)
    for (const { path, line, column } of result.warnings) {
      // An unknown property is reported at its key, a doubtful value (a version no `versions` lists) at the value.
      const place = places.get(path)
      expect([place?.key, place?.value]).toContainEqual({ line, column })
    }
    for (const { path, line, column } of result.errors) {
      // An error is reported at its node (value, or key for a key that is not allowed) or, for a missing
      // property, at an ancestor.
      const candidates: Place[] = []
      for (let pointer = path; ; pointer = pointer.slice(0, pointer.lastIndexOf('/'))) {
        const place = places.get(pointer)
        if (place !== undefined) candidates.push(place.value, ...(place.key ? [place.key] : []))
        if (pointer === '') break
      }
      expect(candidates).toContainEqual({ line, column })
    }
  })
})

describe('unknown keys deep in the navigation, which a compiled check clears as a whole when it has none', () => {
  const NAVIGATION =
    '[{ "group": "a", "pages": ["x", { "group": "b", "pages": [{ "group": "c", "pages": ["y"], ¦"extra": 1 }] }] }]'
  const ROWS: [string, string, number][] = [
    ['in an otherwise valid file', `{\n  "name": "A",\n  "navigation": ${NAVIGATION}\n}`, 0],
    [
      'next to an error elsewhere',
      `{\n  "name": "A",\n  "colors": { "primary": "#ff" },\n  "navigation": ${NAVIGATION}\n}`,
      1,
    ],
  ]
  test.each(ROWS)('%s: reported at its key', (_case, marked, errors) => {
    const { text, line, column } = unmark(marked)
    const result = validateDocsConfig(text)
    expect(result.errors).toHaveLength(errors)
    expect(result.warnings).toEqual([
      expect.objectContaining({ path: '/navigation/0/pages/1/pages/0/extra', line, column }),
    ])
  })
})
