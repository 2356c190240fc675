import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { renderMarkdown } from '../../src/docs-site/markdown'
import { expandSnippets } from '../../src/docs-site/snippets'
import { unsafeParts } from './html-safety'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * Components, embeds and snippet props written to get script onto a page: iframe hosts that only look like the
 * allowed ones, script URLs in component props, markup in titles and captions. None may leave anything that runs
 * (see html-safety.ts for what counts).
 */

const PAGES = [
  '<iframe src="https://www.youtube.com.evil.example/embed/x"></iframe>',
  '<iframe src="https://www.youtube.com@evil.example/embed/x"></iframe>',
  '<iframe src="//www.youtube.com/embed/x"></iframe>',
  '<iframe src="https://www.youtube.com/embed/x/../../../evil"></iframe>',
  '<iframe src="https://www.youtube.com/embed/%2F%2Fevil.example"></iframe>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>" src="https://www.youtube.com/embed/x"></iframe>',
  '<iframe src="https://www.youtube.com/embed/x" sandbox="allow-top-navigation allow-scripts allow-same-origin"></iframe>',
  '<Card title="x" href="javascript:alert(1)">y</Card>',
  '<Card title="x" img="javascript:alert(1)">y</Card>',
  '<Card title={"x\\" onmouseover=\\"alert(1)"}>y</Card>',
  '<Tooltip tip="&quot; onmouseover=&quot;alert(1)">y</Tooltip>',
  '<Icon icon="https://evil.example/x.svg" />',
  '<Icon icon="javascript:alert(1)" />',
  '<Frame caption="<script>alert(1)</script>">x</Frame>',
  '<Accordion title="<img src=x onerror=alert(1)>">x</Accordion>',
  '<Card title="a" href="  java\tscript:alert(1)">y</Card>',
  '<Card title="a" href="data:text/html,<script>alert(1)</script>">y</Card>',
  '<Update label="<script>x</script>" description="<b onclick=alert(1)>x</b>">x</Update>',
  '<ParamField path="<img src=x onerror=alert(1)>" type="<svg onload=alert(1)>">x</ParamField>',
  '<CodeGroup>\n```js title="<script>alert(1)</script>"\nx\n```\n</CodeGroup>',
  '<Video src="javascript:alert(1)" />',
  '<video src="javascript:alert(1)"></video>',
  '<img src="x" style="background:url(javascript:alert(1))" />',
]

describe('components and embeds', () => {
  test.each(PAGES)('%s', (page) => {
    expect(unsafeParts(renderMarkdown(page, { pageHref: () => undefined }).html)).toEqual([])
  })
})

describe('props of a snippet component', () => {
  const SNIPPETS: Record<string, string> = {
    'snippets/c.jsx': 'export const C = ({ x, y }) => <a href={x} title={y}>{y}</a>',
  }
  const PROPS = [
    'x="javascript:alert(1)" y="ok"',
    'x="https://ok.example" y="&quot;><script>alert(1)</script>"',
    'x={"javascript:alert(1)"} y={`${1}`}',
    `x='" onmouseover=alert(1) a="' y='z'`,
  ]
  test.each(PROPS)('%s', async (props) => {
    const body = await expandSnippets(
      `import { C } from '/snippets/c.jsx'\n\n<C ${props} />`,
      'p',
      async (path) => SNIPPETS[path],
      4 * 1024 * 1024,
    )
    expect(body).toContain('<a ')
    expect(unsafeParts(renderMarkdown(body, { pageHref: () => undefined }).html)).toEqual([])
  })
})
