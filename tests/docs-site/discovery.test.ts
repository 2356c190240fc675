import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { DiscoveryService, LLMS_FULL_MAX } from '../../src/docs-site/discovery/service'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * The site's files for machines (issue #27 §3): llms.txt, llms-full.txt, each page as Markdown at `<page>.md`,
 * sitemap.xml, robots.txt, and docs.json `seo` in each page's head.
 */

let t: TestApp
let writer: string
beforeAll(async () => {
  t = await makeTestApp()
  writer = await t.tokenFor('docs-author', ['docs:write'])
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

// http: the app's router reads paths from after `http://` (see app.ts); TLS ends before it.
const ORIGIN = 'http://docs.example.com'
/** A GET as a browser on the site's public address would send it. */
const get = async (path: string) => {
  const response = await t.app.handle(new Request(`${ORIGIN}${path}`))
  return { response, text: await response.text() }
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
const putConfig = async (extra: Record<string, unknown> = {}) => {
  const config = {
    name: 'Garden Docs',
    description: 'Growing things,\nwell.',
    navigation: [
      { group: 'Start', pages: ['intro', { group: 'Deeper', pages: ['guides/soil', 'guides/unwritten'] }] },
      { group: 'Reference', pages: ['reference/list'] },
    ],
    ...extra,
  }
  expect((await t.request('/docs.json', { method: 'PUT', token: writer, json: config })).status).toBe(200)
}

describe("an author's site", () => {
  beforeAll(async () => {
    await putConfig({ seo: { metatags: { 'og:site_name': 'Garden', 'twitter:card': 'summary' } } })
    await putPage('intro', '---\ntitle: Welcome\ndescription: Where to begin\n---\nHello **gardeners**.\n')
    await putPage('guides/soil', '---\ntitle: Soil [basics]\n"og:image": /images/soil.png\n---\n## Clay\n\nHeavy.\n')
    await putPage('reference/list', '---\ntitle: List plants\nopenapi: GET /plants\n---\nSee also the guide.\n')
    await putPage('hidden/page', '---\ntitle: Hidden\nrobots: noarchive\n---\nNot in navigation.\n')
  })

  test('llms.txt: the title, the description, then written pages by navigation group, linked as .md', async () => {
    const { response, text } = await get('/docs/llms.txt')
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(text).toBe(
      [
        '# Garden Docs',
        '',
        '> Growing things, well.',
        '',
        '## Start',
        '',
        `- [Welcome](${ORIGIN}/docs/intro.md): Where to begin`,
        `- [Soil \\[basics\\]](${ORIGIN}/docs/guides/soil.md)`,
        '',
        '## Reference',
        '',
        `- [List plants](${ORIGIN}/docs/reference/list.md)`,
        '',
      ].join('\n'),
    )
  })

  test('a page as Markdown: its title, description and body, without front matter; an API page its operation', async () => {
    const intro = await get('/docs/intro.md')
    expect(intro.response.status).toBe(200)
    expect(intro.response.headers.get('content-type')).toBe('text/markdown; charset=utf-8')
    expect(intro.text).toBe('# Welcome\n\n> Where to begin\n\nHello **gardeners**.\n')
    const api = await get('/docs/reference/list.md')
    expect(api.text).toStartWith('# List plants\n\n`GET /plants`\n')
    expect(api.text).toContain('## Parameters')
    expect(api.text).toEndWith('See also the guide.\n')
  })

  test('.md of an unknown or unwritten page is a plain 404; the HTML page stays where it was', async () => {
    for (const path of ['/docs/nowhere.md', '/docs/guides/unwritten.md']) {
      const { response } = await get(path)
      expect({ path, status: response.status, type: response.headers.get('content-type') }).toEqual({
        path,
        status: 404,
        type: 'text/plain; charset=utf-8',
      })
    }
    const html = await get('/docs/intro')
    expect(html.response.headers.get('content-type')).toBe('text/html; charset=utf-8')
  })

  test('llms-full.txt: every navigation page in order, each with its source URL', async () => {
    const { text } = await get('/docs/llms-full.txt')
    const titles = [...text.matchAll(/^# (.+)$/gm)].map((match) => match[1])
    expect(titles).toEqual(['Welcome', 'Soil [basics]', 'List plants'])
    expect(text).toContain(`Source: ${ORIGIN}/docs/guides/soil\n`)
    expect(text).not.toContain('Not in navigation')
  })

  test('sitemap.xml lists navigation pages at absolute URLs with their dates; robots.txt points at it', async () => {
    const { response, text } = await get('/docs/sitemap.xml')
    expect(response.headers.get('content-type')).toBe('application/xml; charset=utf-8')
    const locations = [...text.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1])
    expect(locations).toEqual([`${ORIGIN}/docs/intro`, `${ORIGIN}/docs/guides/soil`, `${ORIGIN}/docs/reference/list`])
    expect(text).toMatch(/<lastmod>\d{4}-\d\d-\d\d<\/lastmod>/)
    const robots = await get('/docs/robots.txt')
    expect(robots.text).toBe(`User-agent: *\nAllow: /docs/\n\nSitemap: ${ORIGIN}/docs/sitemap.xml\n`)
  })

  test("the head carries docs.json's metatags and the page's own Open Graph fields", async () => {
    const { text } = await get('/docs/guides/soil')
    expect(text).toContain('<meta property="og:site_name" content="Garden">')
    expect(text).toContain('<meta name="twitter:card" content="summary">')
    expect(text).toContain('<meta property="og:image" content="/images/soil.png">')
    expect(text).toContain('<meta property="og:title" content="Soil [basics]">')
    expect(text).not.toContain('noindex')
  })

  test('a page outside navigation is noindex (seo.indexing navigable, the default)', async () => {
    const { text } = await get('/docs/hidden/page')
    expect(text).toContain('<meta name="robots" content="noindex">')
  })
})

describe('seo settings', () => {
  test('indexing "all": hidden pages join the sitemap and lose noindex; a robots metatag closes robots.txt', async () => {
    await putConfig({ seo: { indexing: 'all', metatags: { robots: 'noindex' } } })
    await putPage('extra', '---\ntitle: Extra\n---\nOff the map.\n')
    const sitemap = (await get('/docs/sitemap.xml')).text
    expect(sitemap).toContain(`<loc>${ORIGIN}/docs/extra</loc>`)
    expect((await get('/docs/robots.txt')).text).toContain('Disallow: /docs/')
  })

  test('hostile metatags are escaped, and names that would change the page are dropped', async () => {
    await putConfig({
      seo: { metatags: { 'x"><script>alert(1)</script>': 'a"b<', viewport: 'width=1', refresh: '0;url=https://evil' } },
    })
    const { text } = await get('/docs/intro')
    expect(text).toContain('<meta name="x&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;" content="a&quot;b&lt;">')
    expect(text).not.toContain('width=1')
    expect(text).not.toContain('evil')
  })
})

describe('pages generated from an OpenAPI file a navigation group names', () => {
  // Regression (tests/e2e/mintlify-repositories.test.ts): they were shown and searched, but missing here.
  test('are listed in llms.txt and sitemap.xml, and answer at their .md address', async () => {
    const yaml = await Bun.file(join(import.meta.dir, '../fixtures/openapi-files/greenhouse-3.0.yaml')).text()
    const stored = await t.request('/docs/assets/api/greenhouse.yaml', { method: 'PUT', token: writer, body: yaml })
    expect(stored.status).toBeLessThan(300)
    await putConfig({
      navigation: [
        { group: 'Start', pages: ['intro'] },
        { group: 'API', openapi: 'api/greenhouse.yaml', pages: ['reference/list'] },
      ],
    })
    const llms = (await get('/docs/llms.txt')).text
    const link = llms.match(/- \[Replant a bed\]\(http:\/\/docs\.example\.com(\/docs\/[^)]+)\.md\)/)
    expect(link?.[1]).toBeDefined()
    expect((await get('/docs/sitemap.xml')).text).toContain(`<loc>${ORIGIN}${link![1]}</loc>`)
    const markdown = await get(`${link![1]}.md`)
    expect([markdown.response.status, markdown.text]).toEqual([200, expect.stringContaining('/beds/{bedId}')])
  })
})

describe("the built-in site: Trellis's own pages", () => {
  test('llms.txt and a built-in API page as Markdown', async () => {
    const fresh = await makeTestApp()
    try {
      const llms = await (await fresh.request('/docs/llms.txt')).text()
      expect(llms).toStartWith('# Trellis\n')
      expect(llms).toContain('- [Create a plant](http://localhost/docs/api-reference/plants/post-plants.md)')
      const page = await (await fresh.request('/docs/api-reference/plants/post-plants.md')).text()
      expect(page).toStartWith('# Create a plant\n\n`POST /plants`\n')
    } finally {
      await fresh.close()
    }
  })
})

describe('llms-full.txt is bounded', () => {
  test(`it stops before ${LLMS_FULL_MAX} characters and says where the rest is`, async () => {
    const body = 'x'.repeat(1024 * 1024)
    const paths = Array.from({ length: 10 }, (_, i) => `p${i}`)
    const service = new DiscoveryService({
      config: async () => ({
        etag: '"1"',
        builtIn: false,
        body: JSON.stringify({ name: 'Big', navigation: [{ group: 'All', pages: paths }] }),
      }),
      pagesGeneration: async () => 1,
      pageSummaries: async () => new Map(paths.map((path) => [path, { title: path }])),
      pageText: async () => body,
      ownDocument: () => ({}),
    })
    const text = await service.llmsFullTxt(ORIGIN)
    expect(text.length).toBeLessThanOrEqual(LLMS_FULL_MAX + 1000)
    expect([...text.matchAll(/^# P\d$/gm)]).toHaveLength(7)
    expect(text).toContain(`… 3 more pages are not included`)
  })
})
