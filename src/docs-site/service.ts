import { createHash } from 'node:crypto'
import packageJson from '../../package.json' with { type: 'json' }
import type { DocsConfig } from '../docs-format/docs-json'
import { FrontMatterError, parseFrontMatter, type FrontMatter } from '../docs-format/front-matter'
import { endpointUrls, renderEndpoint } from './api-endpoint'
import { SITE_ASSETS } from './assets'
import { defaultPages } from './default-site'
import { escapeHtml } from './html'
import { renderLayout } from './layout'
import type { SiteFiles } from './files'
import { pageHrefFor, pagePathOf, pageUrl, repositoryFileUrl } from './links'
import { DEFAULT_MAX_PAGE_HTML, PageTooLarge, renderMarkdownYielding } from './markdown'
import { Redirects } from './redirects'
import type { OpenApiDocument, Operation } from './openapi-schema'
import { type GeneratedPage, generatedPageText } from './openapi-navigation'
import { OpenApiDocuments } from './openapi-sources'
import { humanize } from './page-text'
import { SiteMap } from './site-map'
import { expandSnippets, SNIPPET_FOLDER } from './snippets'
import { pageMetaTags } from './discovery/seo'

/** What the site reads: the current docs.json, and the stored pages. */
export type SiteSources = {
  /** The current docs.json as DocsConfigService.current() gives it; `builtIn`: it is the built-in default. */
  config: () => Promise<{ revision: number; etag: string; body: string; builtIn: boolean }>
  /** A number that changes whenever any page is stored (the newest page row's id). */
  pagesGeneration: () => Promise<number>
  /** Every page's newest title and sidebar title, without texts. */
  pageSummaries: () => Promise<Map<string, { title?: string; sidebarTitle?: string }>>
  /** A page's newest text, or undefined when it has none. */
  pageText: (path: string) => Promise<string | undefined>
  /** This server's own OpenAPI document (docs.json's `openapi: "/openapi.json"`, unless the repository has one). */
  ownDocument: () => OpenApiDocument
  /** The repository's stored files: images, and the OpenAPI documents its API pages render. */
  files?: SiteFiles
}

export type SitePage = { status: 200 | 404; html: string; etag: string; csp: string }

/** docs.json's `redirects`: an answer with no page, only where to go. */
export type RedirectPage = { status: 307 | 308; location: string }

/** Bumped when the rendering changes, so ETags from an older build never match. */
const RENDERER_VERSION = '1'
/** Rendered pages kept; each is tens of KB, so a few hundred bound the memory to a few MB. */
const PAGE_CACHE_SIZE = 300
/**
 * And at most this many characters of them in all: a docs.json near the 1 MiB body limit can make every
 * page's sidebar megabytes long, and 300 of those would be gigabytes. A page larger than this is not kept.
 */
const PAGE_CACHE_CHARS = 32 * 1024 * 1024
/**
 * What an ETag also names: a new build (another release, renderer, stylesheet or script) must not be
 * answered 304 with old HTML. The server's own OpenAPI document and built-in pages join it on first use.
 */
const BUILD_TAG = `${RENDERER_VERSION}\n${packageJson.version}\n${SITE_ASSETS.css}\n${SITE_ASSETS.js}`

type BuiltInPages = { texts: Map<string, string>; titles: Map<string, string> }
const NO_BUILT_IN_PAGES: BuiltInPages = { texts: new Map(), titles: new Map() }

/** Everything that depends only on the docs.json revision and the set of pages, built once for both. */
type Snapshot = {
  key: string
  config: DocsConfig
  map: SiteMap
  redirects: Redirects
  summaries: Awaited<ReturnType<SiteSources['pageSummaries']>>
  /** Trellis's own pages, while docs.json is the built-in default; empty otherwise. */
  builtIn: BuiltInPages
  /** The pages navigation groups' `openapi` generate, by page path. */
  generated: Map<string, GeneratedPage>
  /** The 404 page, the same for every unknown address, rendered once: a crawler's random URLs cost no render each. */
  notFound?: SitePage
}

/**
 * The documentation site without HTTP: which page a path is, and its HTML. Each request costs two small
 * queries (the docs.json ETag and the pages' generation); when neither changed since a page was last
 * rendered, the rendered page is served from memory, so replicas see each other's writes on the next request.
 */
export class DocsSiteService {
  private snapshot: Snapshot | undefined
  private readonly pages = new Map<string, SitePage>()
  private readonly rendering = new Map<string, Promise<SitePage | RedirectPage>>()
  private cachedChars = 0
  private tag: string | undefined
  private builtIn: BuiltInPages | undefined
  /** The snapshot being built, shared by the requests that need it meanwhile. */
  private building: { key: string; snapshot: Promise<Snapshot> } | undefined

