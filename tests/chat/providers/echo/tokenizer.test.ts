import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { exampleFor } from '../../../../src/chat/providers/echo/schema-example'
import { leadingTokens, promptTokens, tokenAt, tokenize } from '../../../../src/chat/providers/echo/tokenizer'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/** The echo provider's tokenizer and the examples it makes of JSON schemas (tool arguments, json_schema answers). */

describe('tokenizer', () => {
  test('walking with tokenAt gives exactly the tokens of tokenize, even with several walks in flight', () => {
    const walk = (text: string) => {
      const tokens: string[] = []
      for (let at = 0, token = tokenAt(text, 0); token !== undefined; at += token.length, token = tokenAt(text, at))
        tokens.push(token)
      return tokens
    }
    const texts = ['Hello, world!', '  two  spaces ', 'naïve café 42x', 'emoji 🌱!', 'line\n\nbreak', '', '!!?? ..']
    for (const text of texts) expect(walk(text)).toEqual(tokenize(text))
    // Interleaved, as held streams use it: the one shared sticky regex must not leak positions.
    const a = 'alpha beta gamma'
    const b = 'one, two, three'
    const seenA: string[] = []
    const seenB: string[] = []
    for (let atA = 0, atB = 0, x = tokenAt(a, 0), y = tokenAt(b, 0); x !== undefined || y !== undefined; ) {
      if (x !== undefined) {
        seenA.push(x)
        atA += x.length
      }
      if (y !== undefined) {
        seenB.push(y)
        atB += y.length
      }
      x = tokenAt(a, atA)
      y = tokenAt(b, atB)
    }
    expect(seenA).toEqual(tokenize(a))
    expect(seenB).toEqual(tokenize(b))
  })

  test.each([
    ['Hello, world!', ['Hello', ',', ' world', '!']],
    ['  two  spaces ', ['  two', '  spaces', ' ']],
    ['line\n\nbreak', ['line', '\n\nbreak']],
    ['naïve café 42x', ['naïve', ' café', ' 42x']],
    ['emoji 🌱!', ['emoji', ' 🌱', '!']],
    ['', []],
  ])('%j', (text, tokens) => {
    expect(tokenize(text)).toEqual(tokens)
    expect(tokenize(text).join('')).toBe(text)
  })

  test.each([
    ['Hello, world!', 2, 'Hello,', true],
    ['Hello, world!', 4, 'Hello, world!', false],
    ['Hello, world!', 0, '', true],
    ['', 0, '', false],
  ])('leadingTokens(%j, %d) keeps %j', (text, limit, kept, cut) => {
    expect(leadingTokens(text, limit)).toEqual({ text: kept, count: tokenize(kept).length, cut })
  })

  test('prompt tokens: a role marker per message, then its text', () => {
    expect(
      promptTokens([
        { role: 'system', content: 'Be kind.' },
        { role: 'user', content: 'Hi there' },
      ]),
    ).toEqual(['<|system|>', 'Be', ' kind', '.', '<|user|>', 'Hi', ' there'])
  })
})

describe('exampleFor (tool arguments)', () => {
  test.each([
    [{ type: 'string', maxLength: 3 }, 'Hel'],
    [{ type: 'string', minLength: 8 }, 'Hello...'],
    [{ type: 'number', exclusiveMinimum: 0 }, 0.5],
    [{ type: 'integer', maximum: -3 }, -3],
    [{ const: 'fixed' }, 'fixed'],
    [{ anyOf: [{ type: 'null' }, { type: 'string' }] }, null],
    [{ type: ['null', 'integer'] }, 0],
    [{ type: 'array', items: { type: 'boolean' }, minItems: 2 }, [true, true]],
    [
      { type: 'object', properties: { inner: { type: 'object', properties: { n: { type: 'number' } } } } },
      { inner: { n: 0 } },
    ],
  ])('%j', (schema, expected) => {
    expect(exampleFor(schema, 'Hello')).toEqual(expected)
  })

  // JSON Schema counts code points; a cut by UTF-16 units would leave half a surrogate pair.
  test.each([
    [{ type: 'string', maxLength: 2 }, '🌿🌱🌵', '🌿🌱'],
    [{ type: 'string', maxLength: 1 }, '🌿x', '🌿'],
    [{ type: 'string', minLength: 3 }, '🌿🌱', '🌿🌱.'],
  ])('%j of %p is %p, whole characters only', (schema, text, expected) => {
    expect(exampleFor(schema, text)).toBe(expected)
  })
})
