import type sanitizeHtml from 'sanitize-html'
import { URL_SCHEME } from './html'
import { splitSuffix } from './links'

/**
 * The allowlist a rendered page passes before a reader sees it. Pages are written by `docs:write`
 * tokens and read by everyone, so a hostile author must not be able to run script in a reader's
 * browser (stored XSS), submit forms, load frames, restyle the site or clobber DOM globals. The
 * sanitiser re-serialises what it parsed, so anything it did not allow leaves no markup behind.
 *
 * Policy, beyond the tags and attributes listed below:
 * - href: http, https, mailto and relative URLs; src (images only): http, https, relative, and
 *   `data:image/png|jpeg|gif|webp` (an `<img>` never runs script, and markdown-it accepts exactly these);
 *   not SVG data URLs, which could run script if a reader opened the image on its own.
 * - A scheme is read the way a browser reads it: after decoding entities, ignoring tabs, newlines and
 *   leading control characters, and also after percent-decoding, so `jav&#x09;ascript:` and
 *   `jav%09ascript:` are refused alike.
 * - `id` only on the h2–h4 the renderer itself marked (with the per-render nonce); `name` nowhere.
 * - `class` only from the renderer's vocabulary; no `style`, no event handlers.
 */

/** What one render vouches for: its link resolver and the nonce that marks the heading ids it set. */
export interface SanitizeContext {
  pageHref: (target: string) => string | undefined
  /** The URL of an image the page names by a relative or root-relative path; undefined leaves it as written. */
  imageSrc?: (src: string) => string | undefined
  idNonce: string
}

const ALLOWED_TAGS = [
  'p',
  'br',
  'hr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'ul',
  'ol',
  'li',
  'dl',
  'dt',
  'dd',
  'strong',
  'em',
  'b',
  'i',
  's',
  'del',
  'ins',
  'sub',
  'sup',
  'kbd',
  'mark',
  'code',
  'pre',
  'span',
  'a',
  'img',
  'table',
  'caption',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'th',
  'td',
  'figure',
  'figcaption',
  'aside',
  'div',
  'details',
  'summary',
  'abbr',
  'iframe',
  'video',
  'source',
]

/** Elements whose content is dropped with them: raw text, foreign content, and what a browser parses differently. */
const NON_TEXT_TAGS = [
  'script',
  'style',
  'textarea',
  'option',
  'select',
  'xmp',
  'title',
  'noscript',
  'noembed',
  'noframes',
  'template',
  'svg',
  'math',
]

const ALLOWED_ATTRIBUTES: sanitizeHtml.IOptions['allowedAttributes'] = {
  a: ['href', 'title', 'rel'],
  img: ['src', 'alt', 'title', 'width', 'height'],
  h2: ['id'],
  h3: ['id'],
  h4: ['id'],
  th: ['colspan', 'rowspan', 'align'],
  td: ['colspan', 'rowspan', 'align'],
  ol: ['start'],
  pre: ['title'],
  aside: ['role', 'aria-label'],
  div: ['role', 'aria-label'],
  details: ['open'],
  abbr: ['title'],
  iframe: ['src', 'title', 'width', 'height', 'allow', 'allowfullscreen', 'sandbox', 'loading', 'referrerpolicy'],
  video: ['src', 'controls', 'autoplay', 'muted', 'loop', 'playsinline', 'poster', 'width', 'height'],
  source: ['src', 'type'],
}

/** hljs-* for highlighting, plus the sub-scope classes highlight.js 11 writes on spans ("title class_"). */
const ALLOWED_CLASSES: sanitizeHtml.IOptions['allowedClasses'] = {
  '*': [
    'hljs*',
    'language-*',
    'callout*',
    'card*',
    'steps*',
    'code-group*',
    'tab-*',
    'field*',
    'accordion*',
    'expandable',
    'update*',
    'frame*',
    'panel',
    'tooltip',
    'icon-inline',
    'badge-inline',
  ],
  span: ['hljs*', /^[a-z]+_{1,2}$/],
}

