import type { DocsConfig } from '../../docs-format/docs-json'
import { defaultPages } from '../default-site'
import { pageUrl } from '../links'
import type { SiteFiles } from '../files'
import { type GeneratedPage, generatedPageText } from '../openapi-navigation'
import type { OpenApiDocument } from '../openapi-schema'
import { OpenApiDocuments } from '../openapi-sources'
import { frontMatterOf, humanize, referencedOperation } from '../page-text'
import { SiteMap, type NavEntry } from '../site-map'
import { operationMarkdown } from './operation-markdown'
import { seoOf } from './seo'

/** What the discovery files read: the current docs.json, the stored pages, and this server's own document. */
export type DiscoverySources = {
  config: () => Promise<{ etag: string; body: string; builtIn: boolean }>
  pagesGeneration: () => Promise<number>
  pageSummaries: () => Promise<
    Map<string, { title?: string; sidebarTitle?: string; description?: string; createdAt?: string }>
  >
  pageText: (path: string) => Promise<string | undefined>
  ownDocument: () => OpenApiDocument
  /** The repository's stored files: the OpenAPI documents whose operations navigation groups list as pages. */
  files?: SiteFiles
}

/** A page the site shows, as the discovery files list it. */
type ListedPage = { path: string; title: string; description?: string; updated?: string }

/** One group of llms.txt: a heading and its pages. */
type Group = { name: string; pages: ListedPage[] }

type Snapshot = {
  key: string
  config: DocsConfig
  /** Navigation's pages that have a text, grouped as the sidebars group them. */
  groups: Group[]
  /** Written pages navigation does not name (not `snippets/`). */
  hidden: ListedPage[]
  builtIn: Map<string, string>
  /** The pages navigation groups' `openapi` generate, by page path (they have no stored text). */
  generated: Map<string, GeneratedPage>
}

/** llms-full.txt stops before passing this many characters, saying where the rest is. */
export const LLMS_FULL_MAX = 8 * 1024 * 1024
/**
 * Stands for the request's origin in the cached llms-full.txt: NUL, which page text cannot hold (PostgreSQL text)
 * and {@link oneLine} takes out of front matter (YAML's "\0").
 */
const ORIGIN = '\u0000'
/** The longest origin a request can have (its host is at most 253 characters, see index.ts): the cap's margin. */
const ORIGIN_MAX = 300
/** The sitemaps protocol's own bound on the URLs of one file. */
const SITEMAP_MAX_URLS = 50_000

/**
 * The site's files for machines: llms.txt and llms-full.txt (llmstxt.org), each page as Markdown, sitemap.xml and
 * robots.txt. Built from the same sources as the site, once per docs.json revision and pages generation.
 */
export class DiscoveryService {
  private snapshot: Snapshot | undefined
  private full: { key: string; text: Promise<string> } | undefined
  private readonly documents: OpenApiDocuments

  constructor(private readonly sources: DiscoverySources) {
    this.documents = new OpenApiDocuments(sources.files)
  }

  /** llms.txt: the site's name and description, then its pages by navigation group, linked as Markdown. */
  async llmsTxt(origin: string): Promise<string> {
    const snapshot = await this.current()
    const lines = [`# ${oneLine(snapshot.config.name)}`, '']
    const description = seoOf(snapshot.config).description
    if (description !== undefined) lines.push(`> ${oneLine(description)}`, '')
    for (const group of snapshot.groups) {
      lines.push(`## ${oneLine(group.name)}`, '')
      for (const page of group.pages) lines.push(listItem(origin, page))
      lines.push('')
    }
    return `${lines.join('\n').trimEnd()}\n`
  }

  /** llms-full.txt: every navigation page's Markdown in navigation order, up to {@link LLMS_FULL_MAX} characters. */
  async llmsFullTxt(origin: string): Promise<string> {
    const snapshot = await this.current()
    // Built once per revision for every origin: keyed by origin too, each new Host header read every page again.
    if (this.full?.key !== snapshot.key) this.full = { key: snapshot.key, text: this.buildFull(snapshot) }
    return (await this.full.text).replaceAll(ORIGIN, origin)
  }

  /** A page as Markdown (title, description, body; an API page's operation), or undefined when it has no text. */
  async markdown(path: string): Promise<string | undefined> {
    const snapshot = await this.current()
    const text = (await this.sources.pageText(path)) ?? textOf(snapshot, path)
    if (text === undefined) return undefined
    return this.pageMarkdown(path, text)
  }

  /** sitemap.xml: navigation's pages (every written page with docs.json `seo.indexing: "all"`), absolute URLs. */
  async sitemapXml(origin: string): Promise<string> {
    const snapshot = await this.current()
    const pages = snapshot.groups.flatMap((group) => group.pages)
    if (seoOf(snapshot.config).indexing === 'all') pages.push(...snapshot.hidden)
    const urls = pages.slice(0, SITEMAP_MAX_URLS).map((page) => {
      const modified = page.updated === undefined ? '' : `<lastmod>${page.updated.slice(0, 10)}</lastmod>`
      return `<url><loc>${escapeXml(origin + pageUrl(page.path))}</loc>${modified}</url>`
    })
    return (
      '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
      `${urls.join('\n')}\n</urlset>\n`
    )
  }

  /** robots.txt: the site open to crawlers (closed when docs.json's robots metatag says noindex), and its sitemap. */
  async robotsTxt(origin: string): Promise<string> {
    const snapshot = await this.current()
    const robots = seoOf(snapshot.config).metatags.robots ?? ''
    const rule = /\bnoindex\b|\bnone\b/i.test(robots) ? 'Disallow: /docs/' : 'Allow: /docs/'
    return `User-agent: *\n${rule}\n\nSitemap: ${origin}/docs/sitemap.xml\n`
  }

