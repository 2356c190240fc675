import type { FrontMatter } from '../../docs-format/front-matter'
import { attributes } from '../html'

/** What docs.json's `seo` says, read defensively: either docs.json shape may carry it, or neither. */
export type Seo = {
  metatags: Record<string, string>
  /** `navigable` (the default): only pages in navigation are for search engines; `all`: every page. */
  indexing: 'navigable' | 'all'
  description?: string
}

/** Meta names the layout writes itself, or that would change how the page is read. */
const RESERVED = new Set(['charset', 'viewport', 'content-security-policy', 'refresh', 'http-equiv'])
/** At most this many metatags from docs.json and from a page each: a document's head stays small. */
const METATAGS_MAX = 64

/** docs.json's `seo.metatags` (string values only), `seo.indexing`, and its `description`. */
export function seoOf(config: unknown): Seo {
  const record = isRecord(config) ? config : {}
  const seo = isRecord(record.seo) ? record.seo : {}
  const metatags: Record<string, string> = {}
  if (isRecord(seo.metatags))
    for (const [name, content] of Object.entries(seo.metatags).slice(0, METATAGS_MAX))
      if (typeof content === 'string' && !RESERVED.has(name.toLowerCase())) metatags[name] = content
  return {
    metatags,
    indexing: seo.indexing === 'all' ? 'all' : 'navigable',
    ...(typeof record.description === 'string' ? { description: record.description } : {}),
  }
}

/**
 * The `<meta>` tags of a page's head: docs.json's `seo.metatags`, then the page's own front matter (`og:*`,
 * `twitter:*`, `keywords`, `robots`, `noindex: true`), which win; `og:title` and `og:description` default to the
 * page's. A page outside navigation is `noindex` unless `seo.indexing` is `all`, as on Mintlify.
 */
export function pageMetaTags(options: {
  config: unknown
  frontMatter: FrontMatter
  title: string
  description?: string
  inNavigation: boolean
}): string {
  const seo = seoOf(options.config)
  const tags = new Map(Object.entries(seo.metatags))
  let own = 0
  for (const [name, value] of Object.entries(options.frontMatter)) {
    if (!/^(?:og|twitter|article):|^(?:keywords|robots|author)$/.test(name) || own++ >= METATAGS_MAX) continue
    if (typeof value === 'string') tags.set(name, value)
    else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) tags.set(name, value.join(', '))
  }
  if (options.frontMatter.noindex === true || (!options.inNavigation && seo.indexing === 'navigable'))
    tags.set('robots', 'noindex')
  // The layout writes the page's own description; docs.json's stands in only for a page without one.
  if (options.description !== undefined) tags.delete('description')
  if (!tags.has('og:title')) tags.set('og:title', options.title)
  if (options.description !== undefined && !tags.has('og:description')) tags.set('og:description', options.description)
  let html = ''
  for (const [name, content] of tags) {
    // Open Graph reads `property`; everything else is a plain `name`.
    const key = /^(?:og|article):/.test(name) ? 'property' : 'name'
    html += `<meta${attributes({ [key]: name, content })}>`
  }
  return html
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