const HREF_SCHEMES = new Set(['http', 'https', 'mailto'])
const SRC_SCHEMES = new Set(['http', 'https'])
const IMAGE_DATA_URL = /^data:image\/(png|jpeg|gif|webp)[;,]/i
const DIGITS = /^\d{1,4}$/

/** The scheme a browser would see, lower-cased, or undefined for a relative URL. */
function schemeOf(url: string): string | undefined {
  const compact = url.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, '')
  return URL_SCHEME.exec(compact)?.[1]?.toLowerCase()
}

function percentDecoded(url: string): string {
  try {
    return decodeURIComponent(url)
  } catch {
    return url
  }
}

/** Whether a URL may stand in an href (or, with `image`, in an img src), read raw and percent-decoded. */
function allowedUrl(url: string, image = false): boolean {
  if (image && schemeOf(url) === 'data') return IMAGE_DATA_URL.test(url.trim())
  const schemes = image ? SRC_SCHEMES : HREF_SCHEMES
  return [url, percentDecoded(url)].every((form) => {
    const scheme = schemeOf(form)
    return scheme === undefined || schemes.has(scheme)
  })
}

function isProtocolRelative(url: string): boolean {
  return /^[\u0000-\u0020]*[/\\][\t\n\r]*[/\\]/.test(url)
}

/**
 * An anchor's href after the policy: a page link (root-relative or relative) resolved through
 * `pageHref` with its fragment and query kept, external links marked, unsafe URLs removed.
 */
function anchorTag(tagName: string, attributes: sanitizeHtml.Attributes, context: SanitizeContext): sanitizeHtml.Tag {
  const attribs: sanitizeHtml.Attributes = {}
  for (const name of ['class', 'title']) if (attributes[name] !== undefined) attribs[name] = attributes[name]
  const written = attributes.href
  if (written === undefined || !allowedUrl(written)) return { tagName, attribs }
  const scheme = schemeOf(written)
  if (scheme !== undefined || isProtocolRelative(written)) {
    attribs.href = written
    if (scheme === undefined || scheme === 'http' || scheme === 'https') attribs.rel = 'noopener noreferrer'
    return { tagName, attribs }
  }
  const [path, suffix] = splitSuffix(written.trim())
  const resolved = path === '' ? undefined : context.pageHref(percentDecoded(path))
  const href = resolved === undefined ? written : resolved + suffix
  if (allowedUrl(href)) attribs.href = href
  return { tagName, attribs }
}

function imageTag(tagName: string, attributes: sanitizeHtml.Attributes, context: SanitizeContext): sanitizeHtml.Tag {
  const attribs: sanitizeHtml.Attributes = {}
  for (const name of ['alt', 'title', 'class']) if (attributes[name] !== undefined) attribs[name] = attributes[name]
  for (const name of ['width', 'height']) if (DIGITS.test(attributes[name] ?? '')) attribs[name] = attributes[name]!
  if (attributes.src !== undefined && allowedUrl(attributes.src, true))
    attribs.src = context.imageSrc?.(attributes.src.trim()) ?? attributes.src
  return { tagName, attribs }
}

/**
 * Drops each named attribute whose value does not match its pattern (sanitize-html's own value lists leave it empty
 * instead).
 */
function valuesMatching(patterns: Record<string, RegExp>): sanitizeHtml.Transformer {
  return (tagName, attributes) => {
    const attribs = { ...attributes }
    for (const [name, pattern] of Object.entries(patterns))
      if (attribs[name] !== undefined && !pattern.test(attribs[name])) delete attribs[name]
    return { tagName, attribs }
  }
}

const cellTag = valuesMatching({ colspan: DIGITS, rowspan: DIGITS, align: /^(left|center|right)$/ })
const listTag = valuesMatching({ start: DIGITS })
const asideTag = valuesMatching({ role: /^note$/ })
const divTag = valuesMatching({ role: /^group$/, 'aria-label': /^(Request|Response)$/ })

/**
 * Video players a page may embed, as Mintlify pages do: the hosts' embed addresses only. The CSP's frame-src names
 * the same hosts (see layout.ts), and each frame is sandboxed: it may run its own player, never navigate this page.
 */
