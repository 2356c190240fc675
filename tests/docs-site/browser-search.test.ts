import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { collectErrors, launchChromium, useDocsSite } from './browser'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/**
 * The search dialog (issue #27 §3) in Chromium, under the site's Content-Security-Policy: ⌘K / Ctrl-K and "/" open
 * it, results arrive as the reader types, the arrow keys move through them and Enter opens the page at its heading.
 */

const browser = await launchChromium(import.meta.path)

const SITE = {
  name: 'Greenhouse',
  navigation: [{ group: 'Guides', pages: ['guides/roses', 'guides/soil'] }],
}

/** Errors but the favicon Chromium asks for on its own (these sites name none). */
const pageErrors = (errors: string[]) => errors.filter((error) => !error.includes('Failed to load resource'))

const optionTexts = (page: Page) =>
  page.$$eval('#search-results [role="option"] .search-title', (items) => items.map((item) => item.textContent))

describe.skipIf(browser === undefined)('the search dialog', () => {
  const site = useDocsSite(browser)

  test('Ctrl-K opens it; typing shows ranked results with marked words; Enter opens the page at the heading', async () => {
    const { putDocsJson, putPage, open } = site()
    await putDocsJson(SITE)
    await putPage('guides/roses', '---\ntitle: Roses\n---\nClimbing roses.\n\n## Pruning in winter\n\nCut the canes.\n')
    await putPage('guides/soil', '---\ntitle: Soil\n---\nRoses like pruning less than loam.\n')
    const { page } = await open('/docs/guides/soil')
    const errors = collectErrors(page)
    const button = page.locator('button[data-search-open]')
    expect(await button.isVisible()).toBe(true)
    await page.keyboard.press('Control+k')
    const input = page.locator('#search-input')
    await input.waitFor({ state: 'visible' })
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('search-input')
    await input.fill('pruning')
    await page.waitForSelector('#search-results [role="option"]')
    expect(await optionTexts(page)).toEqual(['Roses › Pruning in winter', 'Soil'])
    expect(await page.locator('#search-results mark').first().textContent()).toMatch(/prun/i)
    expect(await input.getAttribute('aria-activedescendant')).toBe('search-option-0')
    await page.keyboard.press('ArrowDown')
    expect(await input.getAttribute('aria-activedescendant')).toBe('search-option-1')
    await page.keyboard.press('ArrowUp')
    await Promise.all([page.waitForURL('**/docs/guides/roses#pruning-in-winter'), page.keyboard.press('Enter')])
    expect(await page.locator('h1').textContent()).toBe('Roses')
    expect(pageErrors(errors)).toEqual([])
  })

  test('"/" opens it outside a text field, Escape closes it; a query with no match says so', async () => {
    const { putDocsJson, putPage, open } = site()
    await putDocsJson(SITE)
    await putPage('guides/roses', '---\ntitle: Roses\n---\nClimbing roses.\n')
    const { page } = await open('/docs/guides/roses')
    const errors = collectErrors(page)
    await page.keyboard.press('/')
    const dialog = page.locator('dialog.search-dialog')
    await dialog.waitFor({ state: 'visible' })
    await page.locator('#search-input').fill('xylophone')
    await page.waitForFunction(() => document.querySelector('.search-status')?.textContent?.startsWith('No results'))
    expect(await page.locator('.search-status').textContent()).toBe('No results for “xylophone”')
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    // Clicking the button opens it too.
    await page.locator('button[data-search-open]').click()
    await dialog.waitFor({ state: 'visible' })
    expect(pageErrors(errors)).toEqual([])
  })

  test('a snippet is shown as text: markup in a page never becomes elements in the dialog', async () => {
    const { putDocsJson, putPage, open } = site()
    await putDocsJson(SITE)
    await putPage('guides/roses', '---\ntitle: Roses\n---\nType `<img src=x onerror=alert(1)>` for thorns.\n')
    const { page } = await open('/docs/guides/roses')
    await page.keyboard.press('Control+k')
    await page.locator('#search-input').fill('thorns')
    await page.waitForSelector('#search-results [role="option"]')
    expect(await page.locator('#search-results img').count()).toBe(0)
    expect(await page.locator('.search-snippet').first().textContent()).toContain('<img src=x onerror=alert(1)>')
  })
})
