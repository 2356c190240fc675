import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { Redirects } from '../../src/docs-site/redirects'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * docs.json redirects fed hostile request paths: what a request puts into a destination is percent-encoded where it
 * lands, so no path makes a 500 (a control character in Location) or sends a reader to a host the author did not
 * write. Whether a destination is a URL is read from docs.json as written, never after the request's values are in.
 */

const REDIRECTS = [
  { source: '/ext/:slug*', destination: 'https://example.com/:slug*' },
  { source: '/go/:slug*', destination: ':slug*' },
  { source: '/root/:slug*', destination: '/:slug*' },
  { source: '/q/:a', destination: '/new?x=:a' },
  { source: '/host/:a', destination: 'https://:a.example.com/' },
  { source: '/loop', destination: '/loop' },
]

describe('matching (Redirects)', () => {
  const redirects = new Redirects(REDIRECTS)
  const ROWS: [string, string, string | undefined][] = [
    ['CR LF into a URL destination', 'ext/\r\nSet-Cookie: a=1', 'https://example.com/%0D%0ASet-Cookie%3A%20a%3D1'],
    ['NUL into a URL destination', 'ext/a\u0000b', 'https://example.com/a%00b'],
    ['CR LF into a query', 'q/\r\nx', '/docs/new?x=%0D%0Ax'],
    ['"#" into a query stays in the value', 'q/a#b', '/docs/new?x=a%23b'],
    ['a URL as the value of a site-path destination', 'go/https://evil.example/x', '/docs/https%3A//evil.example/x'],
    ['a URL after the destination\'s "/"', 'root/https://evil.example', '/docs/https%3A//evil.example'],
    ['"//host" as the value', 'root///evil.example', '/docs/evil.example'],
    ['backslashes as the value', 'go/\\\\evil.example', '/docs/%5C%5Cevil.example'],
    ['a "?" in a value used as a host: no such URL, no redirect', 'host/evil.example?x', undefined],
    [
      '"@" into a URL destination is encoded: the host stays',
      'ext/@evil.example',
      'https://example.com/%40evil.example',
    ],
    ['a plain value used as a host', 'host/api', 'https://api.example.com/'],
  ]
  test.each(ROWS)('%s', (_name, path, location) => {
    expect(redirects.match(path)?.location).toBe(location as string)
  })
})

describe('on the site', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await makeTestApp()
    const writer = await t.tokenFor('docs-author', ['docs:write'])
    const config = {
      theme: 'mint',
      name: 'Acme',
      colors: { primary: '#16A34A' },
      navigation: { pages: ['new'] },
      redirects: REDIRECTS,
    }
    expect((await t.request('/docs.json', { method: 'PUT', token: writer, json: config })).status).toBe(200)
  }, SETUP_TIMEOUT)
  afterAll(() => t.close(), SETUP_TIMEOUT)

  const ROWS: [string, number, string | null][] = [
    ['/docs/ext/%0d%0aSet-Cookie:%20x=1', 308, 'https://example.com/%0D%0ASet-Cookie%3A%20x%3D1'],
    // NUL names no address of the site, so no redirect either.
    ['/docs/ext/x%00y', 404, null],
    ['/docs/q/%0d%0ab', 308, '/docs/new?x=%0D%0Ab'],
    ['/docs/go/https:%2F%2Fevil.example', 308, '/docs/https%3A//evil.example'],
    ['/docs/host/evil.example%3Fx', 404, null],
    // A loop is the browser's to stop, as on Mintlify; each answer costs one lookup.
    ['/docs/loop', 308, '/docs/loop'],
  ]
  test.each(ROWS)('%s → %d %s', async (path, status, location) => {
    const response = await t.request(path, { redirect: 'manual' })
    expect(response.status).toBe(status)
    expect(response.headers.get('location')).toBe(location)
  })
})