  /** llms-full.txt with {@link ORIGIN} where the request's origin goes. */
  private async buildFull(snapshot: Snapshot): Promise<string> {
    const origin = ORIGIN
    const parts: string[] = []
    let size = 0
    const pages = snapshot.groups.flatMap((group) => group.pages)
    for (const [index, page] of pages.entries()) {
      const text = (await this.sources.pageText(page.path)) ?? textOf(snapshot, page.path)
      if (text === undefined) continue
      const part = `${this.pageMarkdown(page.path, text, `${origin}${pageUrl(page.path)}`)}\n`
      // Each page's origin is counted at its longest, so the file stays under the cap whatever the Host; + 1 for the
      // line that joins it to the next.
      const cost = part.length - ORIGIN.length + ORIGIN_MAX + 1
      if (size + cost > LLMS_FULL_MAX) {
        parts.push(
          `… ${pages.length - index} more pages are not included: this file stops at ${LLMS_FULL_MAX} characters. ` +
            `${origin}/docs/llms.txt lists every page, each at its own .md address.\n`,
        )
        break
      }
      parts.push(part)
      size += cost
    }
    return parts.join('\n')
  }

  private pageMarkdown(path: string, text: string, source?: string): string {
    const { data, body } = frontMatterOf(text)
    const title = data.title ?? data.sidebarTitle ?? humanize(path)
    const head = [`# ${oneLine(title)}`]
    if (source !== undefined) head.push(`Source: ${source}`)
    if (data.description !== undefined) head.push('', `> ${oneLine(data.description)}`)
    const operation = data.openapi === undefined ? '' : this.operation(data.openapi)
    return `${head.join('\n')}\n\n${operation}${body.trim()}\n`
  }

  /** The operation an `openapi:` front matter names, as Markdown: this server's own in full, another as its name. */
  private operation(reference: string): string {
    const { label, operation } = referencedOperation(reference, this.sources.ownDocument())
    return operation === undefined ? `\`${label}\`\n\n` : operationMarkdown(operation)
  }

  private async current(): Promise<Snapshot> {
    const [config, generation, files] = await Promise.all([
      this.sources.config(),
      this.sources.pagesGeneration(),
      // A stored or replaced OpenAPI file changes the generated pages.
      this.sources.files?.generation() ?? 0,
    ])
    const key = `${config.etag}\n${generation}\n${files}`
    if (this.snapshot?.key !== key) this.snapshot = await this.build(key, config)
    return this.snapshot
  }

  private async build(key: string, current: { body: string; builtIn: boolean }): Promise<Snapshot> {
    const config = JSON.parse(current.body) as DocsConfig
    const navigation = await this.documents.generatedNavigation(config, this.sources.ownDocument)
    const generated = new Map<string, GeneratedPage>()
    for (const page of [...[...navigation.groups.values()].flat(), ...navigation.endpoints.values()])
      if (!generated.has(page.path)) generated.set(page.path, page)
    const map = new SiteMap(config, navigation)
    const summaries = await this.sources.pageSummaries()
    const builtIn = current.builtIn ? defaultPages(this.sources.ownDocument()) : new Map<string, string>()
    const listed = (path: string): ListedPage | undefined => {
      const summary = summaries.get(path)
      if (summary !== undefined)
        return {
          path,
          title: summary.title ?? summary.sidebarTitle ?? humanize(path),
          ...(summary.description === undefined ? {} : { description: summary.description }),
          ...(summary.createdAt === undefined ? {} : { updated: summary.createdAt }),
        }
      const text = textOf({ builtIn, generated }, path)
      if (text === undefined) return undefined
      const { data } = frontMatterOf(text)
      return {
        path,
        title: data.title ?? humanize(path),
        ...(data.description ? { description: data.description } : {}),
      }
    }
    const seen = new Set<string>()
    const groups: Group[] = []
    const sections = [map.top, ...map.tabs, ...map.anchors]
    for (const section of sections) {
      for (const entry of map.sidebar(section)) {
        const pages = pagesOf(entry)
          .filter((path) => !seen.has(path) && seen.add(path))
          .flatMap((path) => listed(path) ?? [])
        if (pages.length === 0) continue
        const name = entry.kind === 'group' ? entry.name : section.name
        groups.push({ name: section === map.top || sections.length === 1 ? name : `${section.name}: ${name}`, pages })
      }
    }
    const hidden = [...summaries.keys()]
      .filter((path) => !seen.has(path) && !path.startsWith('snippets/'))
      .flatMap((path) => listed(path) ?? [])
    return { key, config, groups, hidden, builtIn, generated }
  }
}

/** The text of a page that is not stored: one of Trellis's own, or one generated from an OpenAPI operation. */
function textOf(snapshot: Pick<Snapshot, 'builtIn' | 'generated'>, path: string): string | undefined {
  const generated = snapshot.generated.get(path)
  return snapshot.builtIn.get(path) ?? (generated === undefined ? undefined : generatedPageText(generated))
}

function pagesOf(entry: NavEntry): string[] {
  return entry.kind === 'page' ? [entry.path] : entry.entries.flatMap(pagesOf)
}

function listItem(origin: string, page: ListedPage): string {
  const link = `- [${oneLine(page.title).replace(/[[\]]/g, '\\$&')}](${origin}${pageUrl(page.path)}.md)`
  return page.description === undefined ? link : `${link}: ${oneLine(page.description)}`
}

/** Text on one line: a title or description with line breaks would end its Markdown line early. No NUL either. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').replaceAll(ORIGIN, '').trim()
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`)
}
