import { readOpenApiFile } from '../docs-format/openapi-file'
import type { SiteFiles } from './files'
import { trimSlashes } from './links'
import type { OpenApiDocument } from './openapi-schema'

/** How deep docs.json is searched for `openapi` keys; real files nest navigation a handful of levels. */
const MAX_CONFIG_DEPTH = 32
/** Parsed documents kept, by path and content: a site has a few. */
const PARSED_CACHE_SIZE = 16

/**
 * Every OpenAPI document docs.json names, in the order it names them, in either docs.json shape: the top-level
 * `openapi` (a string or a list), `api.openapi`, and any navigation element's `openapi` (a tab, anchor, group…;
 * a string, a list, or `{source}`).
 */
export function documentsNamed(config: unknown): string[] {
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
export function storedPathOf(reference: string): string | undefined {
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
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
