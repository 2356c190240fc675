import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * GET /docs/search?q= as a hostile client writes it: every q the query schema accepts is a 200 with results (maybe
 * none), never a 500 from PostgreSQL's query parser. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
  const writer = await t.tokenFor('docs-author', ['docs:write'])
  const config = { name: 'Garden', navigation: [{ group: 'Guides', pages: ['guides/compost'] }] }
  expect((await t.request('/docs.json', { method: 'PUT', token: writer, json: config })).status).toBe(200)
  const page = await t.request('/docs/pages/guides/compost', {
    method: 'PUT',
    token: writer,
    body: '# Compost\n\nTurn the compost heap weekly; worms like <b>coffee</b> grounds.\n',
    headers: { 'content-type': 'text/markdown' },
  })
  expect(page.status).toBe(201)
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const search = (q: string) => t.request(`/docs/search?q=${encodeURIComponent(q)}`)

describe('q that websearch_to_tsquery chokes on', () => {
  // Each `-` is a NOT; about 33 in a row overflowed the parser's operator stack: "tsquery stack too small", a 500.
  const ROWS: [string, string, string[]][] = [
    ['200 dashes', '-'.repeat(200), []],
    ['100 "- " pairs', '- '.repeat(100), []],
    ['100 "-(" pairs', '-('.repeat(100), []],
    ['dashes between punctuation', '-!-&-)-.-,-'.repeat(18), []],
    ['a word, then a run of dashes', `compost ${'- '.repeat(90)}`, ['/docs/guides/compost']],
    ['a run of dashes, then a negated word', `compost ${'-'.repeat(100)}worms`, []],
    ['tsquery operators as text', "compost & ! | <-> :* ' ( )", ['/docs/guides/compost']],
    ['only stop words and operators', 'or or -the "" ()', []],
  ]
  test.each(ROWS)('%s: 200', async (_name, q, urls) => {
    const response = await search(q)
    expect(response.status).toBe(200)
    const { results } = (await response.json()) as { results: { url: string }[] }
    expect(results.map((result) => result.url)).toEqual(urls)
  })
})

describe('q the schema refuses: 400 naming q', () => {
  const ROWS: [string, string][] = [
    ['201 characters', 'a'.repeat(201)],
    ['only white space', ' \t '],
    ['a NUL', 'a\u0000b'],
  ]
  test.each(ROWS)('%s', async (_name, q) => {
    const response = await search(q)
    expect(response.status).toBe(400)
    expect(await response.text()).toMatch(/^{"error":400,"message":"q must/)
  })
})

test('markup in a page comes back escaped in the snippet, only <mark> as markup', async () => {
  const { results } = (await (await search('coffee')).json()) as { results: { snippet: string }[] }
  expect(results[0]?.snippet).toContain('<mark>coffee</mark>')
  expect(results[0]!.snippet.replace(/<\/?mark>/g, '')).not.toMatch(/[<>]/)
})
