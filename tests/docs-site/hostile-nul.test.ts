import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * NUL in a site address, or in an OpenAPI document's names: PostgreSQL text cannot hold it, so a lookup with it was
 * a 500 (anonymously, at any `/docs/…` address ending in a file extension or `.md`). Such an address names nothing:
 * the site's 404; a name with NUL in a document makes its page path from the rest.
 */

let t: TestApp
let writer: string
beforeAll(async () => {
  t = await makeTestApp()
  writer = await t.tokenFor('docs-author', ['docs:write'])
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

describe('an address with %00: 404, anonymously', () => {
  const ROWS = [
    '/docs/a%00b',
    '/docs/a%00b.md',
    '/docs/a%00.png',
    '/docs/images/%00/hero.svg',
    '/docs/_files/a%00.png',
    '/docs/%00.md',
    '/docs/api-reference/%00x/%00x',
  ]
  test.each(ROWS)('GET %s', async (path) => {
    expect((await t.request(path)).status).toBe(404)
  })
  test.each(ROWS)('HEAD %s', async (path) => {
    expect((await t.request(path, { method: 'HEAD' })).status).toBe(404)
  })
})

describe('NUL in an OpenAPI document: every page of the site answers', () => {
  const operation = (fields: Record<string, unknown>) => ({
    openapi: '3.1.0',
    info: { title: 'T', version: '1' },
    paths: { '/p': { get: { ...fields, responses: { '200': { description: 'ok' } } } } },
  })
  const ROWS: [string, object, string][] = [
    ['in the summary and tag', operation({ summary: '\u0000x', tags: ['\u0000t'] }), 'api-reference/t/x'],
    [
      'in x-mint.href (the slug serves)',
      operation({ summary: 'Read', 'x-mint': { href: 'a\u0000b' } }),
      'api-reference/read',
    ],
    ['as the whole summary', operation({ summary: '\u0000' }), 'api-reference/operation'],
    ['a control character in the summary', operation({ summary: 'a\u0007b' }), 'api-reference/a-b'],
  ]
  test.each(ROWS)('%s', async (_name, document, page) => {
    const put = await t.request('/docs/assets/o.json', { method: 'PUT', token: writer, body: JSON.stringify(document) })
    expect(put.status).toBeLessThan(300)
    const config = {
      theme: 'mint',
      name: 'A',
      colors: { primary: '#000000' },
      navigation: { groups: [{ group: 'G', openapi: 'o.json' }] },
    }
    expect((await t.request('/docs.json', { method: 'PUT', token: writer, json: config })).status).toBe(200)
    for (const url of ['/docs/', `/docs/${page}`, '/docs/llms.txt', '/docs/llms-full.txt', '/docs/sitemap.xml'])
      expect({ url, status: (await t.request(url)).status }).toEqual({ url, status: 200 })
  })
})