export const FRAME_HOSTS = [
  'https://www.youtube.com',
  'https://www.youtube-nocookie.com',
  'https://player.vimeo.com',
  'https://www.loom.com',
]
const FRAME_SOURCE =
  /^https:\/\/(?:(?:www\.)?youtube(?:-nocookie)?\.com\/embed\/|player\.vimeo\.com\/video\/|(?:www\.)?loom\.com\/embed\/)[\w/?&=.%+-]*$/

/** Whether an iframe's src is an embed address of an allowed video host. */
function allowedFrame(src: string | undefined): boolean {
  return src !== undefined && FRAME_SOURCE.test(src.trim())
}

const frameTag: sanitizeHtml.Transformer = (tagName, attributes) => {
  if (!allowedFrame(attributes.src)) return { tagName, attribs: {} }
  const src = attributes.src!.trim().replace(/^https:\/\/(youtube|loom)/, 'https://www.$1')
  const attribs: sanitizeHtml.Attributes = {
    src,
    title: attributes.title ?? 'Embedded video',
    sandbox: 'allow-scripts allow-same-origin allow-presentation allow-popups',
    loading: 'lazy',
    referrerpolicy: 'strict-origin-when-cross-origin',
    allow: 'fullscreen; picture-in-picture; encrypted-media',
  }
  if (attributes.allowfullscreen !== undefined) attribs.allowfullscreen = ''
  for (const name of ['width', 'height']) if (DIGITS.test(attributes[name] ?? '')) attribs[name] = attributes[name]!
  return { tagName, attribs }
}

/** A video's or its source's src: http(s) or a path of the site, as an image's. */
const mediaTag: sanitizeHtml.Transformer = (tagName, attributes) => {
  const attribs = { ...attributes }
  for (const name of ['src', 'poster'])
    if (attribs[name] !== undefined && (!allowedUrl(attribs[name], true) || schemeOf(attribs[name]) === 'data'))
      delete attribs[name]
  return { tagName, attribs }
}

let sanitizer: typeof sanitizeHtml | undefined

/**
 * sanitize-html (with the postcss it loads) takes about 30 ms to evaluate, so it is required on the first
 * render rather than imported at server start; the literal keeps it embedded by `bun build --compile`.
 */
function loadSanitizer(): typeof sanitizeHtml {
  sanitizer ??= require('sanitize-html') as typeof sanitizeHtml
  return sanitizer
}

/** Sanitised HTML of a rendered page (see the policy above). */
export function sanitizePage(html: string, context: SanitizeContext): string {
  // Only the ids the renderer set carry the nonce an author cannot know; any other id is the author's.
  const headingTag: sanitizeHtml.Transformer = (tagName, attributes) => {
    const id = attributes.id
    const attribs: sanitizeHtml.Attributes = id?.startsWith(context.idNonce)
      ? { id: id.slice(context.idNonce.length) }
      : {}
    return { tagName, attribs }
  }
  return loadSanitizer()(html, {
    allowedTags: ALLOWED_TAGS,
    allowedAttributes: ALLOWED_ATTRIBUTES,
    allowedClasses: ALLOWED_CLASSES,
    nonTextTags: NON_TEXT_TAGS,
    allowedSchemes: [...HREF_SCHEMES],
    allowedSchemesByTag: { img: [...SRC_SCHEMES, 'data'] },
    allowProtocolRelative: true,
    disallowedTagsMode: 'discard',
    transformTags: {
      a: (tagName, attributes) => anchorTag(tagName, attributes, context),
      img: (tagName, attributes) => imageTag(tagName, attributes, context),
      h2: headingTag,
      h3: headingTag,
      h4: headingTag,
      th: cellTag,
      td: cellTag,
      ol: listTag,
      aside: asideTag,
      div: divTag,
      iframe: frameTag,
      video: mediaTag,
      source: mediaTag,
    },
    // An iframe from anywhere else goes, with whatever it held.
    exclusiveFilter: (frame) => frame.tag === 'iframe' && !allowedFrame(frame.attribs.src),
  })
}
