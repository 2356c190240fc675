import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { freshAppPerTest, PNG, putFile, site } from './assets-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * PUT /docs/assets/{path} as a hostile or careless author writes it: every bad path or document is a 400 naming
 * the problem, never a 500, and what is stored is served with the locked-down headers.
 */

freshAppPerTest()

const doc = (extra: Record<string, unknown>) =>
  JSON.stringify({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {}, ...extra })
const refTo = (ref: string) => doc({ components: { schemas: { A: { $ref: ref } } } })

describe('paths: 400 naming the rule', () => {
  const ROWS: [string, string, string][] = [
    ['an .html file', 'x.html', 'ends in .html'],
    ['NUL', 'a%00.png', 'which a file name may not hold'],
    ['encoded ".." segments', 'a/..%2F..%2Fb.png', 'relative segments are not allowed'],
    ['a backslash', 'a%5Cb.png', 'which a file name may not hold'],
    ['a right-to-left override', '%E2%80%AEgnp.svg', 'which a file name may not hold'],
    ['an encoded "?"', 'a.png%3F', 'which a file name may not hold'],
    ['601 characters', `${'a'.repeat(596)}.png`, 'at most 500 are allowed'],
    ['a malformed escape', 'a%ZZ.png', 'malformed percent-escape'],
    ['a hidden file', '.env.json', 'hidden file'],
    ['a reserved folder', '_assets/x.png', 'a folder the site keeps for itself'],
    ['a file the site answers', 'llms.txt', 'answered by the site itself'],
  ]
  test.each(ROWS)('%s', async (_name, path, message) => {
    const response = await putFile(path, PNG)
    expect(response.status).toBe(400)
    expect(((await response.json()) as { message: string }).message).toContain(message)
  })
})

describe('OpenAPI documents: 400 naming the problem', () => {
  const ROWS: [string, string, string, string][] = [
    ['a malformed escape in a $ref (was a 500)', 'o.json', refTo('#/components/schemas/%ZZ'), 'names nothing'],
    ['a $ref to an inherited name: constructor', 'o.json', refTo('#/constructor'), 'names nothing'],
    ['a $ref to an inherited name: __proto__', 'o.json', refTo('#/__proto__/constructor'), 'names nothing'],
    ['a $ref to an inherited name: toString', 'o.json', refTo('#/components/toString'), 'names nothing'],
    [
      'a YAML alias bomb',
      'bomb.yaml',
      `a: &a [${Array(50).fill('x').join(',')}]\n${Array.from(
        { length: 9 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(',')}]`,
      ).join('\n')}\nopenapi: 3.1.0\n`,
      'Excessive alias count',
    ],
    ['parameters that are not a list', 'o.json', doc({ paths: { '/a': { get: { parameters: 'x' } } } }), 'not a list'],
  ]
  test.each(ROWS)('%s', async (_name, path, body, message) => {
    const response = await putFile(path, body)
    expect(response.status).toBe(400)
    expect(((await response.json()) as { message: string }).message).toContain(message)
  })

  test('a $ref to a real place is stored as an OpenAPI document', async () => {
    const response = await putFile('o.json', refTo('#/info/title'))
    expect(response.status).toBe(201)
    expect(((await response.json()) as { kind: string }).kind).toBe('openapi')
  })
})

describe('served files', () => {
  test('an SVG with a script is served sandboxed, without sniffing', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    expect((await putFile('evil.svg', svg)).status).toBe(201)
    const response = await site('evil.svg')
    expect(response.headers.get('content-type')).toBe('image/svg+xml')
    expect(response.headers.get('content-security-policy')).toContain('sandbox')
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'")
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
  })

  test('If-Match with thousands of tags is a 412, not a 500', async () => {
    expect((await putFile('x.png', PNG)).status).toBe(201)
    const response = await putFile('x.png', PNG, { headers: { 'if-match': `${'W/"x", '.repeat(2000)}"y"` } })
    expect(response.status).toBe(412)
  })
})
