import { FrontMatterError, parseFrontMatter, parseOperationRef, type FrontMatter } from '../docs-format/front-matter'
import { findOperation, type OpenApiDocument, type Operation } from './openapi-schema'

/**
 * What the search index and the files for machines read of a page's text, as the site reads it: front matter whose
 * problem the site reports on the page is no front matter here, and the whole text is the body.
 */
export function frontMatterOf(text: string): { data: FrontMatter; body: string } {
  try {
    return parseFrontMatter(text)
  } catch (error) {
    if (!(error instanceof FrontMatterError)) throw error
    return { data: {}, body: text }
  }
}

/** `chat/tool-calls` → `Tool calls`, as the sidebar labels a page without a title. */
export function humanize(path: string): string {
  const words = (path.split('/').at(-1) ?? path).replace(/[-_]+/g, ' ').trim()
  return words === '' ? path : words[0]!.toUpperCase() + words.slice(1)
}

/**
 * The operation a page's `openapi:` front matter names: `operation` when it is one of this server's own document
 * (`/openapi.json`), else only `label` ("METHOD /path", or the reference as written when it is not one).
 */
export function referencedOperation(
  reference: string,
  document: OpenApiDocument,
): { label: string; operation?: Operation } {
  const ref = parseOperationRef(reference)
  if (ref === undefined) return { label: reference }
  const own = ref.document === undefined || /^(?:\.?\/)?openapi\.json$/.test(ref.document.trim())
  const operation = own ? findOperation(document, ref.method, ref.path) : undefined
  return { label: `${ref.method} ${ref.path}`, ...(operation === undefined ? {} : { operation }) }
}
