import { Parser } from 'htmlparser2'

/**
 * What a rendered page may contain, checked on the parsed HTML (entities decoded, as a browser reads
 * it) rather than on the text: the elements and attributes the docs renderer emits, and no URL that
 * runs script. This list is the specification; it is kept apart from the sanitiser's own on purpose.
 */

const ELEMENTS = new Set([
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
  'video',
  'source',
  // The renderer's own icons (Font Awesome path data), put in after sanitising.
  'svg',
  'path',
])
const ATTRIBUTES = new Set([
  'href',
  'src',
  'alt',
  'title',
  'id',
  'class',
  'rel',
  'colspan',
  'rowspan',
  'align',
  'start',
  'role',
  'aria-label',
  'open',
  'width',
  'height',
  'controls',
  'type',
  'xmlns',
  'viewbox',
  'fill',
  'aria-hidden',
  'd',
])
/** An embedded video: only from the players' embed addresses, sandboxed (see the sanitiser's FRAME_HOSTS). */
const FRAME_SRC = /^https:\/\/(www\.youtube\.com|www\.youtube-nocookie\.com|player\.vimeo\.com|www\.loom\.com)\//
const FRAME_ATTRIBUTES = new Set([
  'src',
  'title',
  'sandbox',
  'loading',
  'referrerpolicy',
  'allow',
  'allowfullscreen',
  'width',
  'height',
])
const CLASS =
  /^(hljs.*|language-.*|callout.*|card.*|steps.*|code-group.*|tab-.*|field.*|accordion.*|expandable|update.*|frame.*|panel|tooltip|icon-inline|badge-inline|[a-z]+_{1,2})$/
const SCRIPT_URL = /javascript:|vbscript:|livescript:|data:text\/html/
const IMAGE_DATA_URL = /^data:image\/(png|jpeg|gif|webp)[;,]/

function percentDecoded(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/** Every way a value might read once whitespace and control characters are ignored, lower-cased. */
function readings(value: string): string[] {
  return [value, percentDecoded(value)].map((form) => form.replace(/[\u0000-\u0020\u007F-\u009F]/g, '').toLowerCase())
}

/** The executable vectors and unexpected markup in `html`, one line each; empty when the page is safe. */
export function unsafeParts(html: string): string[] {
  const problems: string[] = []
  if (/<\s*\/?\s*script/i.test(html)) problems.push('a script tag')
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'iframe') {
          if (!FRAME_SRC.test(attributes.src ?? '')) problems.push(`<iframe> from ${attributes.src}`)
          if (attributes.sandbox === undefined || /allow-top-navigation|allow-forms/.test(attributes.sandbox))
            problems.push('<iframe> not sandboxed')
          for (const attribute of Object.keys(attributes))
            if (!FRAME_ATTRIBUTES.has(attribute)) problems.push(`attribute ${attribute} on <iframe>`)
          return
        }
        if (!ELEMENTS.has(name)) problems.push(`<${name}> is not an allowed element`)
        for (const [attribute, value] of Object.entries(attributes)) {
          if (/^on/i.test(attribute)) problems.push(`event handler ${attribute} on <${name}>`)
          else if (!ATTRIBUTES.has(attribute)) problems.push(`attribute ${attribute} on <${name}>`)
          if (attribute === 'id' && !/^h[2-4]$/.test(name)) problems.push(`id on <${name}>`)
          if (attribute === 'class')
            for (const word of value.split(/\s+/).filter(Boolean))
              if (!CLASS.test(word)) problems.push(`class ${word} on <${name}>`)
          for (const reading of readings(value)) {
            if (SCRIPT_URL.test(reading)) problems.push(`script URL in ${attribute}="${value}" on <${name}>`)
            if (
              (attribute === 'href' || attribute === 'src') &&
              reading.startsWith('data:') &&
              !(name === 'img' && IMAGE_DATA_URL.test(reading))
            ) {
              problems.push(`data URL in ${attribute} on <${name}>`)
            }
          }
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  )
  parser.write(html)
  parser.end()
  return [...new Set(problems)]
}

/** The text a reader sees (entities decoded), whitespace collapsed. */
export function visibleText(html: string): string {
  let text = ''
  const parser = new Parser({ ontext: (chunk) => (text += chunk) }, { decodeEntities: true })
  parser.write(html)
  parser.end()
  return text.replace(/\s+/g, ' ')
}
