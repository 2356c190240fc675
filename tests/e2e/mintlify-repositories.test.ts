import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'
import { type Crawl, cli, crawl, fixturePages, get, MAX_PAGES } from './mintlify-crawl'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/**
 * Issue #27 §5, end to end: real Mintlify repositories in both docs.json shapes (trimmed copies, see
 * tests/fixtures/README.md) are validated and pushed with the real CLI to a real server, and the site is crawled:
 * navigation and internal links answer 200, images are images, API pages show their operations, snippets and
 * components render, and search, llms.txt and sitemap.xml know every page.
 */

const FIXTURES = join(import.meta.dir, '../fixtures')

interface Repository {
  name: string
  config: string
  /** page → texts its HTML must contain (component labels, snippet text, API operations). */
  shows: Record<string, string[]>
  /** Pages generated from an OpenAPI file a navigation group names (no file of their own). */
  generated: string[]
  /** A redirect of the config: source → the page it lands on. */
  redirect?: [string, string]
  /** Queries and the page search must find for each. */
  search: [string, string][]
  /** The same for API pages whose operation is in the repository's OpenAPI file. */
  searchOperations: [string, string][]
}

const REPOSITORIES: Repository[] = [
  {
    name: 'mintlify-docs-site',
    config: 'docs.json',
    shows: {
      'components/tabs': ['First tab', 'Second tab', 'Third tab', 'only see inside the first tab'],
      'components/fields': ['param', 'An example of a parameter field', 'Placeholder text for the input'],
      // The callouts page imports snippets/icons-optional.mdx: its text shows where <IconsOptional /> stands.
      'components/callouts': [
        'This adds a note in the content',
        'This raises a warning to watch out for',
        'The icon to display.',
      ],
      'api/update/trigger': ['POST', '/project/update/{projectId}'],
      'api/update/status': ['GET', '/project/update-status/{statusId}'],
      'api-reference/trigger-preview-deployment': ['POST', '/project/preview/{projectId}'],
      'api-reference/trigger-automation': ['POST', '/workflow/{projectId}/{workflowSchemaId}/trigger'],
    },
    // The "Every operation" group (`"openapi": "openapi.json"`): one page per operation of the file.
    generated: [
      'api-reference/trigger-update',
      'api-reference/get-update-status',
      'api-reference/trigger-preview-deployment',
      'api-reference/trigger-automation',
    ],
    redirect: ['/docs/content/components/tabs', '/docs/components/tabs'],
    search: [['synchronization', 'components/tabs']],
    searchOperations: [
      ['preview deployment', 'api-reference/trigger-preview-deployment'],
      ['the status ID', 'api/update/status'],
    ],
  },
  {
    name: 'mintlify-docs-mint-json',
    config: 'mint.json',
    shows: {
      'content/components/tabs': ['First Tab', 'Second Tab', 'Third Tab'],
      'content/components/params': ['filter', 'An example of a parameter field', 'query, path, body, or header'],
      'content/components/callouts': ['This adds a note in the content', 'This raises a warning to watch out for'],
      'advanced/rest-api/update/status': ['GET', '/project/update-status/{statusId}'],
      'advanced/rest-api/update/trigger': ['POST', '/project/update/{projectId}'],
    },
    generated: [],
    search: [['prerequisite node', 'development']],
    searchOperations: [['status of an update', 'advanced/rest-api/update/status']],
  },
]

