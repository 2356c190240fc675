import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { renderMarkdown } from '../../src/docs-site/markdown'
import { HOSTILE_PAGES } from './hostile-pages'
import { unsafeParts, visibleText } from './html-safety'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/** Page bodies rendered to HTML: the Markdown dialect, the MDX components, links, and the sanitiser (issue #16). */

const PAGES = new Set(['quickstart', 'plants/overview', 'café'])

/** A resolver like the site's: page paths (absolute or relative) to /docs/ URLs, anything else undefined. */
function pageHref(target: string): string | undefined {
  const page = target.replace(/^(\.\.?\/)+|^\/+/g, '')
  return PAGES.has(page) ? `/docs/${page}` : undefined
}

function render(page: string) {
  return renderMarkdown(page, { pageHref })
}

/** Icon path data is long and not the point of these rows. */
function html(page: string): string {
  return render(page).html.replace(/<path d="[^"]*"\/>/g, '<path/>')
}

type Row = [name: string, page: string, expected: string]

/** A callout's opening markup, its icon's path data elided as html() does. */
function callout(name: string): string {
  const box = { Note: '0 0 512 512', Tip: '0 0 384 512', Info: '0 0 512 512', Warning: '0 0 512 512' } as Record<
    string,
    string
  >
  return (
    `<aside class="callout callout-${name.toLowerCase()}" role="note" aria-label="${name}"><span class="callout-icon">` +
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${box[name] ?? '0 0 512 512'}" fill="currentColor" ` +
    'aria-hidden="true"><path/></svg></span><div class="callout-body">'
  )
}

function rows(list: Row[]) {
  return list.map(([name, page, expected]) => [name, page, expected] as const)
}

describe('headings: h2–h4 get unique ids and are listed for the table of contents', () => {
  test.each([
    ['a heading', '## Getting started', [{ level: 2, id: 'getting-started', text: 'Getting started' }]],
    [
      'repeats get -1, -2 across levels',
      '## Setup\n\n### Setup\n\n## Setup',
      [
        { level: 2, id: 'setup', text: 'Setup' },
        { level: 3, id: 'setup-1', text: 'Setup' },
        { level: 2, id: 'setup-2', text: 'Setup' },
      ],
    ],
    [
      'a suffix already taken is skipped',
      '## A 1\n\n## A\n\n## A',
      [
        { level: 2, id: 'a-1', text: 'A 1' },
        { level: 2, id: 'a', text: 'A' },
        { level: 2, id: 'a-2', text: 'A' },
      ],
    ],
    [
      'punctuation dropped, letters of any script kept, each space a hyphen',
      '## Café & Crème: v2.0!',
      [{ level: 2, id: 'café--crème-v20', text: 'Café & Crème: v2.0!' }],
    ],
    [
      'inline code and emphasis count as text',
      '#### The `pageHref` *option*',
      [{ level: 4, id: 'the-pagehref-option', text: 'The pageHref option' }],
    ],
    ['nothing left to slug', '## !!!', [{ level: 2, id: 'section', text: '!!!' }]],
    [
      'the text is plain text, not HTML (escape it when writing the TOC)',
      '## a \\<b> &amp; c',
      [{ level: 2, id: 'a-b--c', text: 'a <b> & c' }],
    ],
    ['h1, h5 and h6 are not listed', '# Title\n\n##### Small\n\n###### Smaller', []],
    ['an author-written <h2> is not listed', '<h2 id="custom">Raw</h2>', []],
  ] as const)('%s', (_name, page, headings) => {
    expect(render(page).headings).toEqual([...headings])
  })

  test.each(
    rows([
      ['ids on the elements', '## Setup\n\n### Setup', '<h2 id="setup">Setup</h2>\n<h3 id="setup-1">Setup</h3>\n'],
      ['no id on h1 or h5', '# Title\n\n##### Small', '<h1>Title</h1>\n<h5>Small</h5>\n'],
      ['an author id is removed', '<h2 id="custom">Raw</h2>', '<h2>Raw</h2>'],
    ]),
  )('%s', (_name, page, expected) => {
    expect(html(page)).toBe(expected)
  })
})

