import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { renderMarkdown } from '../../src/docs-site/markdown'
import { launchChromium } from './browser'
import { HOSTILE_PAGES } from './hostile-pages'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * The hostile pages, rendered and loaded in a real browser: the markup checks in markdown.test.ts say
 * what the HTML contains, this says what a browser does with it. Every element is hovered, focused and
 * clicked; any alert, confirm or prompt dialog (the payloads' sign of life) fails the row. Without a
 * Chromium the file is skipped loudly (see browser.ts).
 */

const browser = await launchChromium(import.meta.path)

/** Provokes every handler a reader could trigger; the dialogs a payload opens are recorded by the page's listener. */
const PROVOKE = `(async () => {
  document.addEventListener('click', (event) => {
    const link = event.target instanceof Element ? event.target.closest('a') : null
    // Following a harmless link would leave the page; a javascript: link must still be followed.
    if (link !== null && link.protocol !== 'javascript:') event.preventDefault()
  }, true)
  for (const element of document.querySelectorAll('*')) {
    for (const type of ['mouseover', 'mouseenter', 'pointerdown', 'focus', 'toggle', 'load', 'error']) element.dispatchEvent(new Event(type))
    if (element instanceof HTMLElement) element.click()
  }
  await new Promise((resolve) => setTimeout(resolve, 30))
})()`

let page: Page
let calls: string[] = []

async function load(html: string): Promise<string[]> {
  calls = []
  await page.setContent(`<!doctype html><html><head><meta charset="utf-8"></head><body>${html}</body></html>`, {
    waitUntil: 'load',
  })
  await page.evaluate(PROVOKE)
  return calls
}

describe.skipIf(browser === undefined)('hostile pages in a browser: no script runs', () => {
  beforeAll(async () => {
    page = await browser!.newPage()
    page.on('dialog', (dialog) => {
      calls.push(`${dialog.type()}(${dialog.message()})`)
      void dialog.dismiss()
    })
  })

  test('the harness sees a payload run when the markup is not sanitised', async () => {
    expect(await load('<img src="x" onerror="alert(1)"><a href="jav&#x09;ascript:alert(2)">x</a>')).toEqual(
      expect.arrayContaining(['alert(1)', 'alert(2)']),
    )
  })

  test.each(HOSTILE_PAGES.map((row) => [row.name, row.page] as const))('%s', async (_name, hostile) => {
    const { html } = renderMarkdown(hostile, {
      pageHref: (target) => (target.startsWith('/') ? `/docs${target}` : undefined),
    })
    expect(await load(html)).toEqual([])
  })
})
