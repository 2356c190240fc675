import hljs from 'highlight.js/lib/core'
import bash from 'highlight.js/lib/languages/bash'
import css from 'highlight.js/lib/languages/css'
import diff from 'highlight.js/lib/languages/diff'
import go from 'highlight.js/lib/languages/go'
import http from 'highlight.js/lib/languages/http'
import java from 'highlight.js/lib/languages/java'
import javascript from 'highlight.js/lib/languages/javascript'
import json from 'highlight.js/lib/languages/json'
import plaintext from 'highlight.js/lib/languages/plaintext'
import python from 'highlight.js/lib/languages/python'
import rust from 'highlight.js/lib/languages/rust'
import shell from 'highlight.js/lib/languages/shell'
import sql from 'highlight.js/lib/languages/sql'
import typescript from 'highlight.js/lib/languages/typescript'
import xml from 'highlight.js/lib/languages/xml'
import yaml from 'highlight.js/lib/languages/yaml'
import type { default as MarkdownIt, StateCore, Token } from 'markdown-it'
import { escapeHtml } from './html'
import { iconSvg } from './icons'
import { lowerMdx } from './markdown-components'
import { sanitizePage } from './markdown-sanitize'

/**
 * A docs page body (Markdown or Mintlify MDX, front matter already removed) rendered to safe HTML,
 * with the h2–h4 headings listed for a table of contents.
 *
 * The steps: MDX lowered to Markdown with HTML (markdown-components.ts), Markdown rendered by
 * markdown-it (raw HTML allowed, as Mintlify pages use it), fenced code highlighted by highlight.js,
 * then the whole page sanitised against an allowlist (markdown-sanitize.ts): the author of a page is
 * not trusted with its readers' browsers.
 */

interface Heading {
  level: number
  /** The element's id, unique in the page: `#${id}` links to it. */
  id: string
  /** Plain text, not HTML: escape it before putting it into markup. */
  text: string
}

export interface RenderedMarkdown {
  html: string
  headings: Heading[]
}

export interface MarkdownOptions {
  /**
   * The href of a page link: receives the link's path as written (`/quickstart`, `../plants/overview`,
   * percent-decoded, without its `#fragment` or `?query`), returns the URL to use, or undefined to leave
   * the link as written. The fragment and query are appended to what it returns.
   */
  pageHref: (target: string) => string | undefined
  /** The URL of an image named by a path in the repository (see SanitizeContext.imageSrc). */
  imageSrc?: (src: string) => string | undefined
  /** The most bytes of HTML the page may render to (DEFAULT_MAX_PAGE_HTML when unset); past it, PageTooLarge. */
  maxHtml?: number
}

interface RenderEnv {
  nonce: string
  headings: Heading[]
  ids: Set<string>
  nextSuffix: Map<string, number>
}

// A fixed set keeps the compiled binary small; a fence in any other language is shown as plain code.
const LANGUAGES = {
  bash,
  css,
  diff,
  go,
  http,
  java,
  javascript,
  json,
  plaintext,
  python,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
}
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language)

const ID_LEVELS = new Set(['h2', 'h3', 'h4'])
/**
 * A longer block is shown as plain text: highlighting is the slowest step of a render (about 3 ms per KB here) and one
 * block cannot be split, so this bounds how long one block can hold up the server.
 */
