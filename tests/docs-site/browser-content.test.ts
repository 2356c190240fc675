import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { computedStyle, dangerousMarkup, launchChromium, rgb, useDocsSite, watchForScript } from './browser'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/**
 * The docs site (issue #16) in Chromium, showing what authors store: hostile pages and a hostile docs.json
 * run no script in a reader's browser; edits show on the next reload; a page named in the navigation but
 * not yet written, and an unknown address, each get a page of their own; api.playground.mode is obeyed.
 */

const browser = await launchChromium(import.meta.path)

/** What every hostile payload does when it runs: both are watched (see watchForScript). */
const RUN = 'window.__pwned=1;alert(document.domain)'

const SITE = {
  name: 'Greenhouse',
  colors: { primary: '#0E7490' },
  navigation: [
    { group: 'Start', pages: ['introduction', 'unwritten'] },
    { group: 'Hostile', pages: ['hostile/page'] },
    { group: 'API', pages: ['api/create-plant'] },
  ],
}

/**
 * One row per way a page author might try to run script: the Markdown stored, and what a reader then does
 * (click or hover the element with that text). The renderer's full list of vectors is hostile-pages.ts,
 * run in a browser by markdown-browser.test.ts; these rows go through the whole served site instead
 * (storage, layout, Content-Security-Policy, a reader's clicks).
 */
const STORED_HOSTILE_PAGES: { name: string; markdown: string; click?: string; hover?: string }[] = [
  { name: 'a <script> element', markdown: `<script>${RUN}</script>` },
  { name: 'an <img> with onerror', markdown: `<img src=x onerror="${RUN}">` },
  { name: 'a javascript: Markdown link, clicked', markdown: `[click me](javascript:${RUN})`, click: 'click me' },
  { name: 'an <svg> with onload', markdown: `<svg onload="${RUN}"><circle r="5"/></svg>` },
  { name: 'an <iframe srcdoc>', markdown: `<iframe srcdoc="<script>parent.__pwned=1;alert(1)</script>"></iframe>` },
  {
    name: 'a raw <a> whose scheme hides behind a tab entity, clicked',
    markdown: `<a href="jav&#x09;ascript:${RUN}">raw link</a>`,
    click: 'raw link',
  },
  {
    name: 'a <div> with onmouseover, hovered',
    markdown: `<div onmouseover="${RUN}">hover me</div>`,
    hover: 'hover me',
  },
  {
    name: 'an MDX <Card> with a javascript: href, clicked',
    markdown: `<Card title="Open me" href="javascript:${RUN}">card</Card>`,
    click: 'Open me',
  },
  {
    name: 'a <details> with ontoggle',
    markdown: `<details open ontoggle="${RUN}"><summary>more</summary>inside</details>`,
  },
  {
    name: 'a <meta http-equiv="refresh"> to a javascript: URL',
    markdown: `<meta http-equiv="refresh" content="0;url=javascript:${RUN}">`,
  },
  {
    name: 'an <embed> and an <object>',
    markdown: `<embed src="javascript:${RUN}"><object data="javascript:${RUN}"></object>`,
  },
  {
    name: 'a <form> posting to a javascript: URL, submitted',
    markdown: `<form action="javascript:${RUN}"><button>submit me</button></form>`,
    click: 'submit me',
  },
  {
    name: 'front matter that closes the <title>',
    markdown: `---\ntitle: "</title><script>${RUN}</script>"\ndescription: "\\"><script>${RUN}</script>"\n---\nbody text`,
  },
]

/** Clicks or hovers what a row asks for, when the element survived at all, then gives handlers time to fire. */
async function interact(page: Page, row: { click?: string; hover?: string }) {
  const target = row.click ?? row.hover
  if (target !== undefined) {
    const element = page.getByText(target, { exact: true }).first()
    if ((await element.count()) > 0) {
      if (row.click !== undefined) await element.click({ timeout: 2_000 })
      else await element.hover({ timeout: 2_000 })
    }
  }
  await page.waitForTimeout(150)
}