describe('GitHub-style tables', () => {
  test.each(
    rows([
      [
        'alignment becomes align, not style',
        '| Name | Count | Note |\n|:-----|------:|:----:|\n| a | 1 | x |',
        '<table>\n<thead>\n<tr>\n<th align="left">Name</th>\n<th align="right">Count</th>\n<th align="center">Note</th>\n</tr>\n</thead>\n' +
          '<tbody>\n<tr>\n<td align="left">a</td>\n<td align="right">1</td>\n<td align="center">x</td>\n</tr>\n</tbody>\n</table>\n',
      ],
      [
        'an HTML table keeps numeric spans and known alignments only',
        '<table><tr><td colspan="2" rowspan="x" align="middle">c</td><th align="right">h</th></tr></table>',
        '<table><tr><td colspan="2">c</td><th align="right">h</th></tr></table>',
      ],
    ]),
  )('%s', (_name, page, expected) => {
    expect(html(page)).toBe(expected)
  })
})

describe('fenced code: highlighted when the language is known, escaped text otherwise', () => {
  test.each(
    rows([
      [
        'a known language by alias',
        '```js\nconst a = 1 // hi\n```',
        '<pre><code class="hljs language-js"><span class="hljs-keyword">const</span> a = <span class="hljs-number">1</span> <span class="hljs-comment">// hi</span>\n</code></pre>\n',
      ],
      [
        "highlight.js 11's sub-scope classes survive",
        '```ts\nclass A {}\n```',
        '<pre><code class="hljs language-ts"><span class="hljs-keyword">class</span> <span class="hljs-title class_">A</span> {}\n</code></pre>\n',
      ],
      [
        'an unknown language',
        '```mermaid\ngraph <b> & c\n```',
        '<pre><code class="hljs language-mermaid">graph &lt;b&gt; &amp; c\n</code></pre>\n',
      ],
      ['no language', '```\nplain & <raw>\n```', '<pre><code class="hljs">plain &amp; &lt;raw&gt;\n</code></pre>\n'],
      [
        "Mintlify's title after the language, line marks dropped",
        "```python main.py {2}\nprint('x')\n```",
        '<pre title="main.py"><code class="hljs language-python"><span class="hljs-built_in">print</span>(<span class="hljs-string">\'x\'</span>)\n</code></pre>\n',
      ],
      [
        'a language name that is not a name gets no class',
        '```"x y\ncode\n```',
        '<pre title="y"><code class="hljs">code\n</code></pre>\n',
      ],
      [
        'a language named like an Object.prototype member is unknown',
        '```constructor\na <b>\n```',
        '<pre><code class="hljs language-constructor">a &lt;b&gt;\n</code></pre>\n',
      ],
      ['indentation is not code (as in MDX)', '    indented text', '<p>indented text</p>\n'],
    ]),
  )('%s', (_name, page, expected) => {
    expect(html(page)).toBe(expected)
  })

  test.each([
    ['bash', 'echo "$HOME"'],
    ['sh', 'echo "$HOME"'],
    ['shell', '$ npm i'],
    ['console', '$ npm i'],
    ['json', '{"a": 1}'],
    ['javascript', 'const a = 1'],
    ['jsx', 'const a = 1'],
    ['typescript', 'let a: number'],
    ['tsx', 'let a: number'],
    ['python', 'def f(): pass'],
    ['yaml', 'a: 1'],
    ['http', 'GET / HTTP/1.1'],
    ['go', 'func main() {}'],
    ['rust', 'fn main() {}'],
    ['java', 'public class A {}'],
    ['sql', 'SELECT 1'],
    ['xml', '<a b="c"/>'],
    ['html', '<p class="x">'],
    ['css', 'a { color: red }'],
    ['diff', '+ added'],
  ])('the registered language %s highlights', (language, sample) => {
    expect(html(`\`\`\`${language}\n${sample}\n\`\`\``)).toContain('<span class="hljs-')
  })

  test('plaintext is registered and left plain', () => {
    expect(html('```plaintext\na <b>\n```')).toBe(
      '<pre><code class="hljs language-plaintext">a &lt;b&gt;\n</code></pre>\n',
    )
  })
})

