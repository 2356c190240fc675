import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { collectErrors, computedStyle, launchChromium, modeOf, rgb, useDocsSite } from './browser'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/**
 * The docs site (issue #16) in Chromium: the sidebar, tabs and anchors that docs.json's `navigation`,
 * `tabs`, `anchors` and `topAnchor` describe; its colours in both modes; the mode toggle; the version picker.
 * The other browser tests: browser-content.test.ts (hostile pages, edits, missing pages) and
 * browser-default-site.test.ts (the built-in site: playground, accessibility, screenshots).
 */

const browser = await launchChromium(import.meta.path)

/** The site's landmarks, as the layout marks them up. */
const SIDEBAR_PAGE_LINKS = 'nav.sidebar a:not(.anchor)'
const ANCHOR_ITEMS = 'nav.sidebar .anchors > li'
const TAB_LINKS = 'nav.tabs a'
const CURRENT_PAGE_LINK = 'nav.sidebar a[aria-current="page"]'

/** Mintlify's navigation vocabulary, all at once: nested groups, two tabs, four kinds of anchor, versions. */
const ORCHARD = {
  name: 'Orchard',
  versions: ['v1', 'v2'],
  topAnchor: { name: 'Handbook', icon: 'book-open' },
  tabs: [
    { name: 'API Reference', url: 'api-reference' },
    { name: 'Guides', url: 'guides' },
  ],
  anchors: [
    { name: 'SDKs', url: 'sdks', icon: 'code', color: '#2563EB' },
    { name: 'Community', url: 'community', icon: 'users', color: { from: '#F97316', to: '#DB2777' } },
    { name: 'Version 2', url: 'v2', icon: 'rocket', version: 'v2' },
    { name: 'Internal', url: 'internal', icon: 'lock', isDefaultHidden: true },
  ],
  navigation: [
    {
      group: 'Get Started',
      pages: [
        'introduction',
        'quickstart',
        { group: 'Concepts', pages: ['concepts/model', { group: 'Storage', pages: ['concepts/storage'] }] },
      ],
    },
    { group: 'Guides', pages: ['guides/planting', 'guides/pruning'] },
    { group: 'Endpoints', pages: ['api-reference/list-trees', 'api-reference/plant-tree'] },
    { group: 'SDKs', pages: ['sdks/javascript'] },
    { group: 'Community', pages: ['community/forum'] },
    { group: 'What is new', pages: ['v2/changes'] },
    { group: 'Internal', pages: ['internal/runbook'] },
  ],
}

/** The hrefs of the sidebar's page links, in order. */
const sidebarPages = (page: Page) =>
  page.$$eval(SIDEBAR_PAGE_LINKS, (links) => links.map((link) => link.getAttribute('href')))

/** The names of the groups a sidebar link sits in, outermost first (a group is a list item holding a list). */
const groupsAround = (page: Page, href: string) =>
  page.$eval(`nav.sidebar a[href="${href}"]`, (link) => {
    const names: string[] = []
    for (let item = link.parentElement?.closest('li'); item; item = item.parentElement?.closest('li')) {
      if (item.querySelector(':scope > ul') !== null) names.unshift(item.firstElementChild?.textContent?.trim() ?? '')
    }
    return names
  })

/** Each anchor of the sidebar: its label, whether it is shown, its data-version, and whether it has an icon. */
const anchors = (page: Page) =>
  page.$$eval(ANCHOR_ITEMS, (items) =>
    items.map((item) => ({
      name: item.textContent?.trim(),
      shown: !(item as HTMLElement).hidden && item.getClientRects().length > 0,
      version: item.getAttribute('data-version'),
      icon: item.querySelector('svg') !== null,
    })),
  )

const anchorNamed = async (page: Page, name: string) => (await anchors(page)).find((anchor) => anchor.name === name)

