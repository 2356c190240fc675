import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseFrontMatter } from '../../src/docs-format/front-matter'
import { renderMarkdown } from '../../src/docs-site/markdown'
import { unsafeParts, visibleText } from './html-safety'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * Mintlify's components as Mintlify shows them (issue #27 §3): each keeps what it says (titles, labels, names,
 * types, dates, captions, tips), in markup the stylesheet and the page script know, through the sanitiser.
 */

const render = (page: string) =>
  renderMarkdown(page, { pageHref: (path) => (path === '/quickstart' ? '/docs/quickstart' : undefined) }).html
/** Icon path data is long and not the point of these rows. */
const html = (page: string) => render(page).replace(/<path d="[^"]*"\/>/g, '<path/>')
const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512" fill="currentColor" aria-hidden="true"><path/></svg>'

type Row = [name: string, page: string, fragments: string[]]

describe('each component renders what it says', () => {
  test.each<Row>([
    [
      'Tabs: one panel per Tab under its title (the script makes the row of tabs)',
      '<Tabs>\n  <Tab title="npm">\n    ```bash\n    npm i\n    ```\n  </Tab>\n  <Tab title="Yarn" icon="leaf">\n    yarn add\n  </Tab>\n</Tabs>',
      [
        '<div class="tab-group">\n<div class="tab-panel"><p class="tab-title">npm</p>\n<pre><code class="hljs language-bash">',
        `<div class="tab-panel"><p class="tab-title"><span class="tab-icon">${SVG}</span>Yarn</p>\n<p>yarn add</p>\n</div>\n</div>`,
      ],
    ],
    [
      'Tabs sync={false}: marked, so the page script leaves it out of syncing',
      '<Tabs sync={false}>\n<Tab title="A">\na\n</Tab>\n</Tabs>',
      ['<div class="tab-group tab-group-unsynced">\n<div class="tab-panel"><p class="tab-title">A</p>'],
    ],
    [
      'CodeGroup: each block keeps its label',
      '<CodeGroup>\n```bash npm\nnpm i\n```\n```bash Yarn\nyarn add\n```\n</CodeGroup>',
      ['<div class="code-group">\n<pre title="npm">', '<pre title="Yarn">'],
    ],
    [
      'ParamField: name, where it goes, type, required and default',
      '<ParamField query="limit" type="integer" default="20" required>\n  How many.\n</ParamField>',
      [
        '<div class="field"><p class="field-head"><code class="field-name">limit</code> <span class="field-location">query</span> ' +
          '<span class="field-type">integer</span> <span class="field-required">required</span> ' +
          '<span class="field-default">default: <code>20</code></span></p><div class="field-body">\n<p>How many.</p>\n</div></div>',
      ],
    ],
    [
      'ResponseField with an Expandable of nested fields',
      '<ResponseField name="user" type="User" deprecated>\n  <Expandable title="properties">\n    <ResponseField name="id" type="string" required />\n  </Expandable>\n</ResponseField>',
      [
        '<code class="field-name">user</code> <span class="field-type">User</span> <span class="field-deprecated">deprecated</span>',
        '<details class="expandable">\n<summary>Show properties</summary>',
        '<code class="field-name">id</code> <span class="field-type">string</span> <span class="field-required">required</span>',
      ],
    ],
    [
      'Update: its label (the date), description and tags',
      '<Update label="2024-10-11" description="v0.1.0" tags={["Mintlify", "API"]}>\n  Shipped.\n</Update>',
      [
        '<div class="update"><p class="update-meta"><span class="update-label">2024-10-11</span>' +
          '<span class="update-description">v0.1.0</span><span class="update-tags">Mintlify, API</span></p>',
        '<p>Shipped.</p>',
      ],
    ],
    [
      'Tooltip: inline, its headline and tip as the title',
      'An <Tooltip headline="API" tip="Application Programming Interface">API</Tooltip> call.',
      ['<p>An <abbr class="tooltip" title="API: Application Programming Interface">API</abbr> call.</p>'],
    ],
    [
      'Frame: the caption as Markdown in a figcaption, and the hint',
      '<Frame caption="See [the guide](/quickstart)." hint="Read first">\n  ![Park](https://x.example/p.png)\n</Frame>',
      [
        '<p class="frame-hint">Read first</p>',
        '<figure class="frame">\n<p><img alt="Park" src="https://x.example/p.png" /></p>\n<figcaption>\n<p>See <a href="/docs/quickstart">the guide</a>.</p>\n</figcaption></figure>',
      ],
    ],
    [
      'Icon: inline, in its paragraph',
      'A <Icon icon="leaf" /> leaf.',
      [`<p>A <span class="icon-inline">${SVG}</span> leaf.</p>`],
    ],
    [
      'callouts: each its own class and icon',
      '<Warning>careful</Warning>\n\n<Check>done</Check>',
      [
        '<aside class="callout callout-warning" role="note" aria-label="Warning"><span class="callout-icon"><svg',
        'callout-check',
      ],
    ],
    [
      'Steps with titles',
      '<Steps>\n  <Step title="Install">\n    Run it.\n  </Step>\n</Steps>',
      ['<ol class="steps">\n<li class="steps-item">\n<strong class="steps-title">Install</strong>\n<p>Run it.</p>'],
    ],
    [
      'AccordionGroup of Accordions with a description',
      '<AccordionGroup>\n  <Accordion title="Q" description="more">\n    A.\n  </Accordion>\n</AccordionGroup>',
      [
        '<div class="accordion-group">\n<details class="accordion">\n<summary>Q <span class="accordion-description">more</span></summary>\n<p>A.</p>\n</details>\n</div>',
      ],
    ],
    [
      'Card horizontal, with an image',
      '<Card title="Park" img="https://x.example/p.png" horizontal href="/quickstart">\n  Visit.\n</Card>',
      [
        '<a class="card card-horizontal" href="/docs/quickstart">\n<img alt="" class="card-img" src="https://x.example/p.png" />' +
          '<strong class="card-title">Park</strong>\n<p>Visit.</p>\n</a>',
      ],
    ],
    [
      'Card with a JSX icon: the SVG expression is dropped, never printed',
      `<CardGroup cols={2}>\n  <Card title="Custom" icon={<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="${'M1 1L2 2'.repeat(400)}"/></svg>}>\n    Body.\n  </Card>\n</CardGroup>`,
      [
        '<div class="card-group card-group-cols-2">\n<div class="card">\n<strong class="card-title">Custom</strong>\n<p>Body.</p>\n</div>\n</div>',
      ],
    ],
    [
      'a YouTube iframe: kept, sandboxed, lazy',
      '<iframe width="560" height="315" src="https://www.youtube.com/embed/4KzFe50RQkQ" title="Demo" allowFullScreen />\n\nafter',
      [
        '<iframe src="https://www.youtube.com/embed/4KzFe50RQkQ" title="Demo" sandbox="allow-scripts allow-same-origin allow-presentation allow-popups" loading="lazy"',
        '</iframe>\n<p>after</p>',
      ],
    ],
    [
      'a Loom and a Vimeo iframe',
      '<iframe src="https://www.loom.com/embed/abc"></iframe>\n\n<iframe src="https://player.vimeo.com/video/1"></iframe>',
      ['src="https://www.loom.com/embed/abc"', 'src="https://player.vimeo.com/video/1"'],
    ],
  ])('%s', (_name, page, fragments) => {
    const output = html(page)
    for (const fragment of fragments) expect(output).toContain(fragment)
    expect(unsafeParts(render(page))).toEqual([])
  })
})

