import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import DEFAULT_DOCS from '../../src/docs-config/default-docs.json'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * The documentation site over HTTP (issue #16 §2): what each docs.json field puts on the page, the built-in
 * default site, caching on ETags, and what a hostile docs.json cannot do. The browser tests
 * (browser.test.ts) check the same pages in Chromium.
 */

let t: TestApp
let writer: string
beforeAll(async () => {
  t = await makeTestApp()
  writer = await t.tokenFor('docs-author', ['docs:write'])
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const page = async (path: string, init: RequestInit = {}) => {
  const response = await t.request(path, init)
  return { response, html: await response.text() }
}
const putDocs = async (config: unknown) => {
  const response = await t.request('/docs.json', { method: 'PUT', token: writer, json: config })
  expect(response.status).toBe(200)
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
/** The sidebar's page links, in order. */
const sidebarLinks = (html: string) => {
  const sidebar = /<nav class="sidebar"[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? ''
  const navigation = sidebar.replace(/<ul class="anchors">[\s\S]*?<\/ul>/, '')
  return [...navigation.matchAll(/<a href="\/docs\/([^"]+)"/g)].map((match) => match[1])
}

describe('the built-in default site (before any docs.json is stored)', () => {
  test('the home page is the first page of navigation, in the site layout, with a strict CSP', async () => {
    const { response, html } = await page('/docs/')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(html).toContain('<title>Introduction · Trellis</title>')
    expect(html).toContain('<main id="content"')
    const csp = response.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("default-src 'none'")
    expect(csp).toMatch(/script-src 'self' 'sha256-[^']+'/)
    expect(csp).not.toContain('unsafe-inline')
  })

  test('/docs without the slash is the home page too', async () => {
    const { response, html } = await page('/docs')
    expect(response.status).toBe(200)
    expect(html).toContain('<title>Introduction · Trellis</title>')
  })

  test('the logo shows in both modes with its href, and the favicon is the built-in one', async () => {
    const { html } = await page('/docs/')
    expect(html).toContain('<img class="logo logo-light" src="/docs/logo/light.svg" alt="Trellis">')
    expect(html).toContain('<img class="logo logo-dark" src="/docs/logo/dark.svg" alt="Trellis">')
    expect(html).toContain('<a class="brand" href="/docs/">')
    expect(html).toContain('<link rel="icon" href="/docs/favicon.svg">')
    for (const file of ['logo/light.svg', 'logo/dark.svg', 'favicon.svg', '_files/favicon.svg']) {
      const response = await t.request(`/docs/${file}`)
      expect({ file, status: response.status, type: response.headers.get('content-type') }).toEqual({
        file,
        status: 200,
        type: 'image/svg+xml',
      })
    }
  })

  test('every operation of /openapi.json has an API reference page in the default navigation, and it renders', async () => {
    const document = await (await t.request('/openapi.json')).json()
    const named = new Set(JSON.stringify(DEFAULT_DOCS.navigation).match(/api-reference\/[^"]+/g))
    const operations = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, methods]) => Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path })),
    )
    expect(operations.length).toBeGreaterThan(20)
    const missing: string[] = []
    for (const operation of operations) {
      const tag = ((document.paths[operation.path][operation.method.toLowerCase()].tags ?? ['other']) as string[])[0]!
      const slug = (text: string) =>
        text
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-+|-+$/g, '')
      const words = slug(operation.path.replace(/[{}]/g, ''))
      const path = `api-reference/${slug(tag)}/${operation.method.toLowerCase()}${words === '' ? '' : `-${words}`}`
      if (!named.has(path)) missing.push(`${operation.method} ${operation.path} (${path})`)
      const rendered = await page(`/docs/${path}`)
      expect({ path, status: rendered.response.status }).toEqual({ path, status: 200 })
      expect(rendered.html).toContain(
        `<span class="method method-${operation.method.toLowerCase()}">${operation.method}</span> <code>${operation.path}</code>`,
      )
    }
    expect(missing).toEqual([])
    // And no page of the default navigation names an operation that does not exist.
    expect(named.size).toBe(operations.length)
  })

  test('the API page of POST /plants shows its body fields, an example, responses and the playground form', async () => {
    const { html } = await page('/docs/api-reference/plants/post-plants')
    expect(html).toContain('<h2 id="request-body">Request body</h2>')
    expect(html).toMatch(/<code>name<\/code> <span class="type">string<\/span> <span class="required">required<\/span>/)
    expect(html).toContain('<h2 id="responses">Responses</h2>')
    expect(html).toContain('<form class="playground-form">')
    expect(html).toContain('name="auth"')
    // The default site calls the origin that serves it: no base URL in the playground's data.
    expect(html).toContain('"baseUrls":[]')
  })

  test('guides have their built-in text; the sidebar labels pages by their titles', async () => {
    const { html } = await page('/docs/authentication')
    expect(html).toContain('<h1>Authentication</h1>')
    expect(html).toContain('<code>plants:read</code>')
    expect(html).toMatch(/<a href="\/docs\/chat\/tool-calls">Tool calls<\/a>/)
  })

  test("an unknown page is the site's 404 page; a malformed escape is one too, never a 500", async () => {
    for (const path of ['/docs/no/such/page', '/docs/%E0%A4%A', '/docs/_assets/nope.css']) {
      const response = await t.request(path)
      expect({ path, status: response.status }).toEqual({ path, status: 404 })
    }
  })

  test('the stylesheet and script are served under versioned names, cacheable for a year', async () => {
    const { html } = await page('/docs/')
    const css = /<link rel="stylesheet" href="([^"]+)">/.exec(html)![1]!
    const js = /<script defer src="([^"]+)"><\/script>/.exec(html)![1]!
    for (const [url, type] of [
      [css, 'text/css; charset=utf-8'],
      [js, 'text/javascript; charset=utf-8'],
    ] as const) {
      const response = await t.request(url)
      expect({
        url,
        status: response.status,
        type: response.headers.get('content-type'),
        cache: response.headers.get('cache-control'),
      }).toEqual({ url, status: 200, type, cache: 'public, max-age=31536000, immutable' })
      const again = await t.request(url, { headers: { 'if-none-match': response.headers.get('etag')! } })
      expect(again.status).toBe(304)
    }
  })
})

