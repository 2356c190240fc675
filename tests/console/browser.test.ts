import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'
import { ROOT } from '../helpers/process'
import { collectErrors, launchChromium, screenshot } from '../docs-site/browser'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/**
 * The console (issue #30 §2, §3) in Chromium: sign in with an admin token, create a token and see its secret once,
 * use it for chat, find its requests and their cost in the chart and the table, revoke it and see it refused; no
 * request leaves the server's origin, under the page's strict CSP; axe-core at 390 and 1280 px, light and dark.
 */

const browser = await launchChromium(import.meta.path)
const AXE_SCRIPT = join(ROOT, 'node_modules', 'axe-core', 'axe.min.js')
/** Dollars per million tokens: echo's prompt at $2.50, its answer at $10. */
const PRICES = { echo: { input: 2.5, output: 10 } }
const PHONE = { width: 390, height: 844 }
const DESKTOP = { width: 1280, height: 900 }

/** A request's cost as the price table says it: integer micro-dollars, rounded once, half up. */
const costMicros = (usage: { prompt_tokens: number; completion_tokens: number }) =>
  Math.floor((usage.prompt_tokens * 2_500_000 + usage.completion_tokens * 10_000_000 + 500_000) / 1_000_000)
const usd = (micros: number) => `$${Math.trunc(micros / 1e6)}.${String(micros % 1e6).padStart(6, '0')}`

