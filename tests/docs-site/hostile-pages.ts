/**
 * Pages a hostile `docs:write` author could store, one vector each. Rendered, none may leave anything
 * that runs script (tests/docs-site/markdown.test.ts checks the markup, markdown-browser.test.ts runs
 * them in Chromium); `keep` is the harmless text around the vector that must still reach the reader.
 */
export interface HostilePage {
  name: string
  page: string
  keep?: string[]
}

export const HOSTILE_PAGES: HostilePage[] = [
  // Script elements
  { name: 'script element', page: '<script>alert(1)</script>Hello', keep: ['Hello'] },
  {
    name: 'SCRIPT in capitals (not taken for an MDX component)',
    page: '<SCRIPT>alert(1)</SCRIPT>Hello',
    keep: ['Hello'],
  },
  {
    name: 'ScRiPt in mixed case, inline, with a src',
    page: 'Hello <ScRiPt src="//evil.example/x.js"></ScRiPt> world',
    keep: ['Hello', 'world'],
  },
  { name: 'script with a newline before >', page: '<script\n>alert(1)</script\n>Hello', keep: ['Hello'] },
  { name: 'script split by a nested tag', page: '<scr<script>ipt>alert(1)</scr</script>ipt>' },
  { name: 'script behind a doubled <', page: '<<script>script>alert(1)<</script>/script>' },
  { name: 'script inside a fence info string', page: '```"><script>alert(1)</script>\ncode\n```', keep: ['code'] },
  // Event handlers
  { name: 'img onerror', page: 'Look: <img src=x onerror=alert(1)> here', keep: ['Look:', 'here'] },
  { name: 'img ONERROR in capitals, quoted', page: '<img src="x" ONERROR="alert(1)" alt="cat">' },
  { name: 'svg onload', page: '<svg onload=alert(1)><circle/></svg>text', keep: ['text'] },
  { name: 'script inside svg', page: '<svg><script>alert(1)</script></svg>after', keep: ['after'] },
  {
    name: 'details ontoggle',
    page: '<details open ontoggle=alert(1)><summary>More</summary>Inside</details>',
    keep: ['More', 'Inside'],
  },
  {
    name: 'table cell onmouseover and background',
    page: '<table><tr><td background="javascript:alert(1)" onmouseover="alert(1)">cell</td></tr></table>',
    keep: ['cell'],
  },
  {
    name: 'MDX component with an onClick prop',
    page: '<Note onClick={() => alert(1)}>Careful</Note>',
    keep: ['Careful'],
  },
  {
    name: 'MDX component with an onClick string prop',
    page: '<Step title="One" onClick="alert(1)">Do it</Step>',
    keep: ['Do it'],
  },
  // Frames, objects, forms and document-level elements
  { name: 'iframe srcdoc', page: '<iframe srcdoc="<script>alert(1)</script>"></iframe>after', keep: ['after'] },
  {
    name: 'iframe with a javascript: src',
    page: 'before <iframe src="javascript:alert(1)"></iframe>',
    keep: ['before'],
  },
  {
    name: 'object data and embed src',
    page: '<object data="javascript:alert(1)">fallback</object><embed src="javascript:alert(1)">',
    keep: ['fallback'],
  },
  {
    name: 'form action and button formaction',
    page: '<form action="javascript:alert(1)"><button formaction="javascript:alert(1)">Go</button><input name="q"></form>',
    keep: ['Go'],
  },
  {
    name: 'meta refresh to javascript:',
    page: '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">text',
    keep: ['text'],
  },
  {
    name: 'base href and stylesheet link',
    page: '<base href="javascript:alert(1)//"><link rel=stylesheet href="javascript:alert(1)">text',
    keep: ['text'],
  },
  {
    name: 'style element with url(javascript:)',
    page: '<style>body{background:url("javascript:alert(1)")}</style>visible',
    keep: ['visible'],
  },
  {
    name: 'style attribute with url(javascript:)',
    page: '<p style="background:url(javascript:alert(1))">styled</p>',
    keep: ['styled'],
  },
  {
    name: 'style attribute with expression()',
    page: '<div style="width: expression(alert(1))">old IE</div>',
    keep: ['old IE'],
  },
  // javascript: and other script URLs, in every link syntax
  { name: 'markdown link to javascript:', page: '[click](javascript:alert(1))', keep: ['click'] },
  { name: 'markdown link to JaVaScRiPt:', page: '[click](JaVaScRiPt:alert(1))', keep: ['click'] },
  {
    name: 'reference-style link to javascript:',
    page: '[click][evil]\n\n[evil]: javascript:alert(1)',
    keep: ['click'],
  },
  { name: 'autolink to javascript:', page: '<javascript:alert(1)>' },
  { name: 'markdown link with an entity-hidden tab', page: '[click](jav&#x09;ascript:alert(1))', keep: ['click'] },
  {
    name: 'markdown link with a percent-encoded scheme',
    page: '[click](%6A%61%76%61script:alert(1))',
    keep: ['click'],
  },
  { name: 'html a href javascript:', page: '<a href="javascript:alert(1)">click</a>', keep: ['click'] },
  { name: 'html a href with an entity tab', page: '<a href="jav&#x09;ascript:alert(1)">click</a>', keep: ['click'] },
  { name: 'html a href with a decimal entity', page: '<a href="&#106;avascript:alert(1)">click</a>', keep: ['click'] },
  {
    name: 'html a href fully hex-encoded',
    page: '<a href="&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1)">click</a>',
    keep: ['click'],
  },
  { name: 'html a href with &colon;', page: '<a href="javascript&colon;alert(1)">click</a>', keep: ['click'] },
  {
    name: 'html a href behind leading control characters',
    page: '<a href=" &#14; javascript:alert(1)">click</a>',
    keep: ['click'],
  },
  {
    name: 'html a href with a newline in the scheme',
    page: '<a href="java\nscript:alert(1)">click</a>',
    keep: ['click'],
  },
  { name: 'html a href vbscript:', page: '<a href="vbscript:msgbox(1)">click</a>', keep: ['click'] },
  {
    name: 'html a href data:text/html',
    page: '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">click</a>',
    keep: ['click'],
  },
  { name: 'markdown link to data:text/html', page: '[click](data:text/html,<script>alert(1)</script>)' },
  {
    name: 'Card with a javascript: href',
    page: '<Card title="Evil" href="javascript:alert(1)">body</Card>',
    keep: ['Evil', 'body'],
  },
  {
    name: 'Card with an entity-hidden javascript: href',
    page: '<Card title="Evil" href="jav&#x09;ascript:alert(1)" />',
    keep: ['Evil'],
  },
  { name: 'svg a with xlink:href', page: '<svg><a xlink:href="javascript:alert(1)"><text>click</text></a></svg>' },
  { name: 'MathML with an href', page: '<math href="javascript:alert(1)">CLICKME</math>' },
  // Images
  { name: 'markdown image with a javascript: src', page: '![cat](javascript:alert(1))' },
  { name: 'html img with a javascript: src', page: '<img src="javascript:alert(1)" alt="pic">' },
  { name: 'img with an SVG data: src', page: '<img src="data:image/svg+xml,<svg onload=alert(1)>" alt="pic">' },
  { name: 'img srcset with javascript:', page: '<img srcset="javascript:alert(1) 1x" src="ok.png">' },
  { name: 'img that evals its own src', page: '<img src=x:alert(alt) onerror=eval(src) alt=0>' },
  // Attribute breaking
  {
    name: 'quotes breaking out of a link title',
    page: '[x](https://ok.example "title\\" onmouseover=\\"alert(1)")',
    keep: ['x'],
  },
  {
    name: 'quotes breaking out of an html title',
    page: `<a href="https://ok.example" title='x" onmouseover="alert(1)'>link</a>`,
    keep: ['link'],
  },
  { name: 'script in a Card title', page: `<Card title='"><script>alert(1)</script>' href="/x" />` },
  { name: 'img in an Accordion title', page: '<Accordion title="<img src=x onerror=alert(1)>">x</Accordion>' },
  // Parser differentials (mutation XSS) and comments
  {
    name: 'MathML style confusion',
    page: '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>after',
    keep: ['after'],
  },
  {
    name: 'noscript closed inside an attribute',
    page: '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
  },
  { name: 'template content', page: '<template><img src=x onerror=alert(1)></template>' },
  { name: 'xmp raw text', page: '<xmp><img src=x onerror=alert(1)></xmp>' },
  { name: 'textarea raw text', page: '<textarea><img src=x onerror=alert(1)></textarea>' },
  { name: 'comment closed early by <!-->', page: '<!--><img src=x onerror=alert(1)>-->' },
  { name: 'comment closed by --!>', page: 'a <!-- --!><img src=x onerror=alert(1)> --> b', keep: ['a', 'b'] },
  { name: 'MDX comment hiding a script', page: 'one {/* <script>alert(1)</script> */} two', keep: ['one', 'two'] },
  // DOM clobbering
  {
    name: 'author ids and names',
    page: '<h2 id="location">Clobber</h2><img name="cookie" src="x"><form id="config">f</form><a name="x" id="y">a</a>',
    keep: ['Clobber'],
  },
  {
    name: 'data and unknown attributes',
    page: '<div class="x" data-foo="javascript:alert(1)" contenteditable>text</div>',
    keep: ['text'],
  },
]
