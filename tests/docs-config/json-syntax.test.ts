import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { validateDocsConfig } from '../../src/docs-config/validation/validate'
import { unmark } from './marked-text'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/** Invalid JSON is one error, at the offending character (`¦`), with a hint for the usual causes. */
const SYNTAX_ROWS: { kind: string; text: string; message: string }[] = [
  {
    kind: 'trailing comma in an object',
    text: '{\n  "name": "Acme",\n  "navigation": []¦,\n}\n',
    message: 'trailing comma before "}"; remove this comma',
  },
  {
    kind: 'trailing comma in an array',
    text: '{\n  "name": "Acme",\n  "navigation": [\n    { "group": "A", "pages": ["a", "b"¦,] }\n  ]\n}',
    message: 'trailing comma before "]"',
  },
  {
    kind: 'missing comma between properties',
    text: '{\n  "name": "Acme"\n  ¦"navigation": []\n}',
    message: 'missing comma between properties',
  },
  {
    kind: 'missing comma between array items',
    text: '{ "name": "Acme", "navigation": [{ "group": "A", "pages": ["a" ¦"b"] }] }',
    message: 'missing comma between array items',
  },
  {
    kind: 'unquoted key',
    text: '{\n  "name": "Acme",\n  ¦navigation: []\n}',
    message: 'unquoted property name navigation; write it as "navigation"',
  },
  {
    kind: 'single-quoted key',
    text: "{\n  ¦'name': 'Acme'\n}",
    message: 'property names must use double quotes',
  },
  {
    kind: 'single-quoted value',
    text: '{\n  "name": ¦\'Acme\'\n}',
    message: 'strings must use double quotes',
  },
  {
    kind: 'line comment',
    text: '{\n  "name": "Acme",\n  ¦// the navigation\n  "navigation": []\n}',
    message: 'comments are not allowed in JSON',
  },
  {
    kind: 'block comment after a value',
    text: '{\n  "name": "Acme" ¦/* product */,\n  "navigation": []\n}',
    message: 'comments are not allowed in JSON',
  },
  {
    kind: 'comment before the document',
    text: '¦// docs.json\n{ "name": "Acme", "navigation": [] }',
    message: 'comments are not allowed in JSON',
  },
  {
    kind: 'unterminated string (line break inside)',
    text: '{\n  "name": "Acme¦\n  , "navigation": []\n}',
    message: 'line break inside a string',
  },
  {
    kind: 'truncated file',
    text: '{\n  "name": "Acme",\n  "navigation": [¦\n',
    message: 'unexpected end of the file',
  },
  {
    kind: 'empty file',
    text: '¦',
    message: 'the file is empty',
  },
  {
    kind: 'merge conflict marker',
    text: '{\n  "name": "Acme",\n¦<<<<<<< HEAD\n  "navigation": []\n}',
    message: 'unresolved merge conflict marker',
  },
  {
    kind: 'number with a leading zero',
    text: '{ "name": "Acme", "version": ¦012, "navigation": [] }',
    message: 'invalid number',
  },
  {
    kind: 'bare word',
    text: '{ "name": ¦undefined, "navigation": [] }',
    message: 'unexpected word "undefined"',
  },
  {
    kind: 'invalid escape',
    text: '{ "name": "Acme ¦\\q", "navigation": [] }',
    message: 'invalid escape',
  },
  {
    kind: 'a second document after the first',
    text: '{ "name": "Acme", "navigation": [] }\n¦{ "name": "Other" }',
    message: 'after the end of the JSON value',
  },
  {
    kind: 'missing colon',
    text: '{ "name" ¦"Acme" }',
    message: 'expected ":" after the property name "name"',
  },
]

describe('invalid JSON: one error, at the right line and column, with a hint', () => {
  test.each(SYNTAX_ROWS.map((row) => [row.kind, row] as const))('%s', (_kind, row) => {
    const { text, line, column } = unmark(row.text)
    const result = validateDocsConfig(text)
    expect(result.valid).toBe(false)
    expect(result.warnings).toEqual([])
    expect(result.errors).toHaveLength(1)
    const [issue] = result.errors
    expect({ path: issue.path, line: issue.line, column: issue.column }).toEqual({ path: '', line, column })
    expect(issue.message).toStartWith('invalid JSON: ')
    expect(issue.message).toContain(row.message)
  })
})

describe('duplicate keys: an error at the second occurrence', () => {
  const DUPLICATE_ROWS: { kind: string; text: string; path: string; message: string }[] = [
    {
      kind: 'top level',
      text: '{\n  "name": "Acme",\n  "navigation": [{ "group": "A", "pages": ["a"] }],\n  ¦"name": "Acme 2"\n}',
      path: '/name',
      message: 'duplicate key "name"; it already appears at line 2',
    },
    {
      kind: 'nested, with identical values',
      text: '{ "name": "Acme", "navigation": [{ "group": "A", "pages": ["a"] }],\n  "colors": { "primary": "#000", ¦"primary": "#000" } }',
      path: '/colors/primary',
      message: 'duplicate key "primary"',
    },
    {
      kind: 'spelt with an escape the first time',
      text: '{ "name": "Acme", "navigation": [{ "group": "A", "pages": ["a"] }], "fav\\u0069con": "/a.svg", ¦"favicon": "/b.svg" }',
      path: '/favicon',
      message: 'duplicate key "favicon"',
    },
    {
      kind: 'values holding colons',
      text: '{ "name": "a:b", "navigation": [{ "group": "A", "pages": ["a"] }], "openapi": "https://x.example/o.json",\n ¦"openapi": "o.json" }',
      path: '/openapi',
      message: 'duplicate key "openapi"',
    },
    {
      kind: 'a key ending in an escaped backslash',
      // Plain strings, not String.raw: Bun's transpiler escapes the non-ASCII mark inside raw templates.
      text: '{ "name": "A", "navigation": [{ "group": "A", "pages": ["a"] }], "k\\\\": 1, ¦"k\\\\": 2 }',
      path: '/k\\',
      message: String.raw`duplicate key "k\\"`,
    },
    {
      kind: 'strings holding an escaped quote before a colon',
      text: '{ "name": "say \\" : hi", "navigation": [{ "group": "\\":", "pages": ["a"] }],\n ¦"name": "B" }',
      path: '/name',
      message: 'duplicate key "name"',
    },
  ]
  test.each(DUPLICATE_ROWS.map((row) => [row.kind, row] as const))('%s', (_kind, row) => {
    const { text, line, column } = unmark(row.text)
    const result = validateDocsConfig(text)
    expect(result.valid).toBe(false)
    expect(result.errors).toHaveLength(1)
    expect(result.errors[0]).toMatchObject({ path: row.path, line, column })
    expect(result.errors[0].message).toContain(row.message)
  })

  test('keys that merely contain colons, or look alike in other objects, are not duplicates', () => {
    const text =
      '{ "name": "a:b:c", "navigation": [{ "group": "x:y", "pages": ["a:b", { "group": "x:y", "pages": ["c"] }] }], "openapi": "https://h.example:8443/o.json" }'
    expect(validateDocsConfig(text)).toMatchObject({ valid: true, errors: [] })
    const escapes =
      '{ "name": "a\\\\", "navigation": [{ "group": "x \\" :", "pages": ["a\\\\\\":", "b"] }], "openapi": "http://h:1/x" }'
    expect(JSON.parse(escapes).navigation[0].pages[0]).toBe('a\\":')
    expect(validateDocsConfig(escapes)).toMatchObject({ valid: true, errors: [], warnings: [] })
  })
})
