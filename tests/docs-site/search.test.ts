import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { DocsPagesStore } from '../../src/docs-pages/store'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * GET /docs/search (issue #27 §3): PostgreSQL full-text search over the site's pages and API operations, one row per
 * section, kept on each page PUT. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

let t: TestApp
let writer: string
beforeEach(async () => {
  t = await makeTestApp()
  writer = await t.tokenFor('docs-author', ['docs:write'])
}, SETUP_TIMEOUT)
afterEach(() => t.close(), SETUP_TIMEOUT)

type Result = {
  title: string
  heading?: string
  url: string
  path: string
  anchor?: string
  kind: string
  snippet: string
}

const putPage = async (path: string, text: string) => {
  const response = await t.request(`/docs/pages/${path}`, {
    method: 'PUT',
    token: writer,
    body: text,
    headers: { 'content-type': 'text/markdown' },
  })
  expect([200, 201]).toContain(response.status)
}
const search = async (q: string, extra = ''): Promise<Result[]> => {
  const response = await t.request(`/docs/search?q=${encodeURIComponent(q)}${extra}`)
  expect(response.status).toBe(200)
  return ((await response.json()) as { results: Result[] }).results
}
const urls = (results: Result[]) => results.map((result) => result.url)
/** An author's docs.json: the built-in pages are no longer the site's. */
const putAuthorsConfig = async () => {
  const config = { name: 'Garden', navigation: [{ group: 'Guides', pages: ['guides/compost'] }] }
  expect((await t.request('/docs.json', { method: 'PUT', token: writer, json: config })).status).toBe(200)
}

describe('ranking, sections and snippets', () => {
  test('a title outranks a heading, a heading outranks text; a section links to page#heading', async () => {
    await putPage('guides/compost', '---\ntitle: Composting\n---\nStart a heap.\n\n## Turning\n\nTurn it weekly.\n')
    await putPage('guides/soil', '---\ntitle: Soil\n---\nGood soil.\n\n## Composting at home\n\nA bin works.\n')
    await putPage('guides/water', '---\ntitle: Watering\n---\nMulch and composting keep water in.\n')
    const results = await search('composting')
    expect(urls(results)).toEqual([
      '/docs/guides/compost',
      '/docs/guides/soil#composting-at-home',
      '/docs/guides/water',
      // The heap's Turning section carries its page's title too, at the lowest weight.
      '/docs/guides/compost#turning',
    ])
    expect(results[1]).toMatchObject({ title: 'Soil', heading: 'Composting at home', anchor: 'composting-at-home' })
    expect(results[0]).not.toHaveProperty('heading')
  })

  test("a section's anchor is the id the rendered page gives its heading, repeated headings included", async () => {
    await putPage('faq', '---\ntitle: FAQ\n---\n## Why\n\nBecause roses.\n\n## Why\n\nBecause tulips.\n')
    const [hit] = await search('tulips')
    expect(hit).toMatchObject({ url: '/docs/faq#why-1', heading: 'Why' })
    const html = await (await t.request('/docs/faq')).text()
    expect(html).toContain('<h2 id="why-1">Why</h2>')
  })

  test('snippets are escaped text with the words in <mark>; markup a page shows as code stays text', async () => {
    await putPage('xss', '---\ntitle: Safety\n---\nWrite `<script>alert(1)</script>` and "quotes" & ampersands.\n')
    const [hit] = await search('alert ampersands')
    expect(hit!.snippet).toContain('&lt;script&gt;')
    expect(hit!.snippet).toContain('<mark>ampersands</mark>')
    expect(hit!.snippet.replace(/<\/?mark>/g, '')).not.toMatch(/<|>/)
  })

  test('the word being typed matches as a prefix; stemming finds other forms; -word excludes', async () => {
    await putAuthorsConfig()
    await putPage('prune', '---\ntitle: Pruning roses\n---\nSnip the stems in spring.\n')
    await putPage('plant', '---\ntitle: Planting roses\n---\nDig a hole.\n')
    expect(urls(await search('pru'))).toEqual(['/docs/prune'])
    expect(urls(await search('roses snip'))).toEqual(['/docs/prune'])
    expect(urls(await search('snipping'))).toEqual(['/docs/prune'])
    expect(urls(await search('roses -dig'))).toEqual(['/docs/prune'])
    expect(await search('tulips')).toEqual([])
  })

  test('at most three sections of one page, and at most `limit` results', async () => {
    const sections = Array.from({ length: 6 }, (_, i) => `## Bed ${i}\n\nMarigold row ${i}.\n`).join('\n')
    await putPage('beds', `---\ntitle: Beds\n---\n${sections}`)
    await putPage('other', '---\ntitle: Other\n---\nOne marigold.\n')
    const results = await search('marigold')
    expect(results.filter((result) => result.path === 'beds')).toHaveLength(3)
    expect(results.map((result) => result.path)).toContain('other')
    expect(await search('marigold', '&limit=1')).toHaveLength(1)
  })
})

describe('the index follows the pages', () => {
  test('a new revision replaces the old words', async () => {
    await putPage('news', '---\ntitle: News\n---\nThe dahlias bloomed.\n')
    expect(urls(await search('dahlias'))).toEqual(['/docs/news'])
    await putPage('news', '---\ntitle: News\n---\nThe asters bloomed.\n')
    expect(await search('dahlias')).toEqual([])
    expect(urls(await search('asters'))).toEqual(['/docs/news'])
  })

  test('pages stored without the index (before it existed) are caught up; rows of removed pages are dropped', async () => {
    const store = new DocsPagesStore(t.deps.database.db)
    const now = new Date().toISOString()
    await store.appendNext('legacy', async () => ({
      source: '---\ntitle: Legacy\n---\nOld begonias.\n',
      etag: '"x"',
      title: 'Legacy',
      author: 'migration',
      size: 10,
      createdAt: now,
    }))
    expect(urls(await search('begonias'))).toEqual(['/docs/legacy'])
    await t.deps.database.db.execute(sql`DELETE FROM docs_pages WHERE path = 'legacy'`)
    expect(await search('begonias')).toEqual([])
  })

  test('snippets/ are parts of pages, not pages: they are not found', async () => {
    await putPage('snippets/note', 'A shared peony note.\n')
    expect(await search('peony')).toEqual([])
  })
})

describe("the built-in site: Trellis's own guides and API operations", () => {
  test('API operations of /openapi.json are found by their summary, method and path', async () => {
    const results = await search('create plant')
    expect(results[0]).toMatchObject({ url: '/docs/api-reference/plants/post-plants', kind: 'operation' })
    expect(urls(await search('"POST /plants"'))).toContain('/docs/api-reference/plants/post-plants')
    expect(urls(await search('tool calls'))).toContain('/docs/chat/tool-calls')
  })

  test("a stored page hides the built-in one at its path; an author's docs.json hides them all", async () => {
    expect(urls(await search('introduction'))).toContain('/docs/introduction')
    await putPage('introduction', '---\ntitle: Welcome\n---\nHello gardeners.\n')
    const intro = (await search('gardeners')).filter((result) => result.path === 'introduction')
    expect(intro.map((result) => result.title)).toEqual(['Welcome'])
    expect((await search('trellis')).filter((result) => result.path === 'introduction')).toEqual([])
    await putAuthorsConfig()
    expect(await search('create plant')).toEqual([])
    expect(urls(await search('gardeners'))).toEqual(['/docs/introduction'])
  })

  test("a stored API page's own operation is searched by its words", async () => {
    await putAuthorsConfig()
    await putPage('reference/list', '---\ntitle: Listing\nopenapi: GET /plants\n---\n')
    const [hit] = await search('GET /plants')
    expect(hit).toMatchObject({ url: '/docs/reference/list', kind: 'operation', title: 'Listing' })
  })
})

describe('bad input is a 400 naming the field', () => {
  const rows: [string, string][] = [
    ['', 'q is required'],
    ['?q=', 'q must be 1 to 200 characters'],
    ['?q=%20%20%09', 'q must be 1 to 200 characters'],
    [`?q=${'a'.repeat(201)}`, 'q must be 1 to 200 characters'],
    ['?q=a%00b', 'q must not contain the NUL character'],
    ['?q=rose&limit=0', 'limit must be an integer from 1 to 20'],
    ['?q=rose&limit=21', 'limit must be an integer from 1 to 20'],
    ['?q=rose&limit=two', 'limit must be an integer from 1 to 20'],
  ]
  for (const [query, message] of rows) {
    test(`GET /docs/search${query.slice(0, 40)} → 400`, async () => {
      const response = await t.request(`/docs/search${query}`)
      expect(response.status).toBe(400)
      expect(((await response.json()) as { message: string }).message).toContain(message)
    })
  }

  test('query syntax is never an error: operators, quotes and stop words alone answer 200', async () => {
    for (const q of ['"', '-', 'or', 'the', '!!! :* & |', '"unclosed phrase', "o'brien", '(a)']) {
      const response = await t.request(`/docs/search?q=${encodeURIComponent(q)}`)
      expect({ q, status: response.status }).toEqual({ q, status: 200 })
    }
  })
})
