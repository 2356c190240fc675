import { renderMarkdown } from '../markdown'
import type { Operation } from '../openapi-schema'

/** One searchable part of a page: its top (`anchor` ''), or a heading and the text up to the next one. */
export type Section = { anchor: string; heading: string; body: string }

/** A section's text is cut here: enough for any real section's words, bounded for the vector and the snippet. */
const SECTION_TEXT_MAX = 16_000
/** Headings past this many are read as text of the last section, so one page cannot fill the index with rows. */
const SECTIONS_MAX = 300

const HEADING_TAG = /<h([2-4]) id="([^"]*)"[^>]*>([\s\S]*?)<\/h\1>/g

/**
 * A page body's sections, read from the page as the site renders it: the heading ids are the ones its readers'
 * links use (`page#id`), and the text is what a reader sees (components lowered, markup stripped), not the
 * Markdown source.
 *
 * @example
 * sectionsOf('Intro\n\n## Install\n\nRun it.')
 * // [{ anchor: '', heading: '', body: 'Intro' }, { anchor: 'install', heading: 'Install', body: 'Run it.' }]
 */
export function sectionsOf(body: string): Section[] {
  const { html, headings } = renderMarkdown(body, { pageHref: () => undefined })
  const sections: Section[] = []
  let start = 0
  let current: Omit<Section, 'body'> = { anchor: '', heading: '' }
  let index = 0
  for (const match of html.matchAll(HEADING_TAG)) {
    if (sections.length + 1 >= SECTIONS_MAX) break
    sections.push({ ...current, body: plainText(html.slice(start, match.index)) })
    const id = decodeEntities(match[2]!)
    const listed = headings[index]
    current = { anchor: id, heading: listed?.id === id ? listed.text : plainText(match[3]!) }
    index += 1
    start = match.index + match[0].length
  }
  sections.push({ ...current, body: plainText(html.slice(start)) })
  // A page's top with no text still stands for the page (its title is on it); empty sections under a heading too.
  return sections
}

/** The words of an API operation, for its page's top section: method and path, summary, description, fields. */
export function operationText(operation: Operation): string {
  const parts = [`${operation.method} ${operation.path}`, operation.summary, operation.description]
  for (const parameter of operation.parameters) parts.push(parameter.name, parameter.description)
  parts.push(operation.requestBody?.description)
  for (const response of operation.responses) parts.push(`${response.status} ${response.description ?? ''}`)
  return bounded(parts.filter((part) => part !== undefined && part !== '').join(' \u00b7 '))
}

/** Rendered (sanitised) HTML as plain text: icons and tags dropped, entities decoded, white space collapsed. */
function plainText(html: string): string {
  const text = html
    .replace(/<svg[\s\S]*?<\/svg>/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return bounded(decodeEntities(text))
}

function bounded(text: string): string {
  if (text.length <= SECTION_TEXT_MAX) return text
  // Never split a surrogate pair: PostgreSQL refuses half of one.
  const end = /[\uD800-\uDBFF]/.test(text[SECTION_TEXT_MAX - 1]!) ? SECTION_TEXT_MAX - 1 : SECTION_TEXT_MAX
  return text.slice(0, end)
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/g, (entity, name: string) => {
    if (name[0] !== '#') return NAMED[name] ?? entity
    const code = name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1))
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : ''
  })
}