for (const repository of REPOSITORIES) {
  const dir = join(FIXTURES, repository.name)

  describe(`${repository.name} (${repository.config}), pushed with the CLI and crawled`, () => {
    let t: TestApp
    let pages: string[]
    let site: Crawl
    let pushed: Awaited<ReturnType<typeof cli>>

    beforeAll(async () => {
      t = await makeTestApp({ transport: 'listening server' })
      const token = await t.tokenFor('pusher', ['docs:write'])
      pages = [...(await fixturePages(dir)), ...repository.generated]
      pushed = await cli(['docs', 'push', dir, '--url', t.origin!], { TRELLIS_TOKEN: token })
      site = await crawl(t.origin!)
    }, SETUP_TIMEOUT * 2)
    afterAll(() => t.close(), SETUP_TIMEOUT)

    const html = (page: string) => site.pages.get(`/docs/${page}`) ?? ''
    const searchFinds = async (query: string, page: string) => {
      const response = await get(t.origin!, `/docs/search?q=${encodeURIComponent(query)}`)
      expect(response.status).toBe(200)
      const { results } = JSON.parse(response.body) as { results: { path: string; url: string }[] }
      const hit = results.find((result) => result.path === page)
      expect(hit?.url).toStartWith(`/docs/${page}`)
      expect((await get(t.origin!, hit!.url.replace(/#.*$/, ''))).status).toBe(200)
    }

    test('trellis docs validate accepts its config', async () => {
      const result = await cli(['docs', 'validate', join(dir, repository.config)])
      expect(result.stdout).toContain(`${repository.config}: valid, 0 errors`)
      expect(result.code).toBe(0)
    })

    test('trellis docs push stores the config, every page and every file, and exits 0', () => {
      expect(pushed.stderr).toBe('')
      expect(pushed.stdout).toContain(`${repository.config}: stored`)
      for (const page of pages) {
        if (!repository.generated.includes(page)) expect(pushed.stdout).toContain(`(/docs/pages/${page} revision 1)`)
      }
      expect(pushed.stdout).toMatch(/files: \d+ stored, 0 unchanged, 0 skipped, 0 failed/)
      expect(pushed.code).toBe(0)
    })

    test('the crawl reaches every page through the navigation, within its bound', () => {
      expect(site.truncated).toBe(false)
      expect(site.pages.size).toBeLessThanOrEqual(MAX_PAGES)
      for (const page of pages) expect(html(page)).toContain('<html')
    })

    test('every link under /docs/ of every page (sidebar, tabs, anchors, content) answers 200', () => {
      expect(site.broken).toEqual([])
    })

    test('no link leaves /docs/ for a page the site serves (content links to pages of the repository are rewritten)', () => {
      const wrong = site.outside.filter((line) => {
        const href = line.slice(line.indexOf(': ') + 2).replace(/[?#].*$/, '')
        return pages.includes(href.slice(1)) || href === '/'
      })
      expect(wrong).toEqual([])
    })

    test('every <img> under /docs/ answers 200 with an image content type, and some are the repository’s own', () => {
      expect(site.badImages).toEqual([])
      const own = [...site.pages.values()].flatMap((page) => [...page.matchAll(/<img\b[^>]*?src="\/docs\/images\//g)])
      expect(own.length).toBeGreaterThan(0)
    })

    test('pages show their components, imported snippets and API operations', () => {
      for (const [page, texts] of Object.entries(repository.shows)) {
        for (const text of texts)
          expect({ page, text, has: html(page).includes(text) }).toEqual({ page, text, has: true })
      }
    })

    test.if(repository.redirect !== undefined)(
      'a redirect of the config lands on a page that answers 200',
      async () => {
        const [from, to] = repository.redirect!
        const landed = await get(t.origin!, from)
        expect([landed.status, landed.hops.at(-1)?.split(' → ')[1]]).toEqual([200, to])
      },
    )

    test.each(repository.search)('search for "%s" finds %s, with a link to it', searchFinds)

    // API pages are found by their operation's words from the repository's own OpenAPI file, generated ones too.
    for (const [query, page] of repository.searchOperations) {
      test(`search for "${query}" finds the API page ${page}`, async () => {
        await searchFinds(query, page)
      })
    }

    test('llms.txt and sitemap.xml list every page', async () => {
      const llms = await get(t.origin!, '/docs/llms.txt')
      const sitemap = await get(t.origin!, '/docs/sitemap.xml')
      expect([llms.status, sitemap.status]).toEqual([200, 200])
      for (const page of pages) {
        const url = `${t.origin}/docs/${page}`
        expect({ page, llms: llms.body.includes(url), sitemap: sitemap.body.includes(`<loc>${url}</loc>`) }).toEqual({
          page,
          llms: true,
          sitemap: true,
        })
      }
    })
  })
}
