import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { renderMarkdownYielding } from '../../src/docs-site/markdown'
import { DocsSiteService, type SiteSources } from '../../src/docs-site/service'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * Bounded work (issue #27 §4): a page whose HTML would pass DOCS_MAX_PAGE_HTML is refused at PUT with a 400 naming
 * the cause, a stored one renders an error page, and rendering gives the event loop a turn between its phases.
 * The reproductions: a 177 KB page of reference links rendered to 62 MB; a 368 KB variant took 14 s.
 */

let t: TestApp
let writer: string
beforeAll(async () => {
  t = await makeTestApp()
  writer = await t.tokenFor('bounds-author', ['docs:write'])
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const putPage = (path: string, text: string) =>
  t.request(`/docs/pages/${path}`, {
    method: 'PUT',
    token: writer,
    body: text,
    headers: { 'content-type': 'text/markdown' },
  })

/** One reference definition with a long URL, used over and over: each use repeats the URL in the HTML. */
function referenceLinks(size: number, urlLength = 2000): string {
  let text = `[r]: https://example.com/${'a'.repeat(urlLength)} "${'t'.repeat(200)}"\n\n`
  while (text.length < size) text += '[x][r] '
  return text
}

/** Many definitions, each used many times (the variant that took 14 s). */
function manyReferences(size: number): string {
  const definitions = Array.from({ length: 400 }, (_, i) => `[r${i}]: https://example.com/${'b'.repeat(400)}/${i}`)
  let text = `${definitions.join('\n')}\n\n`
  for (let i = 0; text.length < size; i = (i + 1) % 400) text += `[x][r${i}] `
  return text
}

type Row = [name: string, page: () => string, cause: string]

describe('a page whose HTML would pass the cap is refused at PUT, naming the cause, in bounded time', () => {
  test.each<Row>([
    ['177 KB of reference-link uses (62 MB before)', () => referenceLinks(177_000), 'reference links repeat their URL'],
    ['368 KB of reference-link uses (14 s before)', () => manyReferences(368_000), 'reference links repeat their URL'],
    [
      '50,000 inline icons (each about 600 bytes of SVG)',
      () => '<Icon icon="leaf" />'.repeat(50_000),
      'its icons alone',
    ],
    [
      'components nested in a fence-free page that multiply their markup',
      () => '<Tabs><Tab title="t"><Note><Card title="c" icon="leaf">x</Card></Note></Tab></Tabs>\n'.repeat(12_000),
      'DOCS_MAX_PAGE_HTML',
    ],
  ])(
    '%s',
    async (_name, page, cause) => {
      const started = performance.now()
      const response = await putPage('amplified', page())
      const elapsed = performance.now() - started
      expect(response.status).toBe(400)
      const message = (await response.json()).message as string
      expect(message).toContain(cause)
      expect(message).toContain('at most 4194304 bytes of HTML (DOCS_MAX_PAGE_HTML)')
      // The refusal stops at the cap: the whole render of the first row took seconds and 62 MB.
      expect(elapsed).toBeLessThan(5000)
      expect((await t.request('/docs/pages/amplified')).status).toBe(404)
    },
    20_000,
  )

  test('a page just under the cap is stored and served', async () => {
    const page = referenceLinks(20_000, 200)
    expect((await putPage('fits', page)).status).toBe(201)
    const response = await t.request('/docs/fits')
    expect(response.status).toBe(200)
    expect((await response.text()).length).toBeLessThan(4 * 1024 * 1024 + 200_000)
  })

  test('snippets count toward the cap: one that imports itself grows no further than the nesting bound', async () => {
    const snippet = "import Self from '/snippets/self.mdx'\n\nSome text.\n\n<Self />\n<Self />\n"
    // Stored once (it imports nothing stored yet); from then on, it and every page that imports it nest too deep.
    expect((await putPage('snippets/self', snippet)).status).toBe(201)
    for (const [path, text] of [
      ['snippets/self', snippet],
      ['uses-self', "import Self from '/snippets/self.mdx'\n\n<Self />\n"],
    ]) {
      const response = await putPage(path!, text!)
      expect(response.status).toBe(400)
      expect((await response.json()).message).toContain('import snippets more than 8 deep')
    }
  })
})

test('a snippet used hundreds of times with hundreds of props each costs linear time', async () => {
  expect((await putPage('snippets/many', `${'{p1} '.repeat(2000)}`)).status).toBe(201)
  const props = Array.from({ length: 200 }, (_, i) => `p${i}="v"`).join(' ')
  const page = `import M from '/snippets/many.mdx'\n\n${`<M ${props} />\n`.repeat(600)}`
  expect(page.length).toBeLessThan(1024 * 1024)
  const started = performance.now()
  const response = await putPage('many-props', page)
  expect([201, 400]).toContain(response.status)
  expect(performance.now() - started).toBeLessThan(10_000)
}, 20_000)

describe('a stored page past the cap (stored under a larger one) renders an error page', () => {
  test.each([
    ['reference links', referenceLinks(177_000)],
    ['plain text past the cap', 'word '.repeat(300_000)],
  ])('%s', async (_name, text) => {
    const service = new DocsSiteService(sourcesWith({ big: text }), { maxPageHtml: 1024 * 1024 })
    const page = await service.render('big')
    expect(page.status).toBe(200)
    expect(page.html).toContain('page big is not shown')
    expect(page.html).toContain('at most 1048576 bytes of HTML (DOCS_MAX_PAGE_HTML)')
    expect(page.html.length).toBeLessThan(100_000)
  })
})

describe('rendering yields to the event loop', () => {
  test('a 1 MiB page of short paragraphs never holds the loop for the whole render', async () => {
    const page = Array.from({ length: 20_000 }, (_, i) => `Paragraph ${i} with [a link](/x) and *emphasis*.`).join(
      '\n\n',
    )
    let longest = 0
    let last = performance.now()
    let ticking = true
    const tick = () => {
      const now = performance.now()
      longest = Math.max(longest, now - last)
      last = now
      if (ticking) setTimeout(tick, 1)
    }
    tick()
    const started = performance.now()
    await renderMarkdownYielding(page, { pageHref: () => undefined })
    const total = performance.now() - started
    ticking = false
    // The loop ran in between: its longest wait is a fraction of the render (sanitising is the one long phase).
    expect(longest).toBeLessThan(total * 0.75)
  }, 30_000)
})

function sourcesWith(texts: Record<string, string>): SiteSources {
  const config = JSON.stringify({ name: 'Fake', navigation: [{ group: 'G', pages: Object.keys(texts) }] })
  return {
    config: async () => ({ revision: 1, etag: '"fake"', body: config, builtIn: false }),
    pagesGeneration: async () => 1,
    pageSummaries: async () => new Map(),
    pageText: async (path) => texts[path],
    ownDocument: () => ({}),
  }
}
