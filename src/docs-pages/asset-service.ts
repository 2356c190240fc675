import { createHash } from 'node:crypto'
import { ifMatchAccepts, ifNoneMatchHits } from '../http/entity-tags'
import { assetPathProblem, assetTypeOf, extensionOf, OPENAPI_EXTENSIONS } from '../docs-format/asset-files'
import {
  declaresOpenApi,
  OPENAPI_MAX_BYTES,
  OpenApiFileError,
  openApiProblems,
  parseDataFile,
} from '../docs-format/openapi-file'
import { type AssetSummary, type DocsAssetsStore, SiteCapExceeded, type StoredAsset } from './asset-store'

export type { AssetSummary, StoredAsset } from './asset-store'

/** The caps on stored files: `DOCS_ASSET_MAX_BYTES` and `DOCS_ASSETS_MAX_BYTES`. */
export type AssetCaps = { maxFileBytes: number; maxSiteBytes: number }

/** What a PUT asks for: `ifMatch` and `ifNoneMatch` are the request's headers, as sent. */
export type AssetPut = { path: string; content: Uint8Array; author: string; ifMatch?: string; ifNoneMatch?: string }

/** The file cannot be stored as sent (its path, or its content as a data or OpenAPI file); the message says why. */
export class InvalidAsset extends Error {
  override name = 'InvalidAsset'
}

/** The file, or all files together, would pass a cap; the message names the cap and its setting. */
export class AssetTooLarge extends Error {
  override name = 'AssetTooLarge'
}

/** `If-Match` / `If-None-Match` does not hold; `current` is the stored file's ETag. */
export class AssetPreconditionFailed extends Error {
  override name = 'AssetPreconditionFailed'
  constructor(
    message: string,
    readonly current: string | undefined,
  ) {
    super(message)
  }
}

const MIB = 1024 * 1024
const inMib = (bytes: number) => `${Math.round((bytes / MIB) * 100) / 100} MiB`

/**
 * The docs repository's files without HTTP: images, videos, fonts and data files, and the OpenAPI documents among
 * them (a `.json`/`.yaml`/`.yml` file that says `openapi:` is checked as OpenAPI 3.0 or 3.1 before it is stored,
 * and marked so the site renders its operations).
 */
export class DocsAssetsService {
  constructor(
    private readonly store: DocsAssetsStore,
    private readonly caps: AssetCaps,
  ) {}

  get maxFileBytes(): number {
    return this.caps.maxFileBytes
  }

  summary(path: string): Promise<AssetSummary | undefined> {
    return this.store.summary(path)
  }

  get(path: string): Promise<StoredAsset | undefined> {
    return this.store.get(path)
  }

  /** A page of `limit` files after `after`, and the path to continue after when more exist. */
  async list(limit: number, after?: string): Promise<{ files: AssetSummary[]; next?: string }> {
    const rows = await this.store.list(limit + 1, after)
    const files = rows.slice(0, limit)
    return { files, next: rows.length > limit ? files.at(-1)!.path : undefined }
  }

  openApiPaths(): Promise<string[]> {
    return this.store.openApiPaths()
  }

  generation(): Promise<number> {
    return this.store.generation()
  }

  /**
   * Stores the file, replacing what the path held; identical bytes store nothing (`unchanged`).
   *
   * @throws InvalidAsset, AssetTooLarge, AssetPreconditionFailed
   */
  async put(input: AssetPut): Promise<{ stored: AssetSummary; created: boolean; unchanged: boolean }> {
    const problem = assetPathProblem(input.path)
    if (problem !== undefined) throw new InvalidAsset(problem)
    const size = input.content.byteLength
    if (size > this.caps.maxFileBytes) throw this.fileTooLarge(size)
    const kind = openApiKind(input.path, input.content)
    const sha256 = createHash('sha256').update(input.content).digest('hex')
    const current = await this.store.summary(input.path)
    checkPreconditions(input, current)
    if (current?.sha256 === sha256 && current.kind === kind) return { stored: current, created: false, unchanged: true }
    const asset = { content: input.content, contentType: assetTypeOf(input.path)!, kind, sha256, size }
    try {
      const { stored, created } = await this.store.write(
        input.path,
        { ...asset, author: input.author },
        this.caps.maxSiteBytes,
      )
      return { stored, created, unchanged: false }
    } catch (error) {
      if (!(error instanceof SiteCapExceeded)) throw error
      throw new AssetTooLarge(
        `the site's files would hold ${inMib(error.used + size)} with this one; all files together may hold at most ` +
          `${inMib(error.cap)} (DOCS_ASSETS_MAX_BYTES). Delete files with DELETE /docs/assets/{path}, or raise the cap`,
      )
    }
  }

  /** Deletes the file; false when the path held none. */
  remove(path: string): Promise<boolean> {
    return this.store.remove(path)
  }

  /** The 413 for a body over the per-file cap. */
  fileTooLarge(size?: number): AssetTooLarge {
    return new AssetTooLarge(
      `${size === undefined ? 'the file is' : `the file is ${inMib(size)}, `} over the cap of ${inMib(this.caps.maxFileBytes)} ` +
        'per file (DOCS_ASSET_MAX_BYTES)',
    )
  }
}

/**
 * `openapi` for a data file that declares itself an OpenAPI document and is one; `file` for any other file.
 *
 * @throws InvalidAsset when a data file does not parse, or says `openapi:` and is not a usable document.
 */
function openApiKind(path: string, content: Uint8Array): 'file' | 'openapi' {
  const extension = extensionOf(path)
  if (!OPENAPI_EXTENSIONS.includes(extension as (typeof OPENAPI_EXTENSIONS)[number])) return 'file'
  if (content.byteLength > OPENAPI_MAX_BYTES)
    throw new InvalidAsset(
      `${path}: a .${extension} file is read as data and may hold at most ${inMib(OPENAPI_MAX_BYTES)}`,
    )
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(content)
  } catch {
    throw new InvalidAsset(`${path} is not valid UTF-8`)
  }
  try {
    const value = parseDataFile(path, text)
    if (!declaresOpenApi(value)) return 'file'
    const problems = openApiProblems(value)
    if (problems.length > 0) throw new InvalidAsset(`${path} is not a usable OpenAPI document: ${problems.join('; ')}`)
    return 'openapi'
  } catch (error) {
    if (error instanceof OpenApiFileError) throw new InvalidAsset(error.message)
    throw error
  }
}

function checkPreconditions(input: AssetPut, current: AssetSummary | undefined): void {
  if (input.ifNoneMatch !== undefined && current !== undefined && ifNoneMatchHits(input.ifNoneMatch, current.etag))
    throw new AssetPreconditionFailed(`file ${input.path} exists; its current ETag is ${current.etag}`, current.etag)
  if (input.ifMatch === undefined) return
  if (current === undefined)
    throw new AssetPreconditionFailed(`file ${input.path} does not exist, so If-Match cannot match`, undefined)
  if (!ifMatchAccepts(input.ifMatch, current.etag))
    throw new AssetPreconditionFailed(
      `file ${input.path} has changed; its current ETag is ${current.etag}`,
      current.etag,
    )
}
