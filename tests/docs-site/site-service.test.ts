import { expect, setDefaultTimeout, test } from 'bun:test'
import { DocsSiteService, type SiteSources } from '../../src/docs-site/service'
import { SiteMap } from '../../src/docs-site/site-map'
import type { DocsConfig } from '../../src/docs-format/docs-json'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * The site's service without HTTP or a database: what it asks its sources for when readers arrive together,
 * and what it does with a docs.json stored under older, looser rules.
 */

function sources(config: unknown, pageText: (path: string) => string | undefined = () => '# Hello\n') {
  const calls = { pageText: 0, summaries: 0 }
  const body = JSON.stringify(config)
  const fake: SiteSources = {
    config: async () => ({ revision: 1, etag: '"c1"', body, builtIn: false }),
    pagesGeneration: async () => 1,
    pageSummaries: async () => {
      calls.summaries++
      await Bun.sleep(5)
      return new Map()
    },
    pageText: async (path) => {
      calls.pageText++
      await Bun.sleep(5)
      return pageText(path)
    },
    ownDocument: () => ({ paths: {} }),
  }
  return { fake, calls }
}

const CONFIG = { name: 'Acme', navigation: [{ group: 'G', pages: Array.from({ length: 400 }, (_, i) => `p${i}`) }] }

test('readers arriving together after a change share one snapshot and one render of a page', async () => {
  const { fake, calls } = sources(CONFIG)
  const service = new DocsSiteService(fake)
  const pages = await Promise.all(Array.from({ length: 10 }, () => service.render('p1')))
  expect(new Set(pages.map((page) => page.etag)).size).toBe(1)
  expect(pages.every((page) => page === pages[0])).toBe(true)
  expect(calls).toEqual({ pageText: 1, summaries: 1 })
})

test('the cache stays bounded and consistent whatever the order of renders: it never loops or overcounts', async () => {
  const { fake } = sources(CONFIG, (path) => `# ${path}\n\n${'text '.repeat(2000)}\n`)
  const service = new DocsSiteService(fake)
  // More pages than the cache holds, each asked for by several readers at once, twice over.
  for (let round = 0; round < 2; round++) {
    await Promise.all(
      Array.from({ length: 400 }, (_, i) => Promise.all([service.render(`p${i}`), service.render(`p${i}`)])),
    )
  }
  const again = await service.render('p399')
  expect(again.status).toBe(200)
  expect(again.html).toContain('p399')
})

test('a docs.json stored before tabs and anchors needed name and url still renders, leaving those entries out', () => {
  const config = {
    name: 'Old',
    navigation: [{ group: 'G', pages: ['a'] }],
    tabs: [{ name: 'No url' }, { url: 'no-name' }, { name: 'API', url: 'api' }],
    anchors: [{ url: 'x' }],
  } as unknown as DocsConfig
  const map = new SiteMap(config)
  expect(map.tabs.map((tab) => tab.name)).toEqual(['API'])
  expect(map.anchors).toEqual([])
})

test('and so does its every page', async () => {
  const { fake } = sources({
    name: 'Old',
    navigation: [{ group: 'G', pages: ['a'] }],
    tabs: [{ name: 'No url' }],
    anchors: [{ url: 'x' }],
  })
  const page = await new DocsSiteService(fake).render('a')
  expect(page.status).toBe(200)
})