describe('links: page links resolved through pageHref, the rest left as written', () => {
  test.each([
    [
      'a root-relative page',
      '[Quickstart](/quickstart)',
      '<p><a href="/docs/quickstart">Quickstart</a></p>\n',
      ['/quickstart'],
    ],
    [
      'the fragment is kept',
      '[Run](/quickstart#run)',
      '<p><a href="/docs/quickstart#run">Run</a></p>\n',
      ['/quickstart'],
    ],
    [
      'the query and fragment are kept',
      '[Q](/plants/overview?tab=1#x)',
      '<p><a href="/docs/plants/overview?tab=1#x">Q</a></p>\n',
      ['/plants/overview'],
    ],
    [
      'a relative page, passed as written',
      '[Rel](../plants/overview#x)',
      '<p><a href="/docs/plants/overview#x">Rel</a></p>\n',
      ['../plants/overview'],
    ],
    [
      'percent-encoding is decoded for pageHref',
      '[Café](/caf%C3%A9)',
      '<p><a href="/docs/café">Café</a></p>\n',
      ['/café'],
    ],
    ['not a page: left as written', '[Unknown](/nowhere#x)', '<p><a href="/nowhere#x">Unknown</a></p>\n', ['/nowhere']],
    ['a fragment alone is not a page', '[Top](#top)', '<p><a href="#top">Top</a></p>\n', []],
    [
      'raw HTML anchors too',
      '<a href="/quickstart#raw" target="_blank" name="n">raw</a>',
      '<p><a href="/docs/quickstart#raw">raw</a></p>\n',
      ['/quickstart'],
    ],
    [
      'external: rel=noopener noreferrer',
      '[Ext](https://example.com/a)',
      '<p><a href="https://example.com/a" rel="noopener noreferrer">Ext</a></p>\n',
      [],
    ],
    [
      'protocol-relative is external',
      '[CDN](//cdn.example.com/x)',
      '<p><a href="//cdn.example.com/x" rel="noopener noreferrer">CDN</a></p>\n',
      [],
    ],
    ['mailto', '[Mail](mailto:a@example.com)', '<p><a href="mailto:a@example.com">Mail</a></p>\n', []],
    [
      'a title',
      '[T](/quickstart "The start")',
      '<p><a title="The start" href="/docs/quickstart">T</a></p>\n',
      ['/quickstart'],
    ],
  ] as const)('%s', (_name, page, expected, targets) => {
    const asked: string[] = []
    const result = renderMarkdown(page, { pageHref: (target) => (asked.push(target), pageHref(target)) })
    expect(result.html).toBe(expected)
    expect(asked).toEqual([...targets])
  })
})

describe('images', () => {
  test.each(
    rows([
      [
        'a relative src, alt and title',
        '![Logo](/images/logo.png "The logo")',
        '<p><img alt="Logo" title="The logo" src="/images/logo.png" /></p>\n',
      ],
      [
        'a raster data: URL',
        '![dot](data:image/png;base64,iVBORw0KGgo=)',
        '<p><img alt="dot" src="data:image/png;base64,iVBORw0KGgo=" /></p>\n',
      ],
      ['an SVG data: URL is dropped', '<img src="data:image/svg+xml,<svg/>" alt="s">', '<img alt="s" />'],
      [
        'numeric width and height only, empty alt kept',
        '<img src="https://x.example/a.png" width="100" height="50%" alt="">',
        '<img alt="" width="100" src="https://x.example/a.png" />',
      ],
    ]),
  )('%s', (_name, page, expected) => {
    expect(html(page)).toBe(expected)
  })
})