  private readonly documents: OpenApiDocuments
  private readonly maxPageHtml: number

  /** `maxPageHtml`: the most bytes of HTML a page's content may render to (DOCS_MAX_PAGE_HTML). */
  constructor(
    readonly sources: SiteSources,
    options: { maxPageHtml?: number } = {},
  ) {
    this.maxPageHtml = options.maxPageHtml ?? DEFAULT_MAX_PAGE_HTML
    this.documents = new OpenApiDocuments(sources.files)
  }

  /**
   * Why a page body (its text after the front matter) stored at `path` could not be shown (its HTML would pass the
   * cap), or undefined when it can: the pages API asks before storing. Snippets it imports are read as stored now.
   */
  async pageProblem(path: string, body: string): Promise<string | undefined> {
    try {
      await this.renderBody(body, path, () => false)
      return undefined
    } catch (error) {
      if (!(error instanceof PageTooLarge)) throw error
      return tooLargeMessage(path, error, this.maxPageHtml)
    }
  }

  /** A page body's HTML: its snippets put in, rendered and sanitised, within the cap (else PageTooLarge). */
  private async renderBody(body: string, path: string, isPage: (path: string) => boolean) {
    const load = async (snippet: string) => {
      const text = await this.sources.pageText(snippet)
      return text === undefined ? undefined : frontMatterOf(text).body
    }
    const expanded = await expandSnippets(body, path, load, this.maxPageHtml)
    return renderMarkdownYielding(expanded, {
      pageHref: (target) => pageHrefFor(target, path, isPage),
      imageSrc: (src) => repositoryFileUrl(src, path),
      maxHtml: this.maxPageHtml,
    })
  }

  /** The page at `requested` (`''` is the home page). Unknown pages are a 404 page in the site's own layout. */
  /** What the site answers at `requested`: the page, or where docs.json's `redirects` send the reader. */
  serve(requested: string): Promise<SitePage | RedirectPage> {
    return this.lookup(requested, true)
  }

  /** The page at `requested` (`''` is the home page), redirects aside. */
  render(requested: string): Promise<SitePage> {
    return this.lookup(requested, false) as Promise<SitePage>
  }

  private async lookup(requested: string, redirects: boolean): Promise<SitePage | RedirectPage> {
    // Keyed by the page it names: `intro`, `/intro/`, `intro.mdx` and `intro%20` are one page, one entry,
    // so a crawler cannot churn the cache (and force a render per request) by spelling a page many ways.
    // A non-empty address that names nothing (`/docs/%20`) stays an unknown page, not the home page.
    const path = requested === '' ? '' : pagePathOf(requested) || '\u0000'
    const { current, snapshotKey } = await this.state()
    const cacheKey = `${snapshotKey}\n${path}`
    const cached = this.pages.get(cacheKey)
    if (cached !== undefined) {
      // Refreshing its place keeps the most used pages in a bounded cache.
      this.pages.delete(cacheKey)
      this.pages.set(cacheKey, cached)
      return cached
    }
    // Readers arriving together after a change share one render: each would otherwise render the page
    // again (and a page can be megabytes) for the same answer.
    const flightKey = `${cacheKey}\n${redirects}`
    const inFlight = this.rendering.get(flightKey)
    if (inFlight !== undefined) return inFlight
    const work = this.renderMiss(snapshotKey, cacheKey, current, path, redirects).finally(() =>
      this.rendering.delete(flightKey),
    )
    this.rendering.set(flightKey, work)
    return work
  }

  /** docs.json now, and the key of the snapshot it and the stored pages and files make. */
  private async state() {
    const [current, generation, files] = await Promise.all([
      this.sources.config(),
      this.sources.pagesGeneration(),
      this.sources.files?.generation() ?? 0,
    ])
    // The files join the key: an API page shows the stored OpenAPI document as it is now.
    return { current, snapshotKey: `${current.etag}\n${generation}\n${files}` }
  }

  /** For the search: the generated API pages, and a version that changes with docs.json or an OpenAPI document. */
  async generatedPages(): Promise<{ version: string; pages: GeneratedPage[] }> {
    const { current, snapshotKey } = await this.state()
    const pages = [...(await this.snapshotFor(snapshotKey, current)).generated.values()]
    return { version: `${current.etag}\n${await this.documents.version()}`, pages }
  }

  /** For the search: the operation a page's `openapi:` front matter names, as its page shows it; undefined if none. */
  async operation(reference: string): Promise<Operation | undefined> {
    const { current, snapshotKey } = await this.state()
    const snapshot = await this.snapshotFor(snapshotKey, current)
    return this.documents.operation(reference, this.siteDocuments(snapshot))
  }