const NAVIGATION = [
  { group: 'Start', pages: ['intro', 'setup', { group: 'Deeper', pages: ['setup/advanced'] }] },
  { group: 'Reference', pages: ['api-reference/overview', 'api-reference/create'] },
  { group: 'Guides', pages: ['guides/one'] },
  { group: 'Legacy', pages: ['legacy/old'] },
]
const SITE = {
  name: 'Acme Docs',
  navigation: NAVIGATION,
  tabs: [{ name: 'API', url: 'api-reference' }],
  anchors: [
    { name: 'Guides', url: 'guides', icon: 'book', color: '#2563EB' },
    { name: 'Legacy', url: 'legacy', icon: 'clock', color: { from: '#FF0000', to: '#00FF00' }, isDefaultHidden: true },
    { name: 'V2 only', url: 'https://example.com/v2', icon: 'rocket', version: 'v2' },
    { name: 'Bad icon', url: 'https://example.com/x', icon: 'no-such-icon-at-all' },
  ],
  topAnchor: { name: 'Handbook' },
  versions: ['v1', 'v2'],
  colors: { primary: '#0D9488', light: '#5EEAD4', dark: '#134E4A', background: { light: '#FAFAF9', dark: '#0C0A09' } },
  topbarLinks: [{ name: 'Status', url: 'https://status.example.com' }],
  topbarCtaButton: { type: 'github', url: 'https://github.com/acme/docs' },
  footerSocials: { x: 'https://x.com/acme', github: 'https://github.com/acme' },
  feedback: { suggestEdit: true, raiseIssue: true },
  modeToggle: { default: 'dark', isHidden: false },
  backgroundImage: '/images/bg.png',
}

