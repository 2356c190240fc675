import type { DocsConfig } from '../docs-format/docs-json'
import { parseOperationRef } from '../docs-format/front-matter'
import { readOpenApiFile } from '../docs-format/openapi-file'
import { renderOperation } from './api-page'
import type { SiteFiles } from './files'
import { escapeHtml } from './html'
import { trimSlashes } from './links'
import { type GeneratedPage, generatedPages, groupOpenApi } from './openapi-navigation'
import { endpointKey, type GeneratedNavigation } from './openapi-splice'
import { findOperation, type OpenApiDocument, type Operation, serverUrlsOf } from './openapi-schema'

/** What an API page's operation is looked up in: docs.json, this server's document, and whether docs.json is the default. */
export type SiteDocuments = { config: DocsConfig; ownDocument: () => OpenApiDocument; builtIn: boolean }

/** How deep docs.json is searched for `openapi` keys; real files nest navigation a handful of levels. */
const MAX_CONFIG_DEPTH = 32
/** Parsed documents kept, by path and content: a site has a few. */
const PARSED_CACHE_SIZE = 16

/**
 * Every OpenAPI document docs.json names, in the order it names them, in either docs.json shape: the top-level
 * `openapi` (a string or a list), `api.openapi`, and any navigation element's `openapi` (a tab, anchor, group…;
 * a string, a list, or `{source}`).
 */
function documentsNamed(config: unknown): string[] {
  const found: string[] = []
  const add = (value: unknown) => {
    if (typeof value === 'string' && value.trim() !== '' && !found.includes(value.trim())) found.push(value.trim())
    else if (Array.isArray(value)) for (const each of value) add(each)
    else if (isObject(value) && typeof value.source === 'string') add(value.source)
  }
  const walk = (value: unknown, depth: number) => {
    if (depth > MAX_CONFIG_DEPTH) return
    if (Array.isArray(value)) for (const each of value) walk(each, depth + 1)
    else if (isObject(value)) {
      if (value.openapi !== undefined) add(value.openapi)
      for (const [key, child] of Object.entries(value)) if (key !== 'openapi') walk(child, depth + 1)
    }
  }
  walk(config, 0)
  return found
}