  /** What an API page's operation is looked up in (OpenApiDocuments). */
  private siteDocuments(snapshot: Snapshot) {
    return { config: snapshot.config, ownDocument: this.sources.ownDocument, builtIn: snapshot.builtIn.texts.size > 0 }
  }

  private async renderMiss(
    snapshotKey: string,
    cacheKey: string,
    current: { revision: number; body: string; builtIn: boolean },
    path: string,
    redirects: boolean,
  ): Promise<SitePage | RedirectPage> {
    const snapshot = await this.snapshotFor(snapshotKey, current)
    // Redirects come before pages, as Mintlify has them; a redirected address is never cached as a page.
    const redirect = redirects ? snapshot.redirects.match(path) : undefined
    if (redirect !== undefined) return redirect
    if (snapshot.notFound !== undefined && !this.isPageOf(snapshot, path)) return snapshot.notFound
    const page = await this.build(snapshot, path)
    const rendered: SitePage = {
      ...page,
      etag: `"${createHash('sha256').update(`${this.buildTag()}\n${cacheKey}`).digest('base64url').slice(0, 27)}"`,
    }
    // Only pages that exist are kept here: a crawler asking for random addresses must not push them out.
    if (rendered.status !== 200) {
      if (this.snapshot === snapshot) snapshot.notFound = rendered
      return rendered
    }
    this.remember(cacheKey, rendered)
    return rendered
  }

  /** The build's tag with this server's own document and built-in pages, hashed once per process. */
  private buildTag(): string {
    this.tag ??= `${BUILD_TAG}\n${createHash('sha256')
      .update(JSON.stringify(this.sources.ownDocument()))
      .update([...defaultPages({}).values()].join('\n'))
      .digest('base64url')}`
    return this.tag
  }

  /** Keeps a page, counting its size once, and evicts the least recently used past either bound. */
  private remember(cacheKey: string, page: SitePage): void {
    if (page.html.length > PAGE_CACHE_CHARS) return
    this.evict(cacheKey)
    this.pages.set(cacheKey, page)
    this.cachedChars += page.html.length
    while (this.pages.size > 0 && (this.pages.size > PAGE_CACHE_SIZE || this.cachedChars > PAGE_CACHE_CHARS))
      this.evict(this.pages.keys().next().value!)
  }

  private evict(cacheKey: string): void {
    const page = this.pages.get(cacheKey)
    if (page === undefined) return
    this.pages.delete(cacheKey)
    this.cachedChars -= page.html.length
  }

  /** Whether `path` (normalised) names a page of the snapshot (the home page always does). */
  private isPageOf(snapshot: Snapshot, path: string): boolean {
    return path === '' || namesPage(snapshot, path) || namesPage(snapshot, `${path}/index`)
  }

  private async snapshotFor(
    key: string,
    current: { revision: number; body: string; builtIn: boolean },
  ): Promise<Snapshot> {
    if (this.snapshot?.key === key) return this.snapshot
    if (this.building?.key === key) return this.building.snapshot
    const snapshot = this.buildSnapshot(key, current)
    this.building = { key, snapshot }
    try {
      const built = await snapshot
      this.snapshot = built
      // Pages rendered from an older snapshot can never be asked for again (their key names the old one).
      for (const cacheKey of [...this.pages.keys()]) if (!cacheKey.startsWith(`${key}\n`)) this.evict(cacheKey)
      return built
    } finally {
      if (this.building?.key === key) this.building = undefined
    }
  }

  private async buildSnapshot(
    key: string,
    current: { revision: number; body: string; builtIn: boolean },
  ): Promise<Snapshot> {
    const config = JSON.parse(current.body) as DocsConfig
    const builtIn = current.builtIn ? this.builtInPages() : NO_BUILT_IN_PAGES
    const redirects = new Redirects((config as { redirects?: unknown }).redirects)
    const navigation = await this.documents.generatedNavigation(config, this.sources.ownDocument)
    const generated = new Map<string, GeneratedPage>()
    for (const page of [...[...navigation.groups.values()].flat(), ...navigation.endpoints.values()])
      if (!generated.has(page.path)) generated.set(page.path, page)
    const map = new SiteMap(config, navigation)
    return { key, config, map, redirects, summaries: await this.sources.pageSummaries(), builtIn, generated }
  }

  /** Trellis's own pages and their titles: the same for the whole process, so made once. */
  private builtInPages(): BuiltInPages {
    if (this.builtIn === undefined) {
      const texts = defaultPages(this.sources.ownDocument())
      const titles = new Map<string, string>()
      for (const [path, text] of texts) {
        const title = frontMatterOf(text).data.title
        if (title !== undefined) titles.set(path, title)
      }
      this.builtIn = { texts, titles }
    }
    return this.builtIn
  }

