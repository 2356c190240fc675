import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { parseFrontMatter } from '../../src/docs-format/front-matter'
import { ROOT } from '../helpers/process'
import { collectErrors, launchChromium, modeOf, screenshot, useDocsSite } from './browser'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/**
 * The site on a 390 px phone and a 1280 px screen, light and dark (issue #27 §3): the page title on the first screen,
 * navigation behind an accessible menu button, nothing wider than the screen, Tabs and CodeGroup switchable, and no
 * serious or critical axe-core finding. Screenshots go to artifacts/docs-site/.
 */

const browser = await launchChromium(import.meta.path)
const AXE_SCRIPT = join(ROOT, 'node_modules', 'axe-core', 'axe.min.js')
const PHONE = { width: 390, height: 844 }
const DESKTOP = { width: 1280, height: 900 }
const MODES = ['light', 'dark'] as const

/** A long sidebar (the one that pushed titles 1,800 to 21,000 px down) and many tabs (the row that scrolled). */
const GROUPS = Array.from({ length: 12 }, (_, g) => ({
  group: `Group ${g}`,
  pages: Array.from({ length: 15 }, (_, p) => (g === 0 && p === 0 ? 'components' : `g${g}/page-${p}`)),
}))
const TABS = Array.from({ length: 9 }, (_, i) => ({ name: `Section tab ${i}`, url: `t${i}` }))
const fixture = (name: string) =>
  parseFrontMatter(readFileSync(join(ROOT, 'tests/fixtures/mintlify-components', name), 'utf8')).body
const PAGE = [
  '---\ntitle: Components on every screen\n---\n',
  fixture('tabs.mdx'),
  fixture('code-groups.mdx'),
  fixture('callouts.mdx'),
  fixture('fields.mdx'),
  '<Frame caption="A caption">\n  ![Park](data:image/gif;base64,R0lGODlhAQABAAAAACw=)\n</Frame>\n',
  'Term: <Tooltip tip="Application Programming Interface">API</Tooltip>.\n\n',
  '<Tabs>\n  <Tab title="First tab">\n    One again.\n  </Tab>\n  <Tab title="Third tab">\n    Three again.\n  </Tab>\n</Tabs>\n',
  '<Tabs sync={false}>\n  <Tab title="First tab">\n    Alone.\n  </Tab>\n  <Tab title="Third tab">\n    Alone 3.\n  </Tab>\n</Tabs>\n',
  '| a | very | wide | table | with | many | columns | that | must | scroll | inside | itself |\n|-|-|-|-|-|-|-|-|-|-|-|-|\n',
  `| ${'x | '.repeat(12)}\n`,
].join('\n')

type AxeViolation = { id: string; impact: string | null; nodes: { target: unknown[]; failureSummary?: string }[] }

