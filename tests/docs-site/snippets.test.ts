import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expandSnippets } from '../../src/docs-site/snippets'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * Snippets (issue #27 §2): `import X from '/snippets/x.mdx'` and `.jsx` components that are plain markup, resolved
 * when the page renders, with their props; stored like pages, never shown as pages.
 */

const STORED: Record<string, string> = {
  'snippets/hello': 'Hello, {word}!',
  'snippets/outer': "import Inner from '/snippets/inner.mdx'\n\nOuter says:\n\n<Inner />\n",
  'snippets/inner': 'Inner text.',
  'snippets/vars': 'export const product = "Trellis"\nexport const version = \'2.0\'\n',
  'snippets/ui.jsx':
    'export const Badge = ({ label, tone = "info" }) => <span class="badge-inline">{label} ({tone})</span>\n\n' +
    'export function Box({ children, href }) {\n  return (\n    <a href={href}>\n      {children}\n    </a>\n  )\n}\n',
  'guides/shared/local': 'Local snippet.',
}
const load = async (path: string) => STORED[path]
const expand = (body: string, from = 'guides/page') => expandSnippets(body, from, load, 1024 * 1024)

describe('imports are resolved, with props', () => {
  test.each([
    [
      'an absolute import with a prop',
      'import Hello from \'/snippets/hello.mdx\'\n\n<Hello word="world" />',
      'Hello, world!',
    ],
    ['a relative import', 'import L from "./shared/local.mdx";\n\n<L />', 'Local snippet.'],
    ['a relative import up a folder', "import H from '../snippets/hello.mdx'\n\n<H word='up' />", 'Hello, up!'],
    ['a nested snippet, resolved from its own imports', "import O from '/snippets/outer.mdx'\n\n<O />", 'Inner text.'],
    [
      'exported values, by name',
      "import { product, version as v } from '/snippets/vars.mdx'\n\n{product} {v} is here.",
      'Trellis 2.0 is here.',
    ],
    [
      'a .jsx arrow component with a default prop',
      'import { Badge } from \'/snippets/ui.jsx\'\n\n<Badge label="New" />',
      '<span class="badge-inline">New (info)</span>',
    ],
    [
      'a .jsx function component with children and an attribute prop',
      'import { Box } from \'/snippets/ui.jsx\'\n\n<Box href="/x">Go **now**</Box>',
      '<a href="/x">\n      Go **now**\n    </a>',
    ],
    ['an import of nothing stored leaves the page as it was', "import N from '/snippets/none.mdx'\n\n<N />", '<N />'],
  ])('%s', async (_name, body, expected) => {
    expect(await expand(body)).toContain(expected)
  })

  test('a prop value is escaped where it lands in an attribute', async () => {
    const page = "import { Box } from '/snippets/ui.jsx'\n\n<Box href='\"><script>x</script>'>t</Box>"
    expect(await expand(page)).toContain('<a href="&quot;&gt;&lt;script&gt;x&lt;/script&gt;">')
  })

  test('expansion past the bound is refused', async () => {
    const page = `import Hello from '/snippets/hello.mdx'\n\n${'<Hello word="x" />\n'.repeat(2000)}`
    expect(expandSnippets(page, 'p', load, 10_000)).rejects.toThrow('its snippets expand past the size a page may have')
  })
})

describe('on the site', () => {
  let t: TestApp
  let writer: string
  beforeAll(async () => {
    t = await makeTestApp()
    writer = await t.tokenFor('snippet-author', ['docs:write'])
  }, SETUP_TIMEOUT)
  afterAll(() => t.close(), SETUP_TIMEOUT)
  const fixture = (name: string) => readFileSync(join(import.meta.dir, '../fixtures/mintlify-snippets', name), 'utf8')
  const put = async (path: string, text: string) => {
    const response = await t.request(`/docs/pages/${path}`, {
      method: 'PUT',
      token: writer,
      body: text,
      headers: { 'content-type': 'text/markdown' },
    })
    expect({ path, status: response.status }).toEqual({ path, status: 201 })
  }

  test("Mintlify's own pages show their snippets; the snippets are not pages", async () => {
    const navigation = [{ group: 'G', pages: ['components/icons', 'ai/llmstxt', 'snippets/icons-required'] }]
    expect(
      (await t.request('/docs.json', { method: 'PUT', token: writer, json: { name: 'S', navigation } })).status,
    ).toBe(200)
    await put('snippets/icons-required', fixture('icons-required.mdx'))
    await put('snippets/previewbutton.jsx', fixture('previewbutton.jsx'))
    await put('components/icons', fixture('icons.mdx'))
    await put('ai/llmstxt', fixture('llmstxt.mdx'))
    const icons = await (await t.request('/docs/components/icons')).text()
    expect(icons).toContain('You must include one of <code>icon</code> or <code>src</code>.')
    expect(icons).toContain('<code class="field-name">src</code>')
    const llms = await (await t.request('/docs/ai/llmstxt')).text()
    expect(llms).toContain('href="https://mintlify.com/docs/llms.txt"')
    expect(llms).toContain('Open the llms.txt for this site.')
    expect(llms).not.toContain('PreviewButton')
    for (const path of ['/docs/snippets/icons-required', '/docs/snippets/previewbutton.jsx'])
      expect({ path, status: (await t.request(path)).status }).toEqual({ path, status: 404 })
    // Navigation naming a snippet does not make it a page (Mintlify never publishes /snippets).
    expect(await (await t.request('/docs/ai/llmstxt')).text()).not.toContain('href="/docs/snippets/')
  })

  test('what a snippet or its props write is sanitised with the page', async () => {
    await put('snippets/echo', 'Said: {word} <img src="x" onerror="alert(1)">')
    await put(
      'echo-page',
      "import Echo from '/snippets/echo.mdx'\n\n<Echo word='<a href=\"javascript:alert(1)\">x</a><script>alert(2)</script>' />",
    )
    const html = await (await t.request('/docs/echo-page')).text()
    expect(html).toContain('Said: <a>x</a>')
    expect(html).not.toMatch(/onerror|javascript:|alert\(2\)/)
  })

  test('a page shows the snippet as it is now: storing the snippet again changes the page', async () => {
    await put('snippets/notice', 'First version.')
    await put('notice-page', "import Notice from '/snippets/notice.mdx'\n\n<Notice />")
    expect(await (await t.request('/docs/notice-page')).text()).toContain('First version.')
    const response = await t.request('/docs/pages/snippets/notice', {
      method: 'PUT',
      token: writer,
      body: 'Second version.',
      headers: { 'content-type': 'text/markdown' },
    })
    expect(response.status).toBe(200)
    expect(await (await t.request('/docs/notice-page')).text()).toContain('Second version.')
  })
})
