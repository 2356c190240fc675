import { afterAll, afterEach, beforeAll, test } from 'bun:test'
import { existsSync, mkdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium, type Page } from 'playwright-core'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'
import { ROOT } from '../helpers/process'

/**
 * The docs site (issue #16) in a real browser: the real app on a loopback port, and one headless
 * Chromium per test file (Debian's, from apt; playwright-core only drives it).
 *
 * Without a usable Chromium the browser tests are skipped with a banner saying so, never silently;
 * with TRELLIS_REQUIRE_BROWSER=1 (as .ci/run sets) a missing browser is a failing test instead.
 */

const CHROMIUM_PATH = process.env.CHROMIUM_BIN || '/usr/bin/chromium'
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking']
const LAUNCH_TIMEOUT_MS = 30_000
const ACTION_TIMEOUT_MS = 5_000

/** Where the screenshots go: artifacts/docs-site/ at the repository root (ignored by git). */
const SCREENSHOT_DIR = join(ROOT, 'artifacts', 'docs-site')

/** The scopes of the docs author the tests play. */
const WRITER_SCOPES = ['docs:write'] as const

/**
 * One Chromium for the test file that calls it (at its top level, so `describe.skipIf` can use the answer),
 * closed after the file's last test; undefined when none can be launched, after saying so loudly.
 */
export async function launchChromium(testFile: string): Promise<Browser | undefined> {
  const name = relative(ROOT, testFile)
  let reason: string
  if (!existsSync(CHROMIUM_PATH)) {
    reason = `there is no Chromium at ${CHROMIUM_PATH} (install it: apt-get install chromium, or set CHROMIUM_BIN)`
  } else {
    try {
      const browser = await chromium.launch({
        executablePath: CHROMIUM_PATH,
        args: CHROMIUM_ARGS,
        timeout: LAUNCH_TIMEOUT_MS,
      })
      afterAll(() => browser.close())
      return browser
    } catch (error) {
      reason = `Chromium at ${CHROMIUM_PATH} failed to launch: ${String(error instanceof Error ? error.message : error).split('\n')[0]}`
    }
  }
  if (process.env.TRELLIS_REQUIRE_BROWSER === '1') {
    test('Chromium launches (TRELLIS_REQUIRE_BROWSER=1)', () => {
      throw new Error(`${name}: ${reason}`)
    })
  } else {
    const rule = '!'.repeat(100)
    console.warn(
      `\n${rule}\n!! SKIPPED: the browser tests of ${name}\n!! because ${reason}.\n!! Set TRELLIS_REQUIRE_BROWSER=1 to make this a failure (CI does).\n${rule}\n`,
    )
  }
  return undefined
}

/** What a test sees of the running site. */
export type DocsSite = {
  app: TestApp
  origin: string
  /** Stores a whole docs.json (replacing the current one) and checks it was accepted. */
  putDocsJson: (config: unknown) => Promise<void>
  /** Stores a Markdown page at `path` (`guides/planting`) and checks it was accepted. */
  putPage: (path: string, markdown: string) => Promise<void>
  /** A fresh browser context (its own storage), closed after the test. */
  newContext: (options?: BrowserContextOptions) => Promise<BrowserContext>
  /** A page in a fresh context, already at `path` of the site, with the status and headers of that response. */
  open: (path: string, options?: BrowserContextOptions) => Promise<OpenedPage>
}

type OpenedPage = { page: Page; context: BrowserContext; status: number; headers: Record<string, string> }

/**
 * The real app with a listening server for this file's tests (set up in beforeAll, stopped in afterAll), and
 * browser contexts that are closed after each test. Call it at the top level of a `describe` block that is
 * skipped when `browser` is undefined; then it sets nothing up.
 */
export function useDocsSite(browser: Browser | undefined): () => DocsSite {
  let app: TestApp
  let writer: string
  const contexts: BrowserContext[] = []
  if (browser === undefined)
    return () => {
      throw new Error('no browser: this describe block should have been skipped')
    }

  beforeAll(async () => {
    app = await makeTestApp({ transport: 'listening server' })
    writer = await app.tokenFor('docs-author', [...WRITER_SCOPES])
  }, SETUP_TIMEOUT)
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()))
  })
  afterAll(() => app?.close())

  const newContext = async (options: BrowserContextOptions = {}) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options })
    // A missing element fails its test in seconds, with the selector named, rather than at the test's timeout.
    context.setDefaultTimeout(ACTION_TIMEOUT_MS)
    contexts.push(context)
    return context
  }

  return () => ({
    app,
    origin: app.origin!,
    putDocsJson: async (config) => {
      await expectStored(
        await app.request('/docs.json', { method: 'PUT', token: writer, json: config }),
        'PUT /docs.json',
      )
    },
    putPage: async (path, markdown) => {
      const init = { method: 'PUT', token: writer, body: markdown, headers: { 'content-type': 'text/markdown' } }
      await expectStored(await app.request(`/docs/pages/${path}`, init), `PUT /docs/pages/${path}`)
    },
    newContext,
    open: async (path, options) => {
      const context = await newContext(options)
      const page = await context.newPage()
      const response = await page.goto(`${app.origin}${path}`)
      if (response === null) throw new Error(`no response for ${path}`)
      return { page, context, status: response.status(), headers: response.headers() }
    },
  })
}