describe.skipIf(browser === undefined)('the console in a browser', () => {
  let app: TestApp
  let admin: string
  const contexts: BrowserContext[] = []
  beforeAll(async () => {
    app = await makeTestApp({ transport: 'listening server', env: { TRELLIS_PRICES: JSON.stringify(PRICES) } })
    admin = await app.tokenFor('console-admin', ['admin'])
  }, SETUP_TIMEOUT)
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()))
  })
  afterAll(() => app?.close())

  /** A page in a fresh context; every URL it requests is collected in `requested`. */
  async function open(options: BrowserContextOptions = {}) {
    const context = await browser!.newContext({ viewport: DESKTOP, ...options })
    context.setDefaultTimeout(5_000)
    contexts.push(context)
    const requested: string[] = []
    context.on('request', (request) => requested.push(request.url()))
    context.on('response', (response) => {
      if (response.status() >= 400) requested.push(`${response.status()} ${response.url()}`)
    })
    const page = await context.newPage()
    const errors = collectErrors(page)
    const response = await page.goto(`${app.origin}/console/`)
    return { page, response: response!, requested, errors }
  }

  /** Signs in from the keyboard alone: Tab to the field (a few presses: the skip link comes first), type, Enter. */
  async function signIn(page: Page, token: string) {
    const focused: string[] = []
    for (let i = 0; i < 4 && focused.at(-1) !== 'sign-in-token'; i++) {
      await page.keyboard.press('Tab')
      focused.push(await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName || ''))
    }
    expect(focused.at(-1)).toBe('sign-in-token')
    await page.keyboard.type(token)
    await page.keyboard.press('Enter')
    await page.locator('#tokens').waitFor({ state: 'visible' })
  }

  const chat = (secret: string) =>
    fetch(`${app.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'How much does a fern cost?' }] }),
    })

  test('sign in, create a token, see its secret once, use it, find its cost, revoke it: its next request is 401', async () => {
    const { page, response, requested, errors } = await open()
    expect(response.status()).toBe(200)
    const csp = response.headers()['content-security-policy']!
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("connect-src 'self'")
    expect(csp).not.toMatch(/https?:|\*|'unsafe-/)
    await signIn(page, admin)
    expect(await page.locator('#who').textContent()).toContain('console-admin (admin)')

    // Create: the secret is on the page once, with a copy button.
    await page.locator('#create summary').click()
    const owner = `fern-shop-${crypto.randomUUID().slice(0, 6)}`
    await page.locator('#create-owner').fill(owner)
    await page.locator('#create-rpm').fill('100')
    await page.locator('#create-form button[type=submit]').click()
    // The secret appears once the create request answers: wait for it, not for the (empty) element.
    await page.locator('#created-secret', { hasText: /^trl_/ }).waitFor()
    const secret = (await page.locator('#created-secret').textContent())!
    expect(secret).toMatch(/^trl_/)
    await expect(page.locator('#copy-secret').isVisible()).resolves.toBe(true)
    const row = page.locator('#token-table tbody tr', { hasText: owner })
    await row.waitFor()
    const id = (await row.getAttribute('data-token'))!
    expect(await row.textContent()).toContain('Requests this minute: 0 of 100')

    // Its chat requests, priced from TRELLIS_PRICES.
    let expected = 0
    for (let i = 0; i < 3; i++) {
      const answer = await chat(secret)
      expect(answer.status).toBe(200)
      expected += costMicros(
        ((await answer.json()) as { usage: { prompt_tokens: number; completion_tokens: number } }).usage,
      )
    }
    expect(expected).toBeGreaterThan(0)
    await app.deps.ledger!.flush()

    // Seen again after a reload: the secret is gone for good, the token is listed with its use.
    await page.reload()
    await page.locator('#tokens').waitFor({ state: 'visible' })
    expect(await page.locator('#created').isHidden()).toBe(true)
    expect(await page.content()).not.toContain(secret)
    expect(await page.locator(`#token-table tr[data-token="${id}"]`).textContent()).toContain(
      'Requests this minute: 3 of 100',
    )

    // The chart by token, measured in dollars: its bar and its table row carry the exact cost.
    await page.locator('#chart-by').selectOption('token')
    await page.locator('#chart-measure').selectOption('cost')
    await page.locator('#chart-days').selectOption('1')
    const tableRow = page.locator('#chart .usage-table tbody tr', { hasText: id })
    await tableRow.waitFor()
    const cells = await tableRow.locator('td').allTextContents()
    expect(cells).toEqual(['3', expect.any(String), expect.any(String), '0', usd(expected)])
    expect(await page.locator('#chart svg rect title', { hasText: id }).textContent()).toContain(usd(expected))
    expect(await page.locator('#chart figcaption').textContent()).toContain('Cost (US dollars) by token per day')

    // Revoke (two presses), and the token is refused.
    const revoke = page.locator(`#token-table tr[data-token="${id}"] button[data-revoke]`)
    await revoke.click()
    expect(await revoke.textContent()).toBe('Confirm revoke')
    await revoke.click()
    await page.locator(`#token-table tr[data-token="${id}"].revoked`).waitFor()
    expect((await chat(secret)).status).toBe(401)

    // Nothing left this origin, nothing broke the policy, and the token never went into a URL.
    expect(requested.filter((url) => !url.startsWith(`${app.origin}/`))).toEqual([])
    expect(requested.filter((url) => url.startsWith('4'))).toEqual([])
    expect(requested.filter((url) => url.includes(admin) || url.includes(secret))).toEqual([])
    expect(errors).toEqual([])
    await screenshot(page, 'console-desktop-light')
  })

  test('the token lives in sessionStorage only: a new tab of the same browser starts signed out', async () => {
    const { page } = await open()
    await signIn(page, admin)
    expect(await page.evaluate(() => [sessionStorage.length, localStorage.length, document.cookie])).toEqual([1, 0, ''])
    const other = await page.context().newPage()
    await other.goto(`${app.origin}/console/`)
    await other.locator('#sign-in').waitFor({ state: 'visible' })
    expect(await other.locator('#tokens').isHidden()).toBe(true)
  })

  test('a wrong token is told so and stays signed out', async () => {
    const { page } = await open()
    await page.locator('#sign-in-token').fill('trl_not-a-real-token')
    await page.keyboard.press('Enter')
    await page.locator('#sign-in-error', { hasText: 'refused' }).waitFor()
    expect(await page.locator('#tokens').isHidden()).toBe(true)
  })

  test('a console-scope token sees every view read-only: no create, edit or revoke', async () => {
    const reader = await app.tokenFor('auditor', ['console'])
    const { page } = await open()
    await signIn(page, reader)
    expect(await page.locator('#who').textContent()).toContain('auditor (read-only)')
    expect(await page.locator('#create').isHidden()).toBe(true)
    expect(await page.locator('#token-table button').count()).toBe(0)
    await page.locator('#chart .usage-table').waitFor()
    await page.locator('#live-streams', { hasText: /^\d+$/ }).waitFor()
  })

  type AxeViolation = { id: string; impact: string | null; nodes: { target: unknown[] }[] }
  test.each([PHONE, DESKTOP].flatMap((viewport) => (['light', 'dark'] as const).map((mode) => ({ viewport, mode }))))(
    'at $viewport.width px in $mode mode: no sideways scroll and no serious or critical axe-core finding',
    async ({ viewport, mode }) => {
      const { page } = await open({ viewport, colorScheme: mode, bypassCSP: true })
      expect(await axeFindings(page)).toEqual([])
      await signIn(page, admin)
      await page.locator('#create summary').click()
      await page.locator('#chart .usage-table').waitFor()
      await page.locator('#live-rps', { hasText: /\d/ }).waitFor({ timeout: 10_000 })
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      ).toBe(0)
      expect(await axeFindings(page)).toEqual([])
      await screenshot(page, `console-${viewport.width}-${mode}`)
    },
  )

  async function axeFindings(page: Page): Promise<string[]> {
    await page.addScriptTag({ path: AXE_SCRIPT })
    const violations = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run: (d: Document) => Promise<{ violations: AxeViolation[] }> } }).axe
      const results = await axe.run(document)
      return results.violations.map(({ id, impact, nodes }) => ({
        id,
        impact,
        nodes: nodes.slice(0, 3).map((n) => n.target),
      }))
    })
    return violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => `${violation.impact} ${violation.id} at ${JSON.stringify(violation.nodes)}`)
  }
})
