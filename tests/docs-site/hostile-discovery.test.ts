import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { DiscoveryService, LLMS_FULL_MAX } from '../../src/docs-site/discovery/service'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * The site's files for machines (llms.txt, llms-full.txt, sitemap.xml, robots.txt) and the page head's meta tags,
 * fed hostile requests and a hostile author's docs.json: every absolute URL is on the request's origin, so the Host
 * is bounded (each file repeats it once per page); what the author writes stays text in XML, Markdown and HTML.
 */

let t: TestApp
const HOSTILE = '"/><script>alert(1)</script>\n# Injected heading\n]]><loc>https://evil.example/</loc>'
beforeAll(async () => {
  t = await makeTestApp()
  const writer = await t.tokenFor('docs-author', ['docs:write'])
  const config = {
    theme: 'mint',
    name: `Acme ${HOSTILE}`,
    description: HOSTILE,
    colors: { primary: '#16A34A' },
    seo: { metatags: { [`og:x" onload="alert(1)`]: HOSTILE, 'http-equiv': 'refresh', robots: HOSTILE } },
    navigation: { groups: [{ group: `Group ${HOSTILE}`, pages: ['guide'] }] },
  }
  expect((await t.request('/docs.json', { method: 'PUT', token: writer, json: config })).status).toBe(200)
  const page = await t.request('/docs/pages/guide', {
    method: 'PUT',
    token: writer,
    body: `---\ntitle: ${JSON.stringify(`x](javascript:alert(1)) ${HOSTILE}`)}\nog:image: ${JSON.stringify(HOSTILE)}\n---\nBody\n`,
    headers: { 'content-type': 'text/markdown' },
  })
  expect(page.status).toBe(201)
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const FILES = ['llms.txt', 'llms-full.txt', 'sitemap.xml', 'robots.txt']

describe('a Host longer than a DNS name: 400 naming the Host header', () => {
  const ROWS: [string, string][] = FILES.flatMap((file) => [
    [file, `${'a'.repeat(254)}`],
    [file, `${'a.'.repeat(4000)}example`],
  ])
  test.each(ROWS)('%s', async (file, host) => {
    const response = await t.app.handle(new Request(`http://${host}/docs/${file}`))
    expect(response.status).toBe(400)
    expect(((await response.json()) as { message: string }).message).toContain('the Host header')
  })

  test.each(FILES)('a 253-character host is served: %s', async (file) => {
    const host = `${'a'.repeat(60)}.`.repeat(4).concat('a'.repeat(9))
    const response = await t.app.handle(new Request(`http://${host}/docs/${file}`))
    expect(response.status).toBe(200)
    expect(await response.text()).toContain(host)
  })
})

describe("the author's text stays text", () => {
  test('llms.txt: every heading and list item is one line; no line the author did not start', async () => {
    const text = await (await t.request('/docs/llms.txt')).text()
    expect(text.split('\n').filter((line) => line.startsWith('# '))).toHaveLength(1)
    expect(text).not.toContain('\n# Injected')
    expect(text).toContain('- [x\\](javascript:alert(1)) ')
  })

  test('llms-full.txt: the title is one heading line', async () => {
    const text = await (await t.request('/docs/llms-full.txt')).text()
    expect(text.split('\n').filter((line) => line.startsWith('# Injected'))).toHaveLength(0)
  })

  test('sitemap.xml: one <loc> per page, on the request origin', async () => {
    const xml = await (await t.request('/docs/sitemap.xml')).text()
    expect(xml.match(/<loc>/g)).toHaveLength(1)
    expect(xml).toContain('<loc>http://localhost/docs/guide</loc>')
  })

  test('the page head: meta tags are attributes only, no script, no http-equiv refresh', async () => {
    const html = await (await t.request('/docs/guide')).text()
    const metas = html.match(/<meta\b[^>]*>/g) ?? []
    expect(metas.filter((meta) => !/^<meta(?: [a-z-]+="[^"<>]*")+>$/.test(meta))).toEqual([])
    expect(metas.some((meta) => meta.includes(' onload="'))).toBe(false)
    expect(html).not.toMatch(/http-equiv=["']?refresh/i)
    expect(html).not.toContain('<script>alert')
  })
})

describe('llms-full.txt under a Host that changes every request', () => {
  /** A site of `pages` pages of `size` characters each, counting its page reads. */
  function site(pages: number, size: number) {
    const paths = Array.from({ length: pages }, (_, i) => `p${i}`)
    const reads = { count: 0 }
    const service = new DiscoveryService({
      config: async () => ({
        etag: '"1"',
        builtIn: false,
        body: JSON.stringify({ name: 'Big', navigation: [{ group: 'All', pages: paths }] }),
      }),
      pagesGeneration: async () => 1,
      pageSummaries: async () => new Map(paths.map((path) => [path, { title: path }])),
      pageText: async () => {
        reads.count += 1
        return `---\ntitle: "Title \\0 with NUL"\n---\n${'x'.repeat(size)}`
      },
      ownDocument: () => ({}),
    })
    return { service, reads }
  }

  test('the pages are read once per revision, not once per Host', async () => {
    const { service, reads } = site(50, 100)
    for (let i = 0; i < 20; i++) {
      const text = await service.llmsFullTxt(`http://host${i}.example`)
      expect(text).toContain(`Source: http://host${i}.example/docs/p0\n`)
      expect(text).not.toContain('\u0000')
    }
    expect(reads.count).toBe(50)
  })

  test('the cap holds with the longest origin a request can have', async () => {
    const { service } = site(40_000, 100)
    const origin = `http://${'a'.repeat(253)}:65535`
    const text = await service.llmsFullTxt(origin)
    expect(text.length).toBeLessThanOrEqual(LLMS_FULL_MAX + 1000)
    expect(text).toContain('more pages are not included')
  })
})
