import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { HttpError } from '../../src/http/errors'
import { parseJsonLossless } from '../../src/json/lossless'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

describe('lossless JSON parsing', () => {
  test('agrees with JSON.parse on ordinary documents', () => {
    const text = '{"a":[1,-2.5,3e2,true,false,null,"x\\n\\u00e9"],"b":{"c":{}},"d":[]}'
    expect(parseJsonLossless(text)).toEqual(JSON.parse(text))
  })

  test('integers beyond 2^53 become exact bigints', () => {
    expect(parseJsonLossless('9223372036854775807')).toBe(9223372036854775807n)
    expect(parseJsonLossless('[9007199254740993]')).toEqual([9007199254740993n])
    expect(parseJsonLossless('-9223372036854775808')).toBe(-9223372036854775808n)
  })

  test('safe integers, fractions and exponents stay numbers', () => {
    expect(parseJsonLossless('9007199254740991')).toBe(9007199254740991)
    expect(parseJsonLossless('1.5')).toBe(1.5)
    expect(parseJsonLossless('1e300')).toBe(1e300)
    expect(parseJsonLossless('[5.0, 1e3, -2.50e1, 0.0e-999, 9007199254740992.0]')).toEqual([
      5, 1000, -25, 0, 9007199254740992,
    ])
  })

  test('"__proto__" is an ordinary key, not a prototype', () => {
    const value = parseJsonLossless('{"__proto__":{"polluted":true}}') as Record<string, unknown>
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  test.each([
    ['', 'line 1, column 1: the body is empty'],
    ['{"a":1,}', 'line 1, column 8: unexpected character "}"; expected a property name'],
    ['{"a" 1}', 'expected \':\' after property name "a"'],
    ['[1 2]', "expected ',' or ']' in array"],
    ['{a:1}', 'expected a property name in double quotes'],
    ['"abc', 'unterminated string'],
    ['01', 'after the JSON value'],
    ['-', 'invalid number'],
    ['tru', 'expected a JSON value'],
    ['{"a":1}\n\n  }', 'line 3, column 3'],
    ['['.repeat(500), 'nesting deeper than 128 levels'],
    // An integer field must not be fooled by a number JavaScript rounds into an integer.
    ['{"id":4503599627370496.5}', 'the number 4503599627370496.5 cannot be carried exactly'],
    ['{"id":1e-400}', 'the number 1e-400 cannot be carried exactly'],
    ['{"id":9007199254740993.0}', 'the number 9007199254740993.0 cannot be carried exactly'],
    ['{"id":90071992547409930e-1}', 'cannot be carried exactly'],
    ['9'.repeat(401), 'a number longer than 400 characters'],
    ['{"name":"a","name":"b"}', 'line 1, column 13: the property name "name" appears twice in one object'],
    ['{"a":{"x":1},"b":{"x":2,"x":3}}', 'column 25: the property name "x" appears twice'],
  ])('%p is a 400 that says where: %s', (text, message) => {
    expect(() => parseJsonLossless(text)).toThrow(HttpError)
    expect(() => parseJsonLossless(text)).toThrow(message)
  })
})
