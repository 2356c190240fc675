import { createHash } from 'node:crypto'
import type { Logger } from '../../telemetry/logger'
import { defaultPages } from '../default-site'
import { escapeHtml } from '../html'
import { pageUrl } from '../links'
import { type GeneratedPage, generatedPageText } from '../openapi-navigation'
import type { OpenApiDocument, Operation } from '../openapi-schema'
import { frontMatterOf, humanize, referencedOperation } from '../page-text'
import { operationText, sectionsOf } from './sections'
import {
  type IndexedPage,
  type Origin,
  SearchIndexStore,
  SNIPPET_END,
  SNIPPET_GT,
  SNIPPET_LT,
  SNIPPET_MARK,
} from './store'

/** What the search reads besides its own table; app.ts wires it to the docs.json and pages services. */
export type SearchSources = {
  /** Whether docs.json is the built-in default (then Trellis's own pages are searched too). */
  builtInConfig: () => Promise<boolean>
  /** A number that changes whenever any page is stored. */
  pagesGeneration: () => Promise<number>
  /** The newest revision number of every stored page, by path. */
  pageRevisions: () => Promise<Map<string, { revision: number }>>
  /** A page's newest revision and text, or undefined when it has none. */
  page: (path: string) => Promise<{ revision: number; source: string } | undefined>
  /** This server's own OpenAPI document. */
  ownDocument: () => OpenApiDocument
  /**
   * The pages docs.json's navigation generates from OpenAPI documents, and a version that changes when docs.json or
   * one of those documents does (DocsSiteService.generatedPages).
   */
  generatedPages: () => Promise<{ version: string; pages: GeneratedPage[] }>
  /** The operation a page's `openapi:` front matter names, as the site shows it (DocsSiteService.operation). */
  operation: (reference: string) => Promise<Operation | undefined>
}

/** One search result, as GET /docs/search answers it. */
export type SearchResult = {
  title: string
  heading?: string
  url: string
  path: string
  anchor?: string
  kind: string
  /** Escaped HTML; the query's words are in `<mark>`. */
  snippet: string
}

/** Pages a catch-up indexes per search at most: it bounds what one public request can make the server do. */
const CATCH_UP_BATCH = 50

/** The table's statistics are refreshed after pages change, at most this often (see SearchIndexStore.analyze). */
const ANALYZE_INTERVAL_MS = 30_000

/**
 * Mintlify's `snippets/` folder holds parts of pages, not pages: not searched.
 */
const NOT_SEARCHED = /^snippets\//

/**
 * The site's search: indexes a page when it is stored ({@link pageStored}), Trellis's own pages on first use while
 * docs.json is the built-in default, and catches up pages whose indexing was missed (stored before the index
 * existed, or by a writer that failed between the two writes) when the pages' generation has moved.
 */
export class SearchService {
  private readonly store: SearchIndexStore
  /** The pages' generation that the index was last seen complete for. */
  private caughtUp = -1
  private catchingUp: Promise<void> | undefined
  private builtIn: Promise<void> | undefined
  /**
   * The generated pages' version the index is being brought to, and what is left to index for it: generated pages,
   * then stored pages naming an operation (whose words come from the same documents).
   */
  private generated: { version: string; pending: Array<GeneratedPage | string> } | undefined
  private generating: Promise<void> | undefined
  /** When the table's statistics were last refreshed (performance.now()). */
  private analyzedAt = Number.NEGATIVE_INFINITY

  constructor(
    db: ConstructorParameters<typeof SearchIndexStore>[0],
    private readonly sources: SearchSources,
    private readonly logger: Logger,
  ) {
    this.store = new SearchIndexStore(db)
  }

  /**
   * Indexes a page just stored (the pages service's hook). A failure is logged, never the writer's: the page is
   * stored, and the next search's catch-up indexes it.
   */
  async pageStored(page: { path: string; revision: number; source: string }): Promise<void> {
    try {
      await this.index('page', page.path, page.revision, page.source)
    } catch (error) {
      this.logger.warn('docs search: indexing a stored page failed; the next search catches it up', {
        path: page.path,
        error: String(error),
      })
    }
  }

  /** The best `limit` sections for `query` (already checked: 1 to 200 characters, not blank). */
  async search(query: string, limit: number): Promise<SearchResult[]> {
    const [builtIn, generation] = await Promise.all([this.sources.builtInConfig(), this.sources.pagesGeneration()])
    if (generation !== this.caughtUp) {
      this.catchingUp ??= this.catchUp(generation).finally(() => (this.catchingUp = undefined))
      await this.catchingUp
    }
    if (builtIn) await this.indexBuiltIn()
    this.generating ??= this.indexGenerated().finally(() => (this.generating = undefined))
    await this.generating
    const text = withOneNegation(query)
    const hits = await this.store.search(text, prefixOf(text), limit, builtIn)
    return hits.map((hit) => ({
      title: hit.pageTitle,
      ...(hit.heading === '' ? {} : { heading: hit.heading }),
      url: pageUrl(hit.path) + (hit.anchor === '' ? '' : `#${encodeURIComponent(hit.anchor)}`),
      path: hit.path,
      ...(hit.anchor === '' ? {} : { anchor: hit.anchor }),
      kind: hit.kind,
      snippet: escapeHtml(hit.snippet)
        .replaceAll(SNIPPET_MARK, '<mark>')
        .replaceAll(SNIPPET_END, '</mark>')
        .replaceAll(SNIPPET_LT, '&lt;')
        .replaceAll(SNIPPET_GT, '&gt;'),
    }))
  }