/** A document reference as a stored file's path: `/api/openapi.yaml` and `./api/openapi.yaml` are `api/openapi.yaml`. */
function storedPathOf(reference: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(reference) || reference.startsWith('//')) return undefined
  const path = trimSlashes(reference.trim().replace(/^\.\//, ''))
  return path === '' ? undefined : path
}

/**
 * The repository's OpenAPI documents as the site reads them: parsed from the stored file when first needed,
 * then kept while its bytes stay the same. Every stored document was checked when it was written; one that no
 * longer reads (a stricter rule since) is simply absent.
 */
export class OpenApiDocuments {
  private readonly parsed = new Map<string, OpenApiDocument | undefined>()
  private versioned: { generation: number; version: string } | undefined

  constructor(private readonly files: SiteFiles | undefined) {}

  /** The stored OpenAPI document at `path`, or undefined when there is none. */
  async get(path: string): Promise<OpenApiDocument | undefined> {
    const summary = await this.files?.summary(path)
    if (summary === undefined || summary.kind !== 'openapi') return undefined
    const key = `${path}\n${summary.sha256}`
    if (this.parsed.has(key)) return this.parsed.get(key)
    const content = await this.files!.content(path)
    let document: OpenApiDocument | undefined
    try {
      document = content === undefined ? undefined : readOpenApiFile(path, new TextDecoder().decode(content))
    } catch {
      document = undefined
    }
    this.parsed.set(key, document)
    while (this.parsed.size > PARSED_CACHE_SIZE) this.parsed.delete(this.parsed.keys().next().value!)
    return document
  }

  /** Every stored OpenAPI document's path. */
  async paths(): Promise<string[]> {
    return (await this.files?.openApiPaths()) ?? []
  }

  /**
   * An API page's operation: from the document the reference names, else the first document docs.json names that
   * has it (a stored file at that path, else this server's own /openapi.json), else any stored OpenAPI document.
   */
  async operationHtml(reference: string, site: SiteDocuments): Promise<string> {
    const notice = (message: string) =>
      `<div class="callout callout-warning" role="note"><p>${escapeHtml(message)}</p></div>`
    const located = await this.locate(reference, site)
    if (located.ref === undefined)
      return notice(`The front matter's openapi value "${reference}" is not "METHOD /path".`)
    if (located.found !== undefined) {
      const { document, operation, own } = located.found
      return renderOperation(document, operation, site.config, {
        sameOrigin: own && site.builtIn,
        servers: own ? undefined : serverUrlsOf(document),
      })
    }
    const { ref, searched, unfetched } = located
    const offline =
      unfetched.length === 0
        ? ''
        : ` Documents at other addresses are not fetched (${unfetched.join(', ')}): the site works offline; store ` +
          'the file in the repository and push it with trellis docs push.'
    return notice(
      `${ref.method} ${ref.path} is not an operation of ${searched.join(', ') || 'any stored document'}.${offline}`,
    )
  }

  /** The operation an `openapi:` front matter names, looked up as {@link operationHtml} does; undefined when none. */
  async operation(reference: string, site: SiteDocuments): Promise<Operation | undefined> {
    return (await this.locate(reference, site)).found?.operation
  }

  private async locate(reference: string, site: SiteDocuments) {
    const ref = parseOperationRef(reference)
    const searched: string[] = []
    const unfetched: string[] = []
    if (ref === undefined) return { ref, searched, unfetched }
    const named = documentsNamed(site.config)
    const references =
      ref.document !== undefined
        ? [ref.document]
        : [...(named.length === 0 ? ['/openapi.json'] : named), ...(site.builtIn ? [] : await this.paths())]
    const seen = new Set<string>()
    for (const source of references) {
      const path = storedPathOf(source)
      if (seen.has(path ?? source)) continue
      seen.add(path ?? source)
      // Trellis's own site documents this server, whatever files an author stored before their docs.json.
      const stored = path === undefined || site.builtIn ? undefined : await this.get(path)
      const own = stored === undefined && isOwnDocument(source)
      const document = stored ?? (own ? site.ownDocument() : undefined)
      if (document === undefined) {
        if (path === undefined) unfetched.push(source)
        else searched.push(`${source} (no such document is stored)`)
        continue
      }
      searched.push(source)
      const operation = findOperation(document, ref.method, ref.path)
      if (operation !== undefined) return { ref, searched, unfetched, found: { document, operation, own } }
    }
    return { ref, searched, unfetched }
  }

  /**
   * The stored OpenAPI documents as one string (each path and content hash) that changes when any of them does;
   * read again only when a file was stored or deleted.
   */
  async version(): Promise<string> {
    const generation = (await this.files?.generation()) ?? 0
    if (this.versioned?.generation === generation) return this.versioned.version
    const parts: string[] = []
    for (const path of await this.paths()) parts.push(`${path}=${(await this.files?.summary(path))?.sha256 ?? ''}`)
    this.versioned = { generation, version: parts.join('\n') }
    return this.versioned.version
  }

  /**
   * The pages docs.json's navigation generates from OpenAPI documents, in either shape: each group's or level's
   * `"openapi": document` (all its operations, by the source as written), and each `"METHOD /path"` or
   * `"document METHOD /path"` page entry (one operation of the entry's document, else of the nearest enclosing
   * `openapi`, else of docs.json's first `openapi` or `api.openapi`; by endpointKey). A source is the stored
   * document at that path, else this server's own for `/openapi.json`; one that names neither generates nothing.
   */
  async generatedNavigation(config: DocsConfig, ownDocument: () => OpenApiDocument): Promise<GeneratedNavigation> {
    const groups = new Map<string, GeneratedPage[]>()
    const endpoints = new Map<string, GeneratedPage>()
    const loaded = new Map<string, OpenApiDocument | undefined>()
    const load = async (source: string) => {
      if (!loaded.has(source)) {
        const path = storedPathOf(source)
        const stored = path === undefined ? undefined : await this.get(path)
        loaded.set(source, stored ?? (isOwnDocument(source) ? ownDocument() : undefined))
      }
      return loaded.get(source)
    }
    const endpoint = async (entry: string, inherited: string | undefined) => {
      const ref = entry.includes(' ') ? parseOperationRef(entry) : undefined
      const source = ref?.document ?? inherited
      if (ref === undefined || source === undefined) return
      const document = await load(source)
      const page = document && generatedPages({ source, directory: 'api-reference' }, document, ref)[0]
      if (page !== undefined) endpoints.set(endpointKey(entry, inherited), page)
    }
    // Every level of either shape (groups, pages, tabs, anchors, dropdowns, versions, languages …) is walked alike:
    // an `openapi` anywhere generates its pages and is inherited below it.
    const visit = async (value: unknown, inherited: string | undefined, depth: number): Promise<void> => {
      if (depth > MAX_CONFIG_DEPTH) return
      if (Array.isArray(value)) {
        for (const entry of value)
          if (typeof entry === 'string') await endpoint(entry, inherited)
          else await visit(entry, inherited, depth + 1)
        return
      }
      if (!isObject(value)) return
      const from = groupOpenApi(value.openapi)
      if (from !== undefined && !groups.has(from.source)) {
        const document = await load(from.source)
        if (document !== undefined) groups.set(from.source, generatedPages(from, document))
      }
      for (const [key, child] of Object.entries(value))
        if (key !== 'openapi' && typeof child === 'object' && child !== null)
          await visit(child, from?.source ?? inherited, depth + 1)
    }
    const api = (config as { api?: { openapi?: unknown } }).api?.openapi
    const top = documentsNamed({ openapi: config.openapi })[0] ?? documentsNamed({ openapi: api })[0]
    await visit(config.navigation, top, 0)
    return { top, groups, endpoints }
  }
}

/**
 * This server's document, however docs.json spells it: `/openapi.json`, `openapi.json`, or the server's own URL path.
 */
function isOwnDocument(source: string): boolean {
  return /^(?:\.?\/)?openapi\.json$/.test(source.trim())
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
