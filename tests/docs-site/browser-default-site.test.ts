import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { uniqueOwner } from '../helpers/app'
import { ROOT } from '../helpers/process'
import { collectErrors, launchChromium, modeOf, screenshot, useDocsSite } from './browser'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/**
 * Trellis's own documentation site, as it stands before anyone stores a docs.json (issue #16): the API
 * playground really calls the API, the pages pass axe-core's serious and critical checks in both modes,
 * and screenshots of both modes land in artifacts/docs-site/ for a human to look at.
 * Nothing in this file stores a docs.json: that would replace the built-in site.
 */

const browser = await launchChromium(import.meta.path)

const AXE_SCRIPT = join(ROOT, 'node_modules', 'axe-core', 'axe.min.js')
const HOME = '/docs/'
const CREATE_PLANT_PAGE = '/docs/api-reference/plants/post-plants'
const MODES = ['light', 'dark'] as const

type AxeViolation = {
  id: string
  impact: string | null
  help: string
  helpUrl: string
  nodes: { target: unknown[]; failureSummary?: string }[]
}

/** axe-core's violations of impact serious or critical on the page as it is now. */
async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: AXE_SCRIPT })
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run: (context: Document, options: object) => Promise<{ violations: AxeViolation[] }> }
      }
    ).axe
    const results = await axe.run(document, { resultTypes: ['violations'] })
    return results.violations.map(({ id, impact, help, helpUrl, nodes }) => ({
      id,
      impact,
      help,
      helpUrl,
      nodes: nodes.map(({ target, failureSummary }) => ({ target, failureSummary })),
    }))
  })
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
}

/** One line per violation and one per element, for a failure message a person can act on. */
function describeViolations(violations: AxeViolation[]): string {
  return violations
    .map((violation) => {
      const nodes = violation.nodes
        .slice(0, 5)
        .map((node) => `    at ${JSON.stringify(node.target)}: ${(node.failureSummary ?? '').replace(/\s+/g, ' ')}`)
      const more = violation.nodes.length > 5 ? [`    … and ${violation.nodes.length - 5} more`] : []
      return [
        `  [${violation.impact}] ${violation.id}: ${violation.help} (${violation.helpUrl})`,
        ...nodes,
        ...more,
      ].join('\n')
    })
    .join('\n')
}

describe.skipIf(!browser)('the built-in docs site in Chromium', () => {
  const site = useDocsSite(browser)

  test('the playground of POST /plants creates a real plant', async () => {
    const token = await site().app.tokenFor(uniqueOwner('browser-playground'), ['plants:read', 'plants:write'])
    const name = `Playground fern ${crypto.randomUUID().slice(0, 8)}`
    const { page } = await site().open(HOME)
    const errors = collectErrors(page)

    // The reader's way there: the "API Reference" tab, then the operation's page in the sidebar.
    await page.click('nav.tabs a:text-is("API Reference")')
    await page.waitForURL('**/docs/api-reference/**')
    await page.click(`nav.sidebar a[href="${CREATE_PLANT_PAGE}"]`)
    await page.waitForURL(`**${CREATE_PLANT_PAGE}`)

    await page.fill('input[name="auth"]', token)
    await page.fill('textarea[name="body"]', JSON.stringify({ name, tag: 'fern' }, null, 2))
    await page.click('.playground button[type="submit"]')
    await page.waitForFunction(
      () => /^\d{3}\b/.test(document.querySelector('.playground-status')?.textContent ?? ''),
      undefined,
      { timeout: 10_000 },
    )

    expect(await page.textContent('.playground-status')).toMatch(/^(201 Created|200 OK)$/)
    expect(await page.textContent('.playground-body')).toContain(name)
    expect(errors).toEqual([])

    const listed = await site().app.request('/plants?limit=1000', { token })
    expect(listed.status).toBe(200)
    expect(((await listed.json()) as { name: string; tag?: string }[]).filter((plant) => plant.name === name)).toEqual([
      { name, tag: 'fern' },
    ])
  })

  describe('axe-core finds no serious or critical violation', () => {
    const cases = MODES.flatMap((mode) => [
      { page: 'the home page', path: HOME, mode },
      { page: 'the POST /plants page', path: CREATE_PLANT_PAGE, mode },
    ])

    test.each(cases)('on $page in $mode mode', async ({ path, mode }) => {
      // axe is injected as an inline script, which the site's own Content-Security-Policy rightly refuses.
      const { page, status } = await site().open(path, { colorScheme: mode, bypassCSP: true })
      expect(status).toBe(200)
      expect(await modeOf(page)).toBe(mode)
      const violations = await seriousViolations(page)
      if (violations.length > 0) console.error(`axe on ${path} (${mode} mode):\n${describeViolations(violations)}`)
      expect(violations.map((violation) => `${violation.impact} ${violation.id}`)).toEqual([])
    })
  })

  test('its pages load with no script error and no Content-Security-Policy violation', async () => {
    const context = await site().newContext()
    const page = await context.newPage()
    const errors = collectErrors(page)
    for (const path of [HOME, CREATE_PLANT_PAGE, '/docs/chat/streaming']) {
      const response = await page.goto(`${site().origin}${path}`)
      expect(response?.status()).toBe(200)
      await page.click('button#mode-toggle')
    }
    expect(errors).toEqual([])
  })

  test('screenshots of the home page and an API page, in both modes, go to artifacts/docs-site/', async () => {
    const saved: string[] = []
    for (const mode of MODES) {
      const { page } = await site().open(HOME, { colorScheme: mode })
      expect(await modeOf(page)).toBe(mode)
      saved.push(await screenshot(page, `home-${mode}`))
      await page.goto(`${site().origin}${CREATE_PLANT_PAGE}`)
      saved.push(await screenshot(page, `api-post-plants-${mode}`))
    }
    const PNG_SIGNATURE = '89504e470d0a1a0a'
    for (const path of saved)
      expect({ path, signature: readFileSync(path).subarray(0, 8).toString('hex') }).toEqual({
        path,
        signature: PNG_SIGNATURE,
      })
    console.info(`docs site screenshots:\n${saved.map((path) => `  ${path}`).join('\n')}`)
  })
})