describe('Mintlify MDX: components become HTML, the rest of MDX degrades to text', () => {
  const callouts = ['Note', 'Tip', 'Info', 'Warning', 'Check', 'Danger'].map(
    (name): Row => [
      `<${name}>`,
      `<${name}>\n  Mind **this**.\n</${name}>`,
      `${callout(name)}\n<p>Mind <strong>this</strong>.</p>\n</div></aside>\n`,
    ],
  )
  test.each(
    rows([
      ...callouts,
      [
        'a callout on one line',
        '<Tip>Use `<Note>` here.</Tip>',
        `${callout('Tip')}\n<p>Use <code>&lt;Note&gt;</code> here.</p>\n</div></aside>\n`,
      ],
      [
        '<Card> with href: a link card, its href resolved like a link',
        '<Card title="Plants" href="/plants/overview#care">All about plants.</Card>',
        '<a class="card" href="/docs/plants/overview#care">\n<strong class="card-title">Plants</strong>\n<p>All about plants.</p>\n</a>\n',
      ],
      [
        '<Card> with an icon',
        '<Card title="Code" icon="fa-github" iconType="brands" />',
        '<div class="card">\n<span class="card-icon"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 496 512" fill="currentColor" aria-hidden="true"><path/></svg></span><strong class="card-title">Code</strong>\n</div>\n',
      ],
      [
        '<Card> without href',
        '<Card title="No link">Text</Card>',
        '<div class="card">\n<strong class="card-title">No link</strong>\n<p>Text</p>\n</div>\n',
      ],
      [
        '<CardGroup cols>, with indented content',
        '<CardGroup cols={2}>\n  <Card title={"A"} href="/quickstart" />\n</CardGroup>',
        '<div class="card-group card-group-cols-2">\n<a class="card" href="/docs/quickstart">\n<strong class="card-title">A</strong>\n</a>\n</div>\n',
      ],
      [
        '<Steps> and <Step title>, a fence indented inside',
        '<Steps>\n  <Step title="Install">\n    Run:\n    ```bash\n    npm i\n    ```\n  </Step>\n  <Step title="Use">\n    Done.\n  </Step>\n</Steps>',
        '<ol class="steps">\n<li class="steps-item">\n<strong class="steps-title">Install</strong>\n<p>Run:</p>\n<pre><code class="hljs language-bash">npm i\n</code></pre>\n</li>\n' +
          '<li class="steps-item">\n<strong class="steps-title">Use</strong>\n<p>Done.</p>\n</li>\n</ol>\n',
      ],
      [
        '<CodeGroup>',
        '<CodeGroup>\n```js a.js\n1\n```\n</CodeGroup>',
        '<div class="code-group">\n<pre title="a.js"><code class="hljs language-js"><span class="hljs-number">1</span>\n</code></pre>\n</div>\n',
      ],
      [
        '<Accordion title>',
        '<Accordion title="FAQ">\nAnswer.\n</Accordion>',
        '<details class="accordion">\n<summary>FAQ</summary>\n<p>Answer.</p>\n</details>\n',
      ],
      [
        '<Accordion defaultOpen>',
        '<Accordion title="FAQ" defaultOpen>\nAnswer.\n</Accordion>',
        '<details class="accordion" open>\n<summary>FAQ</summary>\n<p>Answer.</p>\n</details>\n',
      ],
      [
        'an unknown component: tags dropped, content kept',
        '<Mermaid caption="c">\n  ![x](/x.png)\n</Mermaid>',
        '<p><img alt="x" src="/x.png" /></p>\n',
      ],
      ['an unknown inline component', 'Hover <Glossary tip="t">here</Glossary> now.', '<p>Hover here now.</p>\n'],
      ['an unknown self-closing component', '<Snippet file="a.mdx" />after', '<p>after</p>\n'],
      [
        'an indented fence inside an unknown component',
        '<Outer>\n  <Inner title="npm">\n    ```bash\n    npm i\n    ```\n  </Inner>\n</Outer>',
        '<pre><code class="hljs language-bash">npm i\n</code></pre>\n',
      ],
      ['an unclosed component is dropped', '<Note>\nunclosed', '<p>unclosed</p>\n'],
      ['a stray closing tag is dropped', '</Note>\nstray', '<p>stray</p>\n'],
      [
        'top-level import and export blocks are dropped',
        'import { X } from "y"\nexport const meta = {\n  a: 1\n}\n\nText',
        '<p>Text</p>\n',
      ],
      [
        'a paragraph line that starts with "export" is prose',
        'We\nexport data daily.',
        '<p>We\nexport data daily.</p>\n',
      ],
      [
        'components nest up to 16 deep; deeper tags are dropped',
        `${'<Note>'.repeat(17)}x${'</Note>'.repeat(17)}`,
        `${`${callout('Note')}\n`.repeat(16)}<p>x</p>\n${'</div></aside>\n'.repeat(16)}`,
      ],
      ['MDX comments are dropped', 'one {/* hidden */} two', '<p>one  two</p>\n'],
      ['JSX expressions are left as text', 'Value: {1 + 1}', '<p>Value: {1 + 1}</p>\n'],
      [
        'components inside code are text',
        '```mdx\n<Note>x</Note>\n```',
        '<pre><code class="hljs language-mdx">&lt;Note&gt;x&lt;/Note&gt;\n</code></pre>\n',
      ],
    ]),
  )('%s', (_name, page, expected) => {
    expect(html(page)).toBe(expected)
  })
})