const HIGHLIGHT_MAX = 64 * 1024
const LANGUAGE_NAME = /^[a-z0-9_+#.-]{1,32}$/

/** `<pre><code class="hljs language-x">`, highlighted when the language is known, escaped text otherwise. */
function highlightFence(code: string, language: string, attributes: string): string {
  const name = language.toLowerCase()
  const className = LANGUAGE_NAME.test(name) ? `hljs language-${name}` : 'hljs'
  // Mintlify's info string puts a title after the language ("```js index.js {2}"): kept as the block's title.
  // `[^{}]`, not `[^}]`: a line of unclosed braces would otherwise be scanned to its end from each one.
  const title = attributes.replace(/\{[^{}]*\}/g, '').trim()
  let body = escapeHtml(code)
  if (name !== '' && code.length <= HIGHLIGHT_MAX && hljs.getLanguage(name) !== undefined) {
    try {
      body = hljs.highlight(code, { language: name, ignoreIllegals: true }).value
    } catch {
      // A grammar that throws on some input still leaves the code readable as plain text.
    }
  }
  return `<pre${title === '' ? '' : ` title="${escapeHtml(title)}"`}><code class="${className}">${body}</code></pre>`
}

function plainText(inline: Token | undefined): string {
  let text = ''
  for (const child of inline?.children ?? []) {
    if (child.type === 'text' || child.type === 'code_inline') text += child.content
    else if (child.type === 'softbreak' || child.type === 'hardbreak') text += ' '
    else if (child.type === 'image') text += plainText(child)
  }
  return text.replace(/\s+/g, ' ').trim()
}

/** GitHub's anchor for a heading: lower case, punctuation removed, each space a hyphen. */
function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/**
 * Ids the page around the Markdown already uses (the layout's landmarks and controls, an API page's
 * sections and playground): an author's "## Parameters" becomes `parameters-1`, so no id is given twice
 * (aria-labelledby would name the wrong element) and no heading can stand in for a control the script finds by id.
 */
const LAYOUT_IDS = [
  'content',
  'site-nav',
  'nav-toggle',
  'version-select',
  'mode-toggle',
  'parameters',
  'request-body',
  'responses',
  'playground-title',
  'request-title',
]

/**
 * The slug, or the slug with the first free -1, -2… suffix; `nextSuffix` remembers where to resume, so repeats stay
 * linear.
 */
function uniqueSlug(text: string, env: RenderEnv): string {
  const base = slug(text) || 'section'
  let suffix = env.nextSuffix.get(base) ?? 0
  let id = suffix === 0 ? base : `${base}-${suffix}`
  while (env.ids.has(id)) {
    suffix += 1
    id = `${base}-${suffix}`
  }
  env.nextSuffix.set(base, suffix + 1)
  env.ids.add(id)
  return id
}

/** Heading ids (marked with the render's nonce for the sanitiser) and table alignment as `align`, not `style`. */
function decorate(state: StateCore): void {
  const env = state.env as RenderEnv
  state.tokens.forEach((token, index) => {
    if (token.type === 'heading_open' && ID_LEVELS.has(token.tag)) {
      const text = plainText(state.tokens[index + 1])
      const id = uniqueSlug(text, env)
      token.attrSet('id', env.nonce + id)
      env.headings.push({ level: Number(token.tag.slice(1)), id, text })
    } else if (token.type === 'th_open' || token.type === 'td_open') {
      const align = /text-align:(left|center|right)/.exec(token.attrGet('style') ?? '')?.[1]
      token.attrs = align === undefined ? null : [['align', align]]
    }
  })
}

/**
 * `<iframe … />` and `<video … />` as JSX writes them: HTML has no self-closing iframe, so the rest of the page would
 * become the frame's content. `[^<>]` keeps each attempt to the tag itself, so the scan stays linear.
 */
const SELF_CLOSED_MEDIA = /<(iframe|video)\b([^<>]*?)\/>/gi

let md: MarkdownIt | undefined

/**
 * markdown-it is required on the first render, not imported, for the reason given in markdown-sanitize.ts (10 ms here).
 */
function markdownIt(): MarkdownIt {
  if (md !== undefined) return md
  const MarkdownItClass = require('markdown-it') as typeof MarkdownIt
  md = new MarkdownItClass({ html: true, linkify: false, typographer: false, highlight: highlightFence })
  // As in MDX, indentation never makes a code block: component content is indented, and only fences hold code.
  md.disable('code')
  md.core.ruler.disable('inline')
  md.core.ruler.push('trellis_decorate', decorate)
  return md
}

/**
 * The most HTML one page may render to, when the caller does not say (DOCS_MAX_PAGE_HTML): Markdown's reference links
 * repeat their URL at every use, so a small page can name megabytes (a 177 KB page of them rendered to 62 MB).
 */
export const DEFAULT_MAX_PAGE_HTML = 4 * 1024 * 1024
/** How long the yielding render runs before it gives the event loop a turn, where a phase can be split. */
const SLICE_MS = 20

/** The page would render to more HTML than the cap allows; the message says why, in a sentence. */
export class PageTooLarge extends Error {
  override name = 'PageTooLarge'
}

/**
 * The render in phases (MDX lowering, parsing, HTML, sanitising), each a generator step: renderMarkdown runs them
 * back to back, renderMarkdownYielding lets the event loop run between them. Each phase is linear in what it reads,
 * and what it reads is bounded by the cap before the phase starts: the parse's own estimate of the output (every
 * token's text and attributes, so every use of a reference link counts its whole URL) is checked before any HTML is
 * made, and the HTML is checked again after sanitising.
 */
function* phases(body: string, options: MarkdownOptions): Generator<void, RenderedMarkdown> {
  const maxHtml = options.maxHtml ?? DEFAULT_MAX_PAGE_HTML
  const nonce = `n${crypto.randomUUID().replaceAll('-', '')}`
  const { markdown, icons } = lowerMdx(body, `${nonce}i`)
  if (markdown.length > maxHtml) throw new PageTooLarge(`its text with its components is ${size(markdown.length)}`)
  // Each icon is a kilobyte or two of SVG put in after sanitising: counted here, before any of it is made.
  const svgs = icons.map((icon) => iconSvg(icon.name, icon.iconType))
  const iconBytes = svgs.reduce((total, svg) => total + svg.length, 0)
  if (markdown.length + iconBytes > maxHtml) throw new PageTooLarge(`its icons alone are ${size(iconBytes)} of SVG`)
  yield
  const env: RenderEnv = { nonce, headings: [], ids: new Set(LAYOUT_IDS), nextSuffix: new Map() }
  const parser = markdownIt()
  // markdown-it's core rules one by one, the inline parse block by block (its own 'inline' rule is disabled), so
  // that the event loop gets a turn every SLICE_MS.
  const [normalize, block, ...afterInline] = parser.core.ruler.getRules('')
  const state = new parser.core.State(markdown, parser, env)
  normalize!(state)
  block!(state)
  const tokens = state.tokens
  let slice = performance.now()
  for (const token of tokens) {
    if (token.type !== 'inline') continue
    token.children = []
    parser.inline.parse(token.content, parser, env, token.children)
    if (performance.now() - slice > SLICE_MS) {
      yield
      slice = performance.now()
    }
  }
  for (const rule of afterInline) rule(state)
  const estimate = outputEstimate(tokens, maxHtml)
  if (estimate > maxHtml)
    throw new PageTooLarge(
      `its Markdown expands to more than ${size(maxHtml)} (reference links repeat their URL at each use)`,
    )
  yield
  const { renderer } = parser
  let rendered = ''
  slice = performance.now()
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index]!
    const rule = renderer.rules[token.type]
    if (token.type === 'inline') rendered += renderer.renderInline(token.children ?? [], parser.options, env)
    else if (rule !== undefined) rendered += rule(tokens, index, parser.options, env, renderer)
    else rendered += renderer.renderToken(tokens, index, parser.options)
    if (performance.now() - slice > SLICE_MS) {
      yield
      slice = performance.now()
    }
  }
  rendered = rendered.replace(SELF_CLOSED_MEDIA, '<$1$2></$1>')
  if (rendered.length > 2 * maxHtml) throw new PageTooLarge(`its HTML is ${size(rendered.length)} before sanitising`)
  yield
  const html = sanitizePage(rendered, { pageHref: options.pageHref, imageSrc: options.imageSrc, idNonce: nonce })
  // Icons go in after sanitising (the allowlist has no SVG); their placeholders carry the nonce, so an author cannot
  // place one.
  const withIcons =
    icons.length === 0
      ? html
      : html.replace(new RegExp(`${nonce}i(\\d+)`, 'g'), (_, index: string) => svgs[Number(index)] ?? '')
  const bytes = Buffer.byteLength(withIcons)
  if (bytes > maxHtml) throw new PageTooLarge(`it renders to ${size(bytes)} of HTML`)
  return { html: withIcons, headings: env.headings }
}

