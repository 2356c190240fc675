import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { Redirects } from '../../src/docs-site/redirects'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * docs.json `redirects` as Mintlify documents them (issue #27 §3): permanent (the default) is 308, `permanent:
 * false` 307; `:slug` matches a segment, `:slug*` the rest, `*` a partial segment; and `/dir` serves
 * `dir/index`.
 */

const REDIRECTS = [
  { source: '/old', destination: '/new' },
  { source: '/moved/temporarily', destination: '/new', permanent: false },
  { source: '/beta/:slug*', destination: '/v2/:slug*' },
  { source: '/blog/:year/:post', destination: '/posts/:post?from=:year' },
  { source: '/articles/concepts-*', destination: '/collections/overview' },
  { source: '/away', destination: 'https://example.com/elsewhere' },
  { source: '/to-anchor', destination: '/new#section' },
  { source: '/guides', destination: '/not-taken' },
]

describe('matching (Redirects)', () => {
  const redirects = new Redirects(REDIRECTS)
  const ROWS: [string, number | undefined, string | undefined][] = [
    ['old', 308, '/docs/new'],
    ['moved/temporarily', 307, '/docs/new'],
    ['beta/introduction', 308, '/docs/v2/introduction'],
    ['beta/guides/deep/page', 308, '/docs/v2/guides/deep/page'],
    ['blog/2024/launch', 308, '/docs/posts/launch?from=2024'],
    ['blog/2024', undefined, undefined],
    ['blog/2024/launch/extra', undefined, undefined],
    ['articles/concepts-getting-started', 308, '/docs/collections/overview'],
    ['articles/other', undefined, undefined],
    ['away', 308, 'https://example.com/elsewhere'],
    ['to-anchor', 308, '/docs/new#section'],
    ['unknown', undefined, undefined],
  ]
  test.each(ROWS)('%s → %p %s', (path, status, location) => {
    const found = redirects.match(path)
    expect({ status: found?.status as number | undefined, location: found?.location }).toEqual({ status, location })
  })

  test('a path of thousands of segments against many patterns costs linear time', () => {
    const many = new Redirects(
      Array.from({ length: 2000 }, (_, i) => ({ source: `/p${i}/:a/:b*`, destination: '/x' })).concat(REDIRECTS),
    )
    const path = Array.from({ length: 5000 }, () => 'a').join('/')
    const started = performance.now()
    for (let i = 0; i < 20; i++) many.match(path)
    expect(performance.now() - started).toBeLessThan(500)
  })
})

describe('redirects and folder index pages on the site', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await makeTestApp()
    const writer = await t.tokenFor('docs-author', ['docs:write'])
    const config = {
      theme: 'mint',
      name: 'Acme',
      colors: { primary: '#16A34A' },
      navigation: { pages: ['new', 'guides/index', 'guides/setup', 'tools/index'] },
      redirects: REDIRECTS,
    }
    expect((await t.request('/docs.json', { method: 'PUT', token: writer, json: config })).status).toBe(200)
    for (const path of ['new', 'guides/index', 'guides/setup', 'tools/index']) {
      const response = await t.request(`/docs/pages/${path}`, {
        method: 'PUT',
        token: writer,
        body: `# Page ${path}\n`,
        headers: { 'content-type': 'text/markdown' },
      })
      expect([200, 201]).toContain(response.status)
    }
  }, SETUP_TIMEOUT)
  afterAll(() => t.close(), SETUP_TIMEOUT)

  test('a permanent redirect answers 308 with the location under the site', async () => {
    const response = await t.request('/docs/old')
    expect(response.status).toBe(308)
    expect(response.headers.get('location')).toBe('/docs/new')
  })

  test('permanent: false answers 307', async () => {
    const response = await t.request('/docs/moved/temporarily')
    expect(response.status).toBe(307)
    expect(response.headers.get('location')).toBe('/docs/new')
  })

  test('a wildcard redirect carries the rest of the path', async () => {
    const response = await t.request('/docs/beta/a/b')
    expect(response.status).toBe(308)
    expect(response.headers.get('location')).toBe('/docs/v2/a/b')
  })

  test('/dir serves dir/index', async () => {
    const response = await t.request('/docs/tools')
    expect(response.status).toBe(200)
    expect(await response.text()).toContain('Page tools/index')
    expect((await t.request('/docs/tools/')).status).toBe(200)
  })

  test('a redirect comes before a page at the same address, as Mintlify has it', async () => {
    const response = await t.request('/docs/guides')
    expect(response.status).toBe(308)
    expect(response.headers.get('location')).toBe('/docs/not-taken')
  })
})