describe('hostile pages: nothing that runs script survives, the harmless text does', () => {
  test.each(HOSTILE_PAGES.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    const output = render(row.page).html
    expect(unsafeParts(output)).toEqual([])
    const text = visibleText(output)
    for (const kept of row.keep ?? []) expect(text).toContain(kept)
  })

  test('a nonce-looking placeholder written by the author stays text', () => {
    const first = render('<Card title="A" icon="rocket" />').html
    const second = render('<Card title="A" icon="rocket" />').html
    expect(first).toBe(second)
    expect(html('n0123456789abcdef0123456789abcdefi0')).toBe('<p>n0123456789abcdef0123456789abcdefi0</p>\n')
  })
})

describe('the safety check flags what it must (so the rows above can fail)', () => {
  test.each([
    ['a script element', '<p>x</p><script>alert(1)</script>', 'a script tag'],
    ['an event handler', '<img src="x" onerror="alert(1)">', 'event handler onerror on <img>'],
    ['an entity-hidden javascript: href', '<a href="jav&#x09;ascript:alert(1)">x</a>', 'script URL in href'],
    ['a percent-encoded javascript: href', '<a href="%6A%61%76%61script:alert(1)">x</a>', 'script URL in href'],
    ['a data:text/html href', '<a href="data:text/html,x">x</a>', 'script URL in href'],
    ['an SVG data: src', '<img src="data:image/svg+xml,x">', 'data URL in src on <img>'],
    ['an iframe from elsewhere', '<iframe srcdoc="x" sandbox=""></iframe>', '<iframe> from undefined'],
    ['an unsandboxed video frame', '<iframe src="https://www.youtube.com/embed/x"></iframe>', '<iframe> not sandboxed'],
    ['a style attribute', '<p style="color:red">x</p>', 'attribute style on <p>'],
    ['an id outside the headings', '<p id="config">x</p>', 'id on <p>'],
    ['a class outside the vocabulary', '<p class="admin-only">x</p>', 'class admin-only on <p>'],
  ] as const)('%s', (_name, markup, problem) => {
    expect(unsafeParts(markup).join('\n')).toContain(problem)
  })

  test('and passes the markup the renderer writes', () => {
    expect(
      unsafeParts(
        html('## Hi\n\n<Note>[a](/quickstart) ![i](data:image/gif;base64,R0lGOD==)</Note>\n\n```ts\nclass A {}\n```'),
      ),
    ).toEqual([])
  })
})

describe('never throws, stays fast on pathological pages', () => {
  test.each([
    ['empty', ''],
    ['unclosed tags and fences', '<Note><Card title="x\n```\n<div'],
    ['unclosed braces in props', '<Card title={'.repeat(20_000)],
    ['unmatched backtick runs', Array.from({ length: 1500 }, (_, index) => '`'.repeat(index + 1)).join(' ')],
    ['thousands of identical headings', '## Same\n\n'.repeat(5000)],
    ['deeply nested components', `${'<Note>'.repeat(3000)}x${'</Note>'.repeat(3000)}`],
    ['thousands of stray closing tags', `${'<Note>'.repeat(20_000)}${'</Tip>'.repeat(20_000)}`],
    ['deeply nested quotes', `${'> '.repeat(5000)}x`],
  ])('%s', (_name, page) => {
    const started = performance.now()
    expect(() => render(page)).not.toThrow()
    expect(performance.now() - started).toBeLessThan(3000)
  })
})
