import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * Page paths as Mintlify publishes them (issue #27 §3): `&`, `:`, spaces and other letters are stored, served at their
 * percent-encoded address, and linked that way from the sidebar and from other pages.
 */

let t: TestApp
let writer: string
beforeAll(async () => {
  t = await makeTestApp()
  writer = await t.tokenFor('paths-author', ['docs:write'])
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const PATHS = ['guides/Q&A', 'migrate/v2: what changed', 'getting started/first steps', 'café/crème']
const encoded = (path: string) => path.split('/').map(encodeURIComponent).join('/')

test.each(PATHS)('%p is stored, served encoded, and linked encoded', async (path) => {
  const navigation = [{ group: 'G', pages: ['home', path] }]
  expect(
    (await t.request('/docs.json', { method: 'PUT', token: writer, json: { name: 'P', navigation } })).status,
  ).toBe(200)
  const stored = await t.request(`/docs/pages/${encoded(path)}`, {
    method: 'PUT',
    token: writer,
    body: `---\ntitle: "The page\nat ${path}"\n---\nBody of ${path}.`,
    headers: { 'content-type': 'text/markdown' },
  })
  expect(stored.status).toBe(201)
  const home = await t.request('/docs/pages/home', {
    method: 'PUT',
    token: writer,
    body: `[link](/${encodeURI(path)})`,
    headers: { 'content-type': 'text/markdown' },
  })
  expect([200, 201]).toContain(home.status)
  const page = await t.request(`/docs/${encoded(path)}`)
  expect(page.status).toBe(200)
  const html = await page.text()
  expect(html).toContain(`<h1>The page at ${path.replace('&', '&amp;')}</h1>`)
  expect(html).toContain(`href="/docs/${encoded(path)}" aria-current="page"`)
  const from = await (await t.request('/docs/home')).text()
  expect(from).toContain(`<a href="/docs/${encoded(path)}">link</a>`)
})

test('the Content-Security-Policy names the video hosts in frame-src, and nothing else may be framed', async () => {
  const page = await t.request('/docs/')
  const csp = page.headers.get('content-security-policy') ?? ''
  expect(csp).toContain(
    'frame-src https://www.youtube.com https://www.youtube-nocookie.com https://player.vimeo.com https://www.loom.com;',
  )
  expect(csp).toContain("default-src 'none'")
  expect(csp).toContain("frame-ancestors 'none'")
  expect(csp).toMatch(/script-src 'self' 'sha256-[^']+'(;|$)/)
})