describe.skipIf(!browser)('the docs site in Chromium: what authors store', () => {
  const site = useDocsSite(browser)

  describe("a hostile page's script never runs", () => {
    test.each(STORED_HOSTILE_PAGES)('$name', async (row) => {
      await site().putDocsJson(SITE)
      await site().putPage('hostile/page', `# Hostile\n\n${row.markdown}\n\nThe end.\n`)
      const context = await site().newContext()
      const watch = await watchForScript(context)
      const page = await context.newPage()
      const response = await page.goto(`${site().origin}/docs/hostile/page`)
      expect(response?.status()).toBe(200)
      await interact(page, row)

      expect(watch).toEqual({ ran: [], dialogs: [] })
      expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined()
      expect(await dangerousMarkup(page, '__pwned')).toEqual([])
    })

    test('the page is served with a Content-Security-Policy that allows no inline script', async () => {
      await site().putDocsJson(SITE)
      await site().putPage('hostile/page', `# Hostile\n\n<script>${RUN}</script>\n`)
      const { headers } = await site().open('/docs/hostile/page')
      const policy = headers['content-security-policy']
      expect(policy).toBeString()
      const directives = policy!.split(';').map((part) => part.trim())
      // Without script-src, default-src is what governs scripts.
      const scriptSources =
        directives.find((part) => part.startsWith('script-src ')) ??
        directives.find((part) => part.startsWith('default-src '))
      expect(scriptSources).toBeString()
      expect(scriptSources).not.toContain("'unsafe-inline'")
      expect(scriptSources).not.toContain("'unsafe-eval'")
    })

    test('a hostile docs.json (name, topbar links, logo, anchors, tabs) runs no script either', async () => {
      const name = `Evil</title><script>${RUN}</script>`
      const evil = `javascript:${RUN}`
      await site().putDocsJson({
        ...SITE,
        name,
        logo: { light: evil, dark: evil, href: evil },
        favicon: evil,
        topbarLinks: [{ name: 'Evil link', url: evil }],
        topbarCtaButton: { name: 'Evil button', url: evil },
        anchors: [{ name: 'Evil anchor', url: evil, icon: 'skull' }],
        tabs: [{ name: 'Evil tab', url: evil }],
        backgroundImage: `x");}</style><script>${RUN}</script>`,
        navigation: [{ group: `</h2><script>${RUN}</script>`, pages: ['introduction'] }],
      })
      await site().putPage('introduction', '# Welcome\n')
      const context = await site().newContext()
      const watch = await watchForScript(context)
      const page = await context.newPage()
      await page.goto(`${site().origin}/docs/introduction`)
      // The name is text: shown as written, never parsed.
      expect(await page.title()).toContain(name)
      const before = await dangerousMarkup(page, '__pwned')
      for (const label of ['Evil link', 'Evil button', 'Evil anchor', 'Evil tab']) {
        await page.goto(`${site().origin}/docs/introduction`)
        await interact(page, { click: label })
      }

      expect(watch).toEqual({ ran: [], dialogs: [] })
      expect(before).toEqual([])
    })
  })

  describe('edits show on the next reload', () => {
    test('a new docs.json name and primary colour', async () => {
      await site().putDocsJson(SITE)
      await site().putPage('introduction', '# Welcome\n')
      const { page } = await site().open('/docs/introduction', { colorScheme: 'light' })
      expect(await page.title()).toContain('Greenhouse')
      expect(await computedStyle(page, 'nav.sidebar a[aria-current="page"]', 'border-left-color')).toBe(rgb('#0E7490'))

      await site().putDocsJson({ ...SITE, name: 'Glasshouse', colors: { primary: '#B91C1C' } })
      await page.reload()
      expect(await page.title()).toContain('Glasshouse')
      expect(await page.title()).not.toContain('Greenhouse')
      expect(await computedStyle(page, 'nav.sidebar a[aria-current="page"]', 'border-left-color')).toBe(rgb('#B91C1C'))
    })

    test("a page's new text", async () => {
      await site().putDocsJson(SITE)
      await site().putPage('introduction', '---\ntitle: First draft\n---\nThe orchard opens in **May**.\n')
      const { page } = await site().open('/docs/introduction')
      expect(await page.textContent('main h1')).toBe('First draft')
      expect(await page.textContent('main')).toContain('The orchard opens in May.')

      await site().putPage('introduction', '---\ntitle: Second draft\n---\nThe orchard opens in **June**.\n')
      await page.reload()
      expect(await page.textContent('main h1')).toBe('Second draft')
      expect(await page.textContent('main')).toContain('The orchard opens in June.')
      expect(await page.textContent('nav.sidebar a[aria-current="page"]')).toBe('Second draft')
    })
  })

  describe('pages that are not there', () => {
    test('a page the navigation names but nobody wrote says it is not written yet', async () => {
      await site().putDocsJson(SITE)
      const { page, status } = await site().open('/docs/unwritten')
      expect(status).toBe(200)
      expect(await page.textContent('main')).toContain('not written yet')
      expect(await page.textContent('main h1')).toBe('Unwritten')
      expect(await page.$eval('nav.sidebar a[aria-current="page"]', (link) => link.getAttribute('href'))).toBe(
        '/docs/unwritten',
      )
    })

    test("an unknown address is the site's own 404 page", async () => {
      await site().putDocsJson(SITE)
      const { page, status } = await site().open('/docs/no/such/page')
      expect(status).toBe(404)
      expect(await page.textContent('main h1')).toBe('Page not found')
      // Inside the site's layout, with its navigation, so the reader can go on from there.
      expect(
        await page.$$eval('nav.sidebar a:not(.anchor)', (links) => links.map((link) => link.getAttribute('href'))),
      ).toContain('/docs/introduction')
      expect(await page.title()).toContain('Greenhouse')
    })
  })

  describe('api.playground.mode', () => {
    const API_PAGE = '---\ntitle: Create a plant\nopenapi: POST /plants\n---\n'
    const hasForm = (page: Page) => page.locator('form:has(textarea[name="body"]), input[name="auth"]').count()

    test('"show" (the default) offers the form', async () => {
      await site().putDocsJson(SITE)
      await site().putPage('api/create-plant', API_PAGE)
      const { page } = await site().open('/docs/api/create-plant')
      expect(await hasForm(page)).toBeGreaterThan(0)
    })

    test('"simple" shows the request as a curl line and no form', async () => {
      await site().putDocsJson({ ...SITE, api: { playground: { mode: 'simple' } } })
      await site().putPage('api/create-plant', API_PAGE)
      const { page } = await site().open('/docs/api/create-plant')
      const curl = await page.locator('code', { hasText: 'curl' }).first().textContent()
      expect(curl).toContain('curl -X POST')
      expect(curl).toContain(`${site().origin}/plants`)
      expect(await hasForm(page)).toBe(0)
    })

    test("the current shape's examples.languages: each sample sends to the site's own origin", async () => {
      const api = { playground: { display: 'simple' }, examples: { languages: ['python', 'javascript'] } }
      const groups = SITE.navigation.map(({ group, pages }) => ({ group, pages }))
      await site().putDocsJson({ theme: 'mint', name: SITE.name, colors: SITE.colors, navigation: { groups }, api })
      await site().putPage('api/create-plant', API_PAGE)
      const { page } = await site().open('/docs/api/create-plant')
      const python = await page.locator('code.language-python').textContent()
      expect(python).toContain(`requests.request("POST", "${site().origin}/plants"`)
      const javascript = await page.locator('code.language-javascript').textContent()
      expect(javascript).toContain(`fetch("${site().origin}/plants"`)
      expect(await hasForm(page)).toBe(0)
    })

    test('"hide" shows neither, but still documents the operation', async () => {
      await site().putDocsJson({ ...SITE, api: { playground: { mode: 'hide' } } })
      await site().putPage('api/create-plant', API_PAGE)
      const { page } = await site().open('/docs/api/create-plant')
      expect(await page.textContent('main')).toContain('/plants')
      expect(await page.locator('code', { hasText: 'curl' }).count()).toBe(0)
      expect(await hasForm(page)).toBe(0)
    })
  })
})