describe('a stored docs.json: every field shows', () => {
  beforeAll(() => putDocs(SITE))

  test('the name is the title, and pages named in navigation but not written say so (200, not 404)', async () => {
    const { response, html } = await page('/docs/setup')
    expect(response.status).toBe(200)
    expect(html).toContain('<title>Setup · Acme Docs</title>')
    expect(html).toContain('This page is not written yet.')
    expect(html).toContain('<span class="site-name">Acme Docs</span>')
  })

  test("the home page is the top anchor's first page; the top anchor carries topAnchor's name and its default icon", async () => {
    const { html } = await page('/docs/')
    expect(html).toContain('<title>Intro · Acme Docs</title>')
    expect(html).toMatch(
      /<span class="anchor-icon" data-anchor="top"><svg[^>]*>.*?<\/svg><\/span><span>Handbook<\/span>/,
    )
  })

  test("the sidebar follows navigation, nested groups included, showing only the current section's pages", async () => {
    const intro = sidebarLinks((await page('/docs/intro')).html)
    expect(intro).toEqual(['intro', 'setup', 'setup/advanced'])
    expect(sidebarLinks((await page('/docs/api-reference/create')).html)).toEqual([
      'api-reference/overview',
      'api-reference/create',
    ])
    expect(sidebarLinks((await page('/docs/guides/one')).html)).toEqual(['guides/one'])
    const { html } = await page('/docs/setup/advanced')
    expect(html).toContain('<span class="nav-subgroup">Deeper</span>')
    expect(html).toContain('<a href="/docs/setup/advanced" aria-current="page">')
  })

  test('tabs: the top bar lists the top anchor and each tab, the current one marked', async () => {
    const { html } = await page('/docs/api-reference/overview')
    expect(html).toContain(
      '<nav class="tabs" aria-label="Tabs"><ul><li><a href="/docs/">Handbook</a></li><li><a href="/docs/api-reference/overview" aria-current="page">API</a></li></ul></nav>',
    )
  })

  test('anchors: icon, colour (plain and gradient), URL; version and isDefaultHidden hide them; an unknown icon is no icon', async () => {
    const { html } = await page('/docs/intro')
    expect(html).toContain('[data-anchor="0"]{background:#2563EB;color:#FFFFFF}')
    expect(html).toContain('[data-anchor="1"]{background:linear-gradient(45deg,#FF0000,#00FF00)')
    expect(html).toMatch(/<li data-version="v2" hidden><a href="https:\/\/example.com\/v2" class="anchor">/)
    expect(html).toMatch(/<li data-default-hidden="true" hidden><a href="\/docs\/legacy\/old" class="anchor">/)
    expect(html).toContain('<span class="anchor-icon" data-anchor="3"></span><span>Bad icon</span>')
    // Inside the isDefaultHidden anchor, it shows.
    expect((await page('/docs/legacy/old')).html).toMatch(
      /<li><a href="\/docs\/legacy\/old" aria-current="true" class="anchor">/,
    )
  })

  test("colours drive both modes' variables, with readable link colours; the background image is behind every page", async () => {
    const { html } = await page('/docs/intro')
    expect(html).toContain(':root,[data-mode="light"]{--primary:#0D9488;')
    expect(html).toContain('[data-mode="dark"]{--primary:#5EEAD4;')
    expect(html).toContain('--important:#134E4A;--on-important:#FFFFFF')
    expect(html).toContain('--bg:#FAFAF9')
    expect(html).toContain('--bg:#0C0A09')
    expect(html).toContain('body{background-image:url("/docs/images/bg.png")}')
  })

  test('the top bar: links, the github button as owner/repo (no star count offline), the version picker, the mode toggle', async () => {
    const { html } = await page('/docs/intro')
    expect(html).toContain('<a href="https://status.example.com">Status</a>')
    expect(html).toMatch(
      /<a class="cta-github" href="https:\/\/github.com\/acme\/docs" title="[^"]*star count[^"]*"><svg[^>]*>.*?<\/svg><span>acme\/docs<\/span><\/a>/,
    )
    expect(html).toContain(
      '<select id="version-select" data-default-version="v1"><option>v1</option><option>v2</option></select>',
    )
    expect(html).toContain('id="mode-toggle"')
    expect(html).toContain('data-default-mode="dark"')
  })

  test('feedback buttons link to the repository; footerSocials show in the footer', async () => {
    const { html } = await page('/docs/intro')
    expect(html).toContain('href="https://github.com/acme/docs/edit/main/intro.mdx"')
    expect(html).toContain('href="https://github.com/acme/docs/issues/new?title=')
    expect(html).toMatch(
      /<ul class="socials" aria-label="Social links"><li><a href="https:\/\/x.com\/acme" aria-label="x"[^>]*><svg/,
    )
  })

  test('modeToggle.isHidden with a default forces the mode and hides the toggle', async () => {
    await putDocs({ ...SITE, modeToggle: { default: 'light', isHidden: true } })
    const { html } = await page('/docs/intro')
    expect(html).toContain('data-forced-mode="light"')
    expect(html).not.toContain('id="mode-toggle"')
    await putDocs(SITE)
  })
})