/** The characters of text and attributes the tokens hold, counted until `stop` is passed. */
function outputEstimate(tokens: Token[], stop: number): number {
  let total = 0
  const visit = (list: Token[]) => {
    for (const token of list) {
      if (total > stop) return
      total += token.content.length + token.tag.length
      for (const [name, value] of token.attrs ?? []) total += name.length + value.length
      if (token.children !== null) visit(token.children)
    }
  }
  visit(tokens)
  return total
}

function size(characters: number): string {
  return characters >= 1024 * 1024
    ? `${(characters / 1024 / 1024).toFixed(1)} MiB`
    : `${Math.ceil(characters / 1024)} KiB`
}

/**
 * Renders a page body to sanitised HTML and its table of contents.
 *
 * @example
 * renderMarkdown('## Install\n\nSee [the quickstart](/quickstart#run).', { pageHref: (path) => `/docs${path}` })
 * // { html: '<h2 id="install">Install</h2>\n<p>See <a href="/docs/quickstart#run">the quickstart</a>.</p>\n',
 * //   headings: [{ level: 2, id: 'install', text: 'Install' }] }
 * @throws PageTooLarge when the HTML would pass `maxHtml`.
 */
export function renderMarkdown(body: string, options: MarkdownOptions): RenderedMarkdown {
  const steps = phases(body, options)
  for (;;) {
    const step = steps.next()
    if (step.done === true) return step.value
  }
}

/**
 * renderMarkdown, giving the event loop a turn between its phases: a large page does not hold up other requests for
 * the whole render, only for its longest phase (measured in BENCHMARKS.md, "Docs page render bound").
 */
export async function renderMarkdownYielding(body: string, options: MarkdownOptions): Promise<RenderedMarkdown> {
  const steps = phases(body, options)
  for (;;) {
    const step = steps.next()
    if (step.done === true) return step.value
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
}
