import { type OpenApiDocument, operationsOf } from './openapi-schema'
import { trimSlashes } from './links'

/** Where Mintlify puts a generated group's pages when its `openapi` names no `directory`. */
const DEFAULT_DIRECTORY = 'api-reference'

/** One page a navigation group's `openapi` generates: an operation, at the path Mintlify publishes it at. */
export type GeneratedPage = {
  /** `{directory}/{tag}/{title slug}`, as operationsOf names it. */
  path: string
  title: string
  /** The first tag, which Mintlify makes a subgroup of. */
  tag?: string
  /** The page's front matter `openapi` value: `<document> METHOD /path`. */
  reference: string
}

/**
 * A navigation element's `openapi` as a document and a folder: `"openapi.yaml"`, or `{source, directory}`;
 * undefined for anything else (a list names documents for its pages' `METHOD /path` entries, generating nothing).
 */
export function groupOpenApi(value: unknown): { source: string; directory: string } | undefined {
  if (typeof value === 'string' && value.trim() !== '') return { source: value.trim(), directory: DEFAULT_DIRECTORY }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const { source, directory } = value as { source?: unknown; directory?: unknown }
  if (typeof source !== 'string' || source.trim() === '') return undefined
  const folder = typeof directory === 'string' ? trimSlashes(directory.trim()) : ''
  return { source: source.trim(), directory: folder === '' ? DEFAULT_DIRECTORY : folder }
}

/**
 * The pages a group with `"openapi": source` lists: one per operation of `document` (in document order, hidden
 * operations left out), at `{directory}/{slug}`; with `only`, just that operation (a `"METHOD /path"` page entry).
 * Shared by both docs.json shapes' navigation: the older shape's groups (SiteMap) and the current shape's groups,
 * tabs and anchors.
 *
 * @example
 * generatedPages({ source: 'openapi.yaml', directory: 'api-reference' }, document)
 * // [{ path: 'api-reference/beds/read-a-bed', title: 'Read a bed', tag: 'Beds', reference: 'openapi.yaml GET /beds/{bedId}' }, …]
 */
export function generatedPages(
  from: { source: string; directory: string },
  document: OpenApiDocument,
  only?: { method: string; path: string },
): GeneratedPage[] {
  const seen = new Set<string>()
  const pages: GeneratedPage[] = []
  for (const operation of operationsOf(document)) {
    if (only !== undefined && (operation.method !== only.method || operation.path !== only.path)) continue
    let path = `${from.directory}/${operation.slug}`
    // Two operations with one summary would share a page; the second gets its method and path instead.
    if (seen.has(path))
      path = `${from.directory}/${operation.method.toLowerCase()}${operation.path.replace(/\//g, '-')}`
    if (seen.has(path)) continue
    seen.add(path)
    pages.push({
      path,
      title: operation.title,
      tag: operation.tags[0],
      reference: `${from.source} ${operation.method} ${operation.path}`,
    })
  }
  return pages
}

/** A generated page's text: front matter naming its operation, as an author's API page would. */
export function generatedPageText(page: GeneratedPage): string {
  return `---\ntitle: ${JSON.stringify(page.title)}\nopenapi: ${JSON.stringify(page.reference)}\n---\n`
}
