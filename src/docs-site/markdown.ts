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
const LANGUAGE_NAME = /^[a-z0-9_+#.-]{1,32}$/

/** `<pre><code class="hljs language-x">`, highlighted when the language is known, escaped text otherwise. */
function highlightFence(code: string, language: string, attributes: string): string {
  const name = language.toLowerCase()
  const className = LANGUAGE_NAME.test(name) ? `hljs language-${name}` : 'hljs'
  // Mintlify's info string puts a title after the language ("```js index.js {2}"): kept as the block's title.
  // `[^{}]`, not `[^}]`: a line of unclosed braces would otherwise be scanned to its end from each one.
  const title = attributes.replace(/\{[^{}]*\}/g, '').trim()
  let body = escapeHtml(code)
  if (name !== '' && hljs.getLanguage(name) !== undefined) {
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
  md.core.ruler.push('trellis_decorate', decorate)
  return md
}

/**
 * Renders a page body to sanitised HTML and its table of contents.
 *
 * @example
 * renderMarkdown('## Install\n\nSee [the quickstart](/quickstart#run).', { pageHref: (path) => `/docs${path}` })
 * // { html: '<h2 id="install">Install</h2>\n<p>See <a href="/docs/quickstart#run">the quickstart</a>.</p>\n',
 * //   headings: [{ level: 2, id: 'install', text: 'Install' }] }
 */
export function renderMarkdown(body: string, options: MarkdownOptions): RenderedMarkdown {
  const nonce = `n${crypto.randomUUID().replaceAll('-', '')}`
  const { markdown, icons } = lowerMdx(body, `${nonce}i`)
  const env: RenderEnv = { nonce, headings: [], ids: new Set(LAYOUT_IDS), nextSuffix: new Map() }
  const html = sanitizePage(markdownIt().render(markdown, env), {
    pageHref: options.pageHref,
    imageSrc: options.imageSrc,
    idNonce: nonce,
  })
  if (icons.length === 0) return { html, headings: env.headings }
  // Icons go in after sanitising (the allowlist has no SVG); their placeholders carry the nonce, so an author cannot
  // place one.
  const withIcons = html.replace(new RegExp(`${nonce}i(\\d+)`, 'g'), (_, index: string) => {
    const icon = icons[Number(index)]
    return icon === undefined ? '' : iconSvg(icon.name, icon.iconType)
  })
  return { html: withIcons, headings: env.headings }
}