  /** The page at `normalised`, a path already through pagePathOf (`''` for the home page). */
  private async build(snapshot: Snapshot, normalised: string): Promise<Omit<SitePage, 'etag'>> {
    const { map, summaries, builtIn } = snapshot
    const isPage = (candidate: string) => namesPage(snapshot, candidate)
    // `/dir` is `dir/index` when there is no page `dir`, as Mintlify serves it.
    const asked = normalised === '' ? map.home : normalised
    const path = asked !== undefined && !isPage(asked) && isPage(`${asked}/index`) ? `${asked}/index` : asked
    const labelOf = (candidate: string) => {
      const summary = summaries.get(candidate)
      return (
        summary?.sidebarTitle ||
        summary?.title ||
        builtIn.titles.get(candidate) ||
        snapshot.generated.get(candidate)?.title ||
        humanize(candidate)
      )
    }
    const view = { config: snapshot.config, map, isPage, labelOf, assets: SITE_ASSETS }
    if (path === undefined || !isPage(path)) {
      const content = `<p>There is no page at this address.</p><p><a href="${pageUrl(map.home ?? '')}">Go to the first page</a>.</p>`
      return {
        status: 404,
        ...renderLayout({ ...view, path: undefined, title: 'Page not found', content, headings: [] }),
      }
    }
    const generatedPage = snapshot.generated.get(path)
    const text =
      (await this.sources.pageText(path)) ??
      builtIn.texts.get(path) ??
      (generatedPage === undefined ? undefined : generatedPageText(generatedPage))
    if (text === undefined) {
      const content =
        `<div class="not-written" role="note"><p><strong>This page is not written yet.</strong></p><p>docs.json ` +
        `names <code>${escapeHtml(path)}</code> in its navigation, but no text has been stored for it. Store it ` +
        `with <code>PUT /docs/pages/${escapeHtml(path)}</code> (scope docs:write) or <code>trellis docs ` +
        `push</code>.</p></div>`
      return { status: 200, ...renderLayout({ ...view, path, title: labelOf(path), content, headings: [] }) }
    }
    const { data, body, problem } = frontMatterOf(text)
    let markdown: { html: string; headings: { level: number; id: string; text: string }[] }
    try {
      markdown = await this.renderBody(body, path, isPage)
    } catch (error) {
      // A page stored before the cap (or before a snippet it imports grew) is shown as an error, not rendered.
      if (!(error instanceof PageTooLarge)) throw error
      const message = escapeHtml(tooLargeMessage(path, error, this.maxPageHtml))
      const html = `<div class="callout callout-danger" role="note"><p>${message}</p></div>`
      markdown = { html, headings: [] }
    }
    let content =
      problem === undefined
        ? ''
        : `<div class="callout callout-warning" role="note"><p>${escapeHtml(problem)}</p></div>`
    const site = this.siteDocuments(snapshot)
    if (data.openapi !== undefined) content += await this.documents.operationHtml(data.openapi, site)
    else if (data.api !== undefined) content += renderEndpoint(data.api, snapshot.config)
    const connect = endpointUrls(data.api)
    content += markdown.html
    const title = data.title ?? labelOf(path)
    const { description } = data
    const meta = pageMetaTags({
      config: snapshot.config,
      frontMatter: data,
      title,
      description,
      inNavigation: map.names(path),
    })
    return {
      status: 200,
      ...renderLayout({ ...view, path, title, description, content, headings: markdown.headings, meta, connect }),
    }
  }
}

/** Snippets are stored like pages but never are pages, as in Mintlify, even when navigation names one. */
function namesPage(snapshot: Snapshot, path: string): boolean {
  if (path.startsWith(SNIPPET_FOLDER)) return false
  return snapshot.map.names(path) || snapshot.summaries.has(path) || snapshot.builtIn.texts.has(path)
}

function tooLargeMessage(path: string, error: PageTooLarge, cap: number): string {
  return (
    `page ${path} is not shown: ${error.message}, and a page may render to at most ${cap} bytes of HTML ` +
    '(DOCS_MAX_PAGE_HTML). Split it into smaller pages.'
  )
}

/** Front matter with its problem, if any, reported on the page instead of failing it. */
function frontMatterOf(text: string): { data: FrontMatter; body: string; problem?: string } {
  try {
    return parseFrontMatter(text)
  } catch (error) {
    if (!(error instanceof FrontMatterError)) throw error
    return { data: {}, body: text, problem: error.message }
  }
}
