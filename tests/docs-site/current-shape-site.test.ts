import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * The site drawn from a docs.json in the current Mintlify shape (issue #27 §1, §3): tabs, anchors, dropdowns,
 * versions, languages, nested groups with `root`, navbar links and primary button, footer socials and link
 * columns, and a favicon per mode.
 */

let t: TestApp
let writer: string
beforeAll(async () => {
  t = await makeTestApp()
  writer = await t.tokenFor('docs-author', ['docs:write'])
  const response = await t.request('/docs.json', { method: 'PUT', token: writer, json: CONFIG })
  expect(response.status).toBe(200)
  for (const path of PAGES) {
    const stored = await t.request(`/docs/pages/${path}`, {
      method: 'PUT',
      token: writer,
      body: `---\ntitle: Title of ${path}\n---\n\nText of ${path}.\n`,
      headers: { 'content-type': 'text/markdown' },
    })
    expect([200, 201]).toContain(stored.status)
  }
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const PAGES = [
  'index',
  'quickstart',
  'guides/setup',
  'guides/deploy',
  'guides/overview',
  'api/intro',
  'api/users',
  'v1/intro',
  'fr/index',
  'sdk/js',
  'api/internal',
]

const CONFIG = {
  $schema: 'https://mintlify.com/docs.json',
  theme: 'mint',
  name: 'Acme',
  colors: { primary: '#16A34A' },
  favicon: { light: '/favicon-light.svg', dark: '/favicon-dark.svg' },
  background: { color: { light: '#FAFAF9', dark: '#0C0A09' } },
  appearance: { default: 'dark', strict: true },
  navbar: {
    links: [{ label: 'Support', href: 'mailto:help@acme.dev' }],
    primary: { type: 'button', label: 'Dashboard', href: 'https://dashboard.acme.dev' },
  },
  footer: {
    socials: { x: 'https://x.com/acme', twitter: 'https://twitter.com/acme', github: 'https://github.com/acme' },
    links: [{ header: 'Company', items: [{ label: 'Blog', href: 'https://acme.dev/blog' }] }],
  },
  navigation: {
    languages: [
      {
        language: 'en',
        global: { anchors: [{ anchor: 'Community', href: 'https://community.acme.dev', icon: 'users' }] },
        versions: [
          {
            version: 'v2',
            default: true,
            tabs: [
              {
                tab: 'Guides',
                groups: [
                  { group: 'Start', pages: ['index', 'quickstart'] },
                  {
                    group: 'Guides',
                    pages: [{ group: 'Deploying', root: 'guides/overview', pages: ['guides/setup', 'guides/deploy'] }],
                  },
                ],
              },
              {
                tab: 'API',
                pages: ['api/intro', 'api/users', { group: 'Internal', hidden: true, pages: ['api/internal'] }],
              },
              {
                tab: 'SDKs',
                dropdowns: [{ dropdown: 'JavaScript', icon: 'js', groups: [{ group: 'JS', pages: ['sdk/js'] }] }],
              },
              { tab: 'Status', href: 'https://status.acme.dev' },
            ],
          },
          { version: 'v1', groups: [{ group: 'Old', pages: ['v1/intro'] }] },
        ],
      },
      { language: 'fr', groups: [{ group: 'Démarrer', pages: ['fr/index'] }] },
    ],
  },
}

const page = async (path: string) => {
  const response = await t.request(path)
  return { status: response.status, html: await response.text() }
}
const tabRow = (html: string) => /<nav class="tabs"[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? ''
const sidebar = (html: string) => /<nav class="sidebar"[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? ''

describe('a current-shape docs.json on the site', () => {
  test('the home page is the first page the navigation names', async () => {
    const { status, html } = await page('/docs/')
    expect(status).toBe(200)
    expect(html).toContain('<title>Title of index · Acme</title>')
  })

  test('tabs form the tab row, the current one marked; an href tab links out', async () => {
    const { html } = await page('/docs/api/users')
    const tabs = tabRow(html)
    expect(tabs).toContain('<a href="/docs/index">Guides</a>')
    expect(tabs).toContain('<a href="/docs/api/intro" aria-current="page">API</a>')
    expect(tabs).toContain('<a href="/docs/sdk/js">SDKs</a>')
    expect(tabs).toContain('<a href="https://status.acme.dev">Status</a>')
  })

  test("each tab's sidebar holds its own groups; a group with a root links its name there", async () => {
    const guides = sidebar((await page('/docs/guides/setup')).html)
    expect(guides).toContain('<h2 class="nav-group">Start</h2>')
    expect(guides).toContain('<a href="/docs/guides/overview">Deploying</a>')
    expect(guides).toContain('href="/docs/guides/setup" aria-current="page"')
    expect(guides).not.toContain('/docs/api/intro')
    const api = sidebar((await page('/docs/api/intro')).html)
    expect(api).toContain('/docs/api/users')
    expect(api).not.toContain('/docs/quickstart')
  })

  test('a page of a hidden group is served, but not listed', async () => {
    const { status } = await page('/docs/api/internal')
    expect(status).toBe(200)
    expect(sidebar((await page('/docs/api/intro')).html)).not.toContain('/docs/api/internal')
  })

  test('a dropdown inside a tab is an anchor of the sidebar, and keeps its tab marked', async () => {
    const { html } = await page('/docs/sdk/js')
    expect(tabRow(html)).toContain('aria-current="page">SDKs</a>')
    expect(sidebar(html)).toContain('<span>JavaScript</span>')
    expect(sidebar(html)).toContain('/docs/sdk/js')
  })

  test('versions fill the version picker, the default first; the global anchor links out', async () => {
    const { html } = await page('/docs/')
    expect(html).toContain('data-default-version="v2"')
    expect(html).toMatch(/<option>v2<\/option><option>v1<\/option>/)
    expect(sidebar(html)).toContain('href="https://community.acme.dev"')
  })

  test('a page of another language is served, in its own section', async () => {
    const { status, html } = await page('/docs/fr/index')
    expect(status).toBe(200)
    expect(sidebar(html)).toContain('<h2 class="nav-group">Démarrer</h2>')
  })

  test('navbar links and the primary button are in the topbar', async () => {
    const { html } = await page('/docs/')
    expect(html).toContain('<a href="mailto:help@acme.dev">Support</a>')
    expect(html).toContain('<a class="button-cta" href="https://dashboard.acme.dev">Dashboard</a>')
  })

  test('footer socials (twitter among them) and link columns are in the footer', async () => {
    const { html } = await page('/docs/')
    const footer = /<footer class="site-footer">([\s\S]*?)<\/footer>/.exec(html)?.[1] ?? ''
    expect(footer).toContain('href="https://twitter.com/acme"')
    expect(footer).toContain('href="https://github.com/acme"')
    expect(footer).toContain('<p class="footer-header">Company</p>')
    expect(footer).toContain('<a href="https://acme.dev/blog">Blog</a>')
  })

  test('background.color colours the page per mode; appearance forces dark mode and hides the toggle', async () => {
    const { html } = await page('/docs/')
    expect(html).toMatch(/\[data-mode="light"\]\{[^}]*--bg:#fafaf9/i)
    expect(html).toMatch(/\[data-mode="dark"\]\{[^}]*--bg:#0c0a09/i)
    expect(html).toContain('data-forced-mode="dark"')
    expect(html).not.toContain('id="mode-toggle"')
  })

  test('a favicon per mode', async () => {
    const { html } = await page('/docs/')
    expect(html).toContain('<link rel="icon" href="/docs/favicon-light.svg" media="(prefers-color-scheme: light)">')
    expect(html).toContain('<link rel="icon" href="/docs/favicon-dark.svg" media="(prefers-color-scheme: dark)">')
  })
})