describe('iframes from anywhere else are removed with what they held', () => {
  test.each([
    ['another host', '<iframe src="https://evil.example/embed/x">inside</iframe>after'],
    ['a YouTube page that is not an embed', '<iframe src="https://www.youtube.com/watch?v=x"></iframe>after'],
    ['a lookalike host', '<iframe src="https://www.youtube.com.evil.example/embed/x"></iframe>after'],
    ['plain http', '<iframe src="http://www.youtube.com/embed/x"></iframe>after'],
    ['srcdoc', '<iframe srcdoc="<script>alert(1)</script>"></iframe>after'],
    ['self-closed, from elsewhere', '<iframe src="https://evil.example/x" />\n\nafter'],
  ])('%s', (_name, page) => {
    const output = render(page)
    expect(output).not.toContain('<iframe')
    expect(visibleText(output).trim()).toBe('after')
  })
})

/** Mintlify's own component pages (tests/fixtures/mintlify-components, MIT): what each must show. */
const FIXTURES: [file: string, shown: string[]][] = [
  ['tabs.mdx', ['First tab', 'Second tab', 'Third tab']],
  ['code-groups.mdx', ['helloWorld.js', 'HelloWorld.java']],
  ['fields.mdx', ['param', 'required', 'deprecated']],
  ['update.mdx', ['2024-10-11', 'v0.1.0']],
  ['tooltips.mdx', ['Application Programming Interface']],
  ['frames.mdx', ['Yosemite National Park is visited by over 3.5 million people every year.']],
  [
    'callouts.mdx',
    ['callout-note', 'callout-warning', 'callout-info', 'callout-tip', 'callout-check', 'callout-danger'],
  ],
  ['cards.mdx', ['card-horizontal', 'card-img', 'Horizontal card']],
  ['expandables.mdx', ['Show properties', 'full_name']],
  ['accordions.mdx', ['accordion-group']],
  ['steps.mdx', ['steps-title']],
]

describe("Mintlify's component pages keep their labels, and no component tag is left as text", () => {
  test.each(FIXTURES)('%s', (file, shown) => {
    const text = readFileSync(join(import.meta.dir, '../fixtures/mintlify-components', file), 'utf8')
    const output = render(parseFrontMatter(text).body)
    for (const label of shown) expect(output).toContain(label)
    expect(unsafeParts(output)).toEqual([])
    // Code samples show component tags on purpose (escaped inside <pre>); prose never does.
    const prose = visibleText(output.replace(/<pre[^]*?<\/pre>/g, '').replace(/<code>[^<]*<\/code>/g, ''))
    expect(prose).not.toMatch(/(^|\s)<[A-Z][A-Za-z]+[\s/>]/)
  })
})