describe.skipIf(!browser)('the docs site in Chromium: navigation, theme, mode and version', () => {
  const site = useDocsSite(browser)

  describe('the sidebar, tabs and anchors follow docs.json navigation', () => {
    test('a top-anchor page lists exactly the pages no tab or anchor claims, nested groups included', async () => {
      await site().putDocsJson(ORCHARD)
      const { page, status } = await site().open('/docs/concepts/storage')
      expect(status).toBe(200)
      expect(await sidebarPages(page)).toEqual([
        '/docs/introduction',
        '/docs/quickstart',
        '/docs/concepts/model',
        '/docs/concepts/storage',
      ])
      expect(await groupsAround(page, '/docs/concepts/storage')).toEqual(['Get Started', 'Concepts', 'Storage'])
      expect(await groupsAround(page, '/docs/concepts/model')).toEqual(['Get Started', 'Concepts'])
      expect(await page.$$eval(CURRENT_PAGE_LINK, (links) => links.map((link) => link.getAttribute('href')))).toEqual([
        '/docs/concepts/storage',
      ])
    })

    test('a tab filters the sidebar by its URL prefix, and the tabs row marks it as current', async () => {
      await site().putDocsJson(ORCHARD)
      const { page } = await site().open('/docs/guides/pruning')
      expect(await sidebarPages(page)).toEqual(['/docs/guides/planting', '/docs/guides/pruning'])
      expect(await page.$$eval(CURRENT_PAGE_LINK, (links) => links.map((link) => link.getAttribute('href')))).toEqual([
        '/docs/guides/pruning',
      ])

      const tabs = await page.$$eval(TAB_LINKS, (links) =>
        links.map((link) => ({ name: link.textContent?.trim(), current: link.getAttribute('aria-current') })),
      )
      const named = tabs.map((tab) => tab.name)
      expect(named).toContain('API Reference')
      expect(named).toContain('Guides')
      expect(named.indexOf('API Reference')).toBeLessThan(named.indexOf('Guides'))
      expect(tabs.filter((tab) => tab.current === 'page').map((tab) => tab.name)).toEqual(['Guides'])

      await page.click(`${TAB_LINKS}:text-is("API Reference")`)
      await page.waitForURL('**/docs/api-reference/**')
      expect(await sidebarPages(page)).toEqual(['/docs/api-reference/list-trees', '/docs/api-reference/plant-tree'])
    })

    test('an anchor filters the sidebar by its URL prefix', async () => {
      await site().putDocsJson(ORCHARD)
      const { page } = await site().open('/docs/sdks/javascript')
      expect(await sidebarPages(page)).toEqual(['/docs/sdks/javascript'])
      expect(await page.$eval(CURRENT_PAGE_LINK, (link) => link.getAttribute('href'))).toBe('/docs/sdks/javascript')
    })

    test('the anchors show the topAnchor label, an <svg> icon each, and their colours', async () => {
      await site().putDocsJson(ORCHARD)
      const { page } = await site().open('/docs/introduction')
      const shown = (await anchors(page)).filter((anchor) => anchor.shown)
      expect(shown.map((anchor) => anchor.name)).toEqual(['Handbook', 'SDKs', 'Community'])
      expect(shown.every((anchor) => anchor.icon)).toBe(true)

      const iconOf = (name: string) => `${ANCHOR_ITEMS}:has-text("${name}") .anchor-icon`
      expect(await computedStyle(page, iconOf('SDKs'), 'background-color')).toBe(rgb('#2563EB'))
      const gradient = await computedStyle(page, iconOf('Community'), 'background-image')
      expect(gradient).toContain('linear-gradient')
      expect(gradient).toContain(rgb('#F97316'))
      expect(gradient).toContain(rgb('#DB2777'))
    })
  })

  describe('colours follow docs.json colors in both modes', () => {
    const COLORS = {
      primary: '#0E7490',
      light: '#67E8F9',
      dark: '#155E75',
      background: { light: '#FAF7F0', dark: '#101418' },
    }
    const cases = [
      { mode: 'light' as const, background: COLORS.background.light, marker: COLORS.primary },
      { mode: 'dark' as const, background: COLORS.background.dark, marker: COLORS.light },
    ]

    test.each(cases)(
      '$mode mode: the body is background.$mode and the current page is marked in its primary colour',
      async ({ mode, background, marker }) => {
        await site().putDocsJson({ ...ORCHARD, colors: COLORS })
        const { page } = await site().open('/docs/quickstart', { colorScheme: mode })
        expect(await modeOf(page)).toBe(mode)
        expect(await computedStyle(page, 'body', 'background-color')).toBe(rgb(background))
        expect(await computedStyle(page, CURRENT_PAGE_LINK, 'border-left-color')).toBe(rgb(marker))
      },
    )
  })

  describe('the mode toggle', () => {
    test('flips the mode, and the choice survives a reload', async () => {
      await site().putDocsJson(ORCHARD)
      const { page } = await site().open('/docs/introduction', { colorScheme: 'light' })
      const errors = collectErrors(page)
      expect(await modeOf(page)).toBe('light')

      await page.click('button#mode-toggle')
      expect(await modeOf(page)).toBe('dark')
      expect(await page.evaluate(() => localStorage.getItem('trellis-docs-mode'))).toBe('dark')
      await page.reload()
      expect(await modeOf(page)).toBe('dark')

      await page.click('button#mode-toggle')
      expect(await modeOf(page)).toBe('light')
      await page.reload()
      expect(await modeOf(page)).toBe('light')
      expect(errors).toEqual([])
    })

    test('modeToggle { default: "dark", isHidden: true } forces dark mode and shows no toggle', async () => {
      const background = { light: '#FFFFFF', dark: '#0B0B0F' }
      await site().putDocsJson({
        ...ORCHARD,
        colors: { primary: '#0E7490', background },
        modeToggle: { default: 'dark', isHidden: true },
      })
      const { page } = await site().open('/docs/introduction', { colorScheme: 'light' })
      // Even a reader who chose light mode earlier, while the toggle was shown.
      await page.evaluate(() => localStorage.setItem('trellis-docs-mode', 'light'))
      await page.reload()
      expect(await modeOf(page)).toBe('dark')
      expect(await page.locator('button#mode-toggle').count()).toBe(0)
      expect(await computedStyle(page, 'body', 'background-color')).toBe(rgb(background.dark))
    })
  })

  describe('versions and hidden anchors', () => {
    test('picking a version shows the anchors of that version only, and the choice survives a reload', async () => {
      await site().putDocsJson(ORCHARD)
      const { page } = await site().open('/docs/introduction')
      expect(await page.$eval('select#version-select', (select) => (select as HTMLSelectElement).value)).toBe('v1')
      expect(await anchorNamed(page, 'Version 2')).toMatchObject({ version: 'v2', shown: false })

      await page.selectOption('select#version-select', 'v2')
      expect(await anchorNamed(page, 'Version 2')).toMatchObject({ shown: true })
      await page.reload()
      expect(await page.$eval('select#version-select', (select) => (select as HTMLSelectElement).value)).toBe('v2')
      expect(await anchorNamed(page, 'Version 2')).toMatchObject({ shown: true })

      await page.selectOption('select#version-select', 'v1')
      expect(await anchorNamed(page, 'Version 2')).toMatchObject({ shown: false })
      // Anchors without a version stay whatever the version.
      expect(await anchorNamed(page, 'SDKs')).toMatchObject({ shown: true })
    })

    test('an isDefaultHidden anchor stays hidden until a page inside its url prefix is open', async () => {
      await site().putDocsJson(ORCHARD)
      const { page } = await site().open('/docs/introduction')
      expect(await anchorNamed(page, 'Internal')).toMatchObject({ shown: false })
      expect(
        await page.$$eval(SIDEBAR_PAGE_LINKS, (links) => links.map((link) => link.getAttribute('href'))),
      ).not.toContain('/docs/internal/runbook')

      await page.goto(`${site().origin}/docs/internal/runbook`)
      expect(await anchorNamed(page, 'Internal')).toMatchObject({ shown: true, icon: true })
      expect(await sidebarPages(page)).toEqual(['/docs/internal/runbook'])
    })
  })
})