  private async index(origin: Origin, path: string, revision: number, text: string): Promise<void> {
    if (NOT_SEARCHED.test(path)) return
    await this.store.replace(origin, await this.indexedPage(origin, path, revision, text))
  }

  private async indexedPage(origin: Origin, path: string, revision: number, text: string): Promise<IndexedPage> {
    const { data, body } = frontMatterOf(text)
    const title = data.title ?? data.sidebarTitle ?? humanize(path)
    const sections = sectionsOf(body)
    const top = sections[0]!
    const words = data.openapi === undefined ? undefined : await this.operationWords(origin, data.openapi)
    top.body = [data.description, words, top.body].filter((part) => part !== undefined && part !== '').join(' \u00b7 ')
    return { path, revision, kind: data.openapi === undefined ? 'page' : 'operation', title, sections }
  }

  /**
   * The operation an `openapi:` front matter names, in words: looked up as the site shows it (Trellis's own pages in
   * this server's document), else the reference as written.
   */
  private async operationWords(origin: Origin, reference: string): Promise<string> {
    if (origin === 'built-in') {
      const { label, operation } = referencedOperation(reference, this.sources.ownDocument())
      return operation === undefined ? label : operationText(operation)
    }
    const operation = await this.sources.operation(reference)
    return operation === undefined ? referencedOperation(reference, {}).label : operationText(operation)
  }

  /**
   * Brings the generated pages' rows to the current version, at most a batch of pages per search: rows of pages no
   * longer generated are dropped at once, pages of an older version re-indexed, and then the stored pages naming an
   * operation (once per process, and on every change of version).
   */
  private async indexGenerated(): Promise<void> {
    const { version, pages } = await this.sources.generatedPages()
    const revision = createHash('sha256').update(version).digest().readUInt32BE(0) >>> 1
    if (this.generated?.version !== version) {
      const listed = new Set(pages.map((page) => page.path))
      const indexed = await this.store.revisions('generated')
      await this.store.removeAll(
        'generated',
        [...indexed.keys()].filter((path) => !listed.has(path)),
      )
      const stale = pages.filter((page) => !NOT_SEARCHED.test(page.path) && indexed.get(page.path) !== revision)
      this.generated = { version, pending: [...stale, ...(await this.store.operationPages())] }
    }
    const { pending } = this.generated
    try {
      for (const next of pending.splice(0, CATCH_UP_BATCH)) {
        if (typeof next !== 'string') await this.index('generated', next.path, revision, generatedPageText(next))
        else {
          const page = await this.sources.page(next)
          if (page !== undefined) await this.index('page', next, page.revision, page.source)
        }
      }
    } catch (error) {
      // What was taken from the list is not indexed: the next search starts this version over.
      this.generated = undefined
      throw error
    }
  }

  /** Indexes stored pages newer than their rows (at most a batch), and drops rows of pages no longer stored. */
  private async catchUp(generation: number): Promise<void> {
    const [pages, indexed] = await Promise.all([this.sources.pageRevisions(), this.store.revisions('page')])
    for (const path of indexed.keys()) if (!pages.has(path)) await this.store.remove('page', path)
    const stale = [...pages].filter(
      ([path, { revision }]) => !NOT_SEARCHED.test(path) && (indexed.get(path) ?? 0) < revision,
    )
    for (const [path] of stale.slice(0, CATCH_UP_BATCH)) {
      const page = await this.sources.page(path)
      if (page !== undefined) await this.index('page', path, page.revision, page.source)
    }
    if (stale.length <= CATCH_UP_BATCH) this.caughtUp = generation
    if (performance.now() - this.analyzedAt > ANALYZE_INTERVAL_MS) {
      this.analyzedAt = performance.now()
      await this.store.analyze()
    }
  }

  /** Indexes Trellis's own pages, once per process, unless the index already holds this build's. */
  private indexBuiltIn(): Promise<void> {
    this.builtIn ??= (async () => {
      const texts = defaultPages(this.sources.ownDocument())
      // The build's pages as one number: rows of another build (or none) are replaced.
      const digest = createHash('sha256')
      for (const [path, text] of texts) digest.update(`${path}\n${text}\n`)
      const build = digest.digest().readUInt32BE(0) >>> 1
      const indexed = await this.store.revisions('built-in')
      for (const path of indexed.keys()) if (!texts.has(path)) await this.store.remove('built-in', path)
      for (const [path, text] of texts) if (indexed.get(path) !== build) await this.index('built-in', path, build, text)
    })().catch((error) => {
      this.builtIn = undefined
      throw error
    })
    return this.builtIn
  }
}

/**
 * `query` with each run of `-` (apart from letters, digits and quotes: `- - -`, `-(-(`) cut to one. Each is a NOT
 * to websearch_to_tsquery, and about 33 in a row overflow its operator stack ("tsquery stack too small", a 500).
 */
function withOneNegation(query: string): string {
  return query.replace(/-(?:[^\p{L}\p{N}"-]*-)+/gu, '-')
}

/**
 * The word being typed, for a prefix match: the query's last word when nothing follows it and it is letters or
 * digits only (two at least, or every word would match).
 */
function prefixOf(query: string): string | undefined {
  const last = /(?:^|\s)([\p{L}\p{N}]{2,32})$/u.exec(query)
  return last?.[1]
}