describe('live: a change shows on the next request, and an unchanged page is not rendered again', () => {
  test("If-None-Match with the page's ETag is 304 until docs.json or a page changes", async () => {
    await putDocs(SITE)
    const first = await t.request('/docs/intro')
    const etag = first.headers.get('etag')!
    expect((await t.request('/docs/intro', { headers: { 'if-none-match': etag } })).status).toBe(304)

    await putPage('intro', '---\ntitle: Welcome aboard\n---\n\nHello **readers**.\n')
    const afterPage = await t.request('/docs/intro', { headers: { 'if-none-match': etag } })
    expect(afterPage.status).toBe(200)
    const html = await afterPage.text()
    expect(html).toContain('<h1>Welcome aboard</h1>')
    expect(html).toContain('<strong>readers</strong>')

    await putDocs({ ...SITE, name: 'Acme Handbook' })
    expect(await (await t.request('/docs/intro')).text()).toContain('<title>Welcome aboard · Acme Handbook</title>')
  })
})

describe('API pages and the playground mode', () => {
  const apiPage = '---\ntitle: Create\nopenapi: "POST /plants"\n---\n\nNotes under the operation.\n'
  test.each([
    ['show', ['<form class="playground-form">'], ['class="curl"']],
    ['simple', ['class="curl"', 'curl -X POST &#39;https://api.acme.test/plants&#39;'], ['<form']],
    ['hide', [], ['<form', 'class="curl"']],
  ] as const)('api.playground.mode %s', async (mode, present, absent) => {
    await putDocs({
      ...SITE,
      api: { baseUrl: 'https://api.acme.test', playground: { mode }, auth: { method: 'bearer' } },
      openapi: '/openapi.json',
    })
    await putPage('api-reference/create', apiPage)
    const { response, html } = await page('/docs/api-reference/create')
    expect(html).toContain('<span class="method method-post">POST</span> <code>/plants</code>')
    expect(html).toContain('Notes under the operation.')
    for (const text of present) expect(html).toContain(text)
    for (const text of absent) expect(html).not.toContain(text)
    // The playground may call the configured API, and nothing else.
    expect(response.headers.get('content-security-policy')).toContain("connect-src 'self' https://api.acme.test")
  })

  test('an operation the document does not have, or a document Trellis cannot fetch, is a notice on the page', async () => {
    await putPage('api-reference/overview', '---\nopenapi: "GET /nowhere"\n---\n')
    expect((await page('/docs/api-reference/overview')).html).toContain(
      'GET /nowhere is not an operation of /openapi.json.',
    )
    await putDocs({ ...SITE, openapi: 'https://example.com/openapi.yaml' })
    expect((await page('/docs/api-reference/overview')).html).toContain('Documents at other addresses are not fetched')
  })
})