async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT })
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (d: Document) => Promise<{ violations: AxeViolation[] }> } }).axe
    const results = await axe.run(document)
    return results.violations.map(({ id, impact, nodes }) => ({
      id,
      impact,
      nodes: nodes.slice(0, 3).map(({ target, failureSummary }) => ({ target, failureSummary })),
    }))
  })
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.impact} ${violation.id} at ${JSON.stringify(violation.nodes)}`)
}

/** How far the page can scroll sideways, in CSS pixels (0: nothing is wider than the screen). */
const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

describe.skipIf(browser === undefined)('phone and desktop layout', () => {
  const site = useDocsSite(browser)
  beforeAll(async () => {
    await site().putDocsJson({ name: 'Phone', navigation: GROUPS, tabs: TABS })
    await site().putPage('components', PAGE)
  })

  test.each(MODES.flatMap((mode) => [PHONE, DESKTOP].map((viewport) => ({ mode, viewport }))))(
    'at $viewport.width px in $mode mode: title on the first screen, no sideways scroll, no axe finding',
    async ({ mode, viewport }) => {
      const { page, status } = await site().open('/docs/components', { viewport, colorScheme: mode, bypassCSP: true })
      expect(status).toBe(200)
      expect(await modeOf(page)).toBe(mode)
      const title = await page.locator('h1').boundingBox()
      expect(title!.y + title!.height).toBeLessThan(viewport.height)
      expect(await sidewaysOverflow(page)).toBe(0)
      expect(await page.locator('#site-nav').isVisible()).toBe(viewport === DESKTOP)
      expect(await page.locator('#nav-toggle').isVisible()).toBe(viewport === PHONE)
      await screenshot(page, `phone-layout-${viewport.width}-${mode}`)
      // The first screen alone, as a reader sees it on opening the page.
      await page.screenshot({
        path: join(ROOT, 'artifacts/docs-site', `phone-layout-${viewport.width}-${mode}-first.png`),
      })
      expect(await seriousViolations(page)).toEqual([])
    },
  )

  test('the menu button opens the navigation, says so, takes focus in, and Escape closes it', async () => {
    const { page } = await site().open('/docs/components', { viewport: PHONE })
    const button = page.locator('#nav-toggle')
    expect(await button.getAttribute('aria-expanded')).toBe('false')
    expect(await button.getAttribute('aria-controls')).toBe('site-nav')
    await button.click()
    expect(await button.getAttribute('aria-expanded')).toBe('true')
    expect(await page.locator('#site-nav').isVisible()).toBe(true)
    expect(await page.evaluate(() => document.activeElement?.closest('#site-nav') !== null)).toBe(true)
    expect(await sidewaysOverflow(page)).toBe(0)
    await page.screenshot({ path: join(ROOT, 'artifacts/docs-site/phone-layout-menu-open.png') })
    await page.keyboard.press('Escape')
    expect(await button.getAttribute('aria-expanded')).toBe('false')
    expect(await page.locator('#site-nav').isVisible()).toBe(false)
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('nav-toggle')
  })

  test('without script the navigation follows the page, and the title still comes first', async () => {
    const { page } = await site().open('/docs/components', { viewport: PHONE, javaScriptEnabled: false })
    const title = await page.locator('h1').boundingBox()
    expect(title!.y).toBeLessThan(PHONE.height)
    const nav = await page.locator('#site-nav').boundingBox()
    expect(nav!.y).toBeGreaterThan(title!.y)
    expect(await page.locator('#nav-toggle').isVisible()).toBe(false)
  })

  test('Tabs switch by click and by arrow keys; the titles are the tab names', async () => {
    const { page } = await site().open('/docs/components', { viewport: DESKTOP })
    const errors = collectErrors(page)
    const group = page.locator('.tab-group').first()
    const tabs = group.locator('[role="tab"]')
    expect(await tabs.allTextContents()).toEqual(['First tab', 'Second tab', 'Third tab'])
    const panels = group.locator(':scope > [role="tabpanel"]')
    expect(await panels.nth(0).isVisible()).toBe(true)
    expect(await panels.nth(1).isVisible()).toBe(false)
    await tabs.nth(1).click()
    expect(await tabs.nth(1).getAttribute('aria-selected')).toBe('true')
    expect(await panels.nth(1).isVisible()).toBe(true)
    expect(await panels.nth(0).isVisible()).toBe(false)
    await page.keyboard.press('ArrowRight')
    expect(await tabs.nth(2).getAttribute('aria-selected')).toBe('true')
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Third tab')
    expect(await panels.nth(2).isVisible()).toBe(true)
    // The fixture's images are paths of Mintlify's repository, not stored here: those 404s are not script errors.
    expect(errors.filter((error) => !error.includes('Failed to load resource'))).toEqual([])
  })

  test('picking a tab picks the tab of the same name in the other groups of the page', async () => {
    const { page } = await site().open('/docs/components', { viewport: DESKTOP })
    const groups = page.locator('.tab-group')
    const selected = (group: number) => groups.nth(group).locator('[role="tab"][aria-selected="true"]').textContent()
    expect(await groups.count()).toBe(3)
    await groups.nth(0).locator('[role="tab"]', { hasText: 'Third tab' }).click()
    expect(await selected(1)).toBe('Third tab')
    // The third has sync={false}: it keeps its own choice, and its choice moves no other group.
    expect(await selected(2)).toBe('First tab')
    await groups.nth(2).locator('[role="tab"]', { hasText: 'Third tab' }).click()
    await groups.nth(1).locator('[role="tab"]', { hasText: 'First tab' }).click()
    expect(await selected(2)).toBe('Third tab')
    expect(await selected(0)).toBe('First tab')
  })

  test('CodeGroup shows one block at a time under labelled tabs', async () => {
    const { page } = await site().open('/docs/components', { viewport: PHONE })
    const group = page.locator('.code-group').first()
    const tabs = group.locator('[role="tab"]')
    expect(await tabs.allTextContents()).toEqual(['helloWorld.js', 'hello_world.py', 'HelloWorld.java'])
    const blocks = group.locator(':scope > pre')
    expect(await blocks.nth(0).isVisible()).toBe(true)
    expect(await blocks.nth(2).isVisible()).toBe(false)
    await tabs.nth(2).click()
    expect(await blocks.nth(2).isVisible()).toBe(true)
    expect(await blocks.nth(0).isVisible()).toBe(false)
    expect(await sidewaysOverflow(page)).toBe(0)
  })
})