/** A write the test depends on: 200 or 201, else the test stops here with what the server said. */
async function expectStored(response: Response, what: string): Promise<void> {
  if (response.status !== 200 && response.status !== 201)
    throw new Error(`${what} answered ${response.status}: ${await response.text()}`)
}

/** `#0E7490` → `rgb(14, 116, 144)`, the form getComputedStyle answers in. */
export function rgb(hex: string): string {
  const value = Number.parseInt(hex.slice(1), 16)
  return `rgb(${(value >> 16) & 255}, ${(value >> 8) & 255}, ${value & 255})`
}

/** The site's mode as the page shows it (`<html data-mode>`). */
export function modeOf(page: Page): Promise<string | null> {
  return page.evaluate(() => document.documentElement.getAttribute('data-mode'))
}

/** A computed style property of the first element matching `selector`. */
export function computedStyle(page: Page, selector: string, property: string): Promise<string> {
  return page.$eval(selector, (element, name) => getComputedStyle(element).getPropertyValue(name), property)
}

/**
 * Errors the page reports: uncaught exceptions, and console errors (a Content-Security-Policy violation is
 * one). Collect before navigating.
 */
export function collectErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`))
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`)
  })
  return errors
}

/** A PNG of the whole page, named `${name}.png` under SCREENSHOT_DIR; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  const path = join(SCREENSHOT_DIR, `${name}.png`)
  await page.screenshot({ path, fullPage: true })
  return path
}

/** What a hostile page managed: assignments to `window.__pwned` (by frame URL) and dialogs opened. */
export type ScriptWatch = { ran: string[]; dialogs: string[] }

/**
 * Watches a context for hostile script: every frame gets a `window.__pwned` whose setter reports to the test
 * (so an assignment counts even if the page navigates away right after), and every dialog is recorded and
 * dismissed. Call before opening a page in the context.
 */
export async function watchForScript(context: BrowserContext): Promise<ScriptWatch> {
  const watch: ScriptWatch = { ran: [], dialogs: [] }
  await context.exposeBinding('__trellisReportPwned', ({ frame }) => {
    watch.ran.push(frame.url())
  })
  await context.addInitScript(() => {
    let value: unknown
    const report = (window as unknown as { __trellisReportPwned: () => void }).__trellisReportPwned
    Object.defineProperty(window, '__pwned', {
      get: () => value,
      set: (next) => {
        value = next
        report()
      },
    })
  })
  context.on('dialog', (dialog) => {
    watch.dialogs.push(`${dialog.type()}: ${dialog.message()}`)
    void dialog.dismiss()
  })
  return watch
}

/**
 * Markup a sanitised page must not contain, whether or not the Content-Security-Policy would stop it: event
 * handler attributes, script-capable URLs, frames, plugins, forms, and inline script that mentions `needle`.
 */
export function dangerousMarkup(page: Page, needle: string): Promise<string[]> {
  return page.evaluate((needle) => {
    const found: string[] = []
    const unsafeUrl = /^(javascript:|vbscript:|data:text\/html)/i
    for (const element of document.querySelectorAll('*')) {
      const tag = element.tagName.toLowerCase()
      if (['iframe', 'frame', 'object', 'embed', 'form', 'base'].includes(tag)) found.push(`<${tag}>`)
      if (tag === 'meta' && element.hasAttribute('http-equiv'))
        found.push(`<meta http-equiv="${element.getAttribute('http-equiv')}">`)
      if (tag === 'script' && (element.textContent ?? '').includes(needle))
        found.push(`<script>${element.textContent}</script>`)
      for (const attribute of element.attributes) {
        const name = attribute.name.toLowerCase()
        if (name.startsWith('on')) found.push(`<${tag} ${name}="${attribute.value}">`)
        if (
          ['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'srcdoc'].includes(name) &&
          (name === 'srcdoc' || unsafeUrl.test(attribute.value.replace(/[\u0000-\u0020]/g, '')))
        ) {
          found.push(`<${tag} ${name}="${attribute.value}">`)
        }
      }
    }
    return found
  }, needle)
}