describe('a hostile docs.json cannot put script or markup on the page', () => {
  test.each([
    ['a javascript: topbar link', { topbarLinks: [{ name: 'x', url: 'javascript:alert(1)' }] }, ['javascript:']],
    [
      'a javascript: link hidden behind a tab character',
      { topbarLinks: [{ name: 'x', url: 'java\tscript:alert(1)' }] },
      ['script:alert'],
    ],
    [
      'a data: CTA',
      { topbarCtaButton: { name: 'x', url: 'data:text/html,<script>alert(1)</script>' } },
      ['data:text/html'],
    ],
    ['markup in the name', { name: '</title><script>alert(1)</script>' }, ['<script>alert(1)']],
    [
      'a background image that tries to close the style element',
      { backgroundImage: '");}</style><script>alert(1)</script>' },
      ['<script>alert', '</style><script>alert'],
    ],
    ['a javascript: logo', { logo: 'javascript:alert(1)' }, ['javascript:']],
    ['a javascript: anchor', { anchors: [{ name: 'x', url: 'javascript:alert(1)' }] }, ['javascript:']],
    [
      'markup in a group name',
      { navigation: [{ group: '<img src=x onerror=alert(1)>', pages: ['intro'] }] },
      ['<img src=x'],
    ],
    ['a javascript: social link', { footerSocials: { website: 'javascript:alert(1)' } }, ['javascript:']],
  ])('%s', async (_, fields, forbidden) => {
    // Refused by validation, or stored and neutralised on the page: either way nothing runs.
    const stored = await t.request('/docs.json', { method: 'PUT', token: writer, json: { ...SITE, ...fields } })
    expect([200, 400]).toContain(stored.status)
    const { response, html } = await page('/docs/intro')
    expect(response.status).toBe(200)
    for (const text of forbidden) expect(html).not.toContain(text)
  })
})

describe('no page of the site may be framed (clickjacking)', () => {
  test.each([
    ['the home page', '/docs/'],
    ['a built-in page', '/docs/introduction'],
    ['the 404 page', '/docs/no/such/page'],
  ])("%s says frame-ancestors 'none' in its CSP, and X-Frame-Options: DENY for older browsers", async (_, path) => {
    const { response } = await page(path)
    const directives = (response.headers.get('content-security-policy') ?? '').split(';').map((part) => part.trim())
    expect(directives).toContain("frame-ancestors 'none'")
    expect(response.headers.get('x-frame-options')).toBe('DENY')
  })
})

describe('DELETE /docs.json: the way back to Trellis own site', () => {
  test('after an author replaced the site, DELETE stores the built-in default again and its pages come back', async () => {
    await putDocs({ name: 'Greenhouse', navigation: [{ group: 'Start', pages: ['welcome'] }] })
    const replaced = await page('/docs/introduction')
    expect(replaced.response.status).toBe(404)
    const revisionsBefore = (await (await t.request('/docs.json/revisions', { token: writer })).json()).revisions.length
    const reset = await t.request('/docs.json', { method: 'DELETE', token: writer })
    expect(reset.status).toBe(200)
    const stored = await reset.json()
    expect(stored.config.name).toBe(DEFAULT_DOCS.name)
    expect(reset.headers.get('etag')).toBe(stored.etag)
    // Kept in the history like any change: nothing is removed.
    const revisions = (await (await t.request('/docs.json/revisions', { token: writer })).json()).revisions
    expect(revisions.length).toBe(revisionsBefore + 1)
    const back = await page('/docs/introduction')
    expect(back.response.status).toBe(200)
    expect(back.html).not.toContain('not written yet')
    expect((await (await t.request('/docs.json')).json()).name).toBe(DEFAULT_DOCS.name)
  })

  test('it needs docs:write, and honours If-Match', async () => {
    const reader = await t.tokenFor('docs-reader', ['plants:read'])
    expect((await t.request('/docs.json', { method: 'DELETE', token: reader })).status).toBe(403)
    const stale = await t.request('/docs.json', { method: 'DELETE', token: writer, headers: { 'if-match': '"stale"' } })
    expect(stale.status).toBe(412)
  })
})
