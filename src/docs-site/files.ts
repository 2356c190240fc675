import { ifNoneMatchHits } from '../http/entity-tags'
import { assetTypeOf, isHashedName } from '../docs-format/asset-files'
import { type Asset, builtInFile } from './assets'

/** A stored repository file as the site sees it; its bytes are read only when they are sent. */
type SiteFile = { contentType: string; etag: string; sha256: string; kind: 'file' | 'openapi' }

/** The repository's stored files (images, fonts, OpenAPI documents…); app.ts wires them to the asset store. */
export type SiteFiles = {
  /** A number that changes whenever any file is stored or deleted. */
  generation: () => Promise<number>
  summary: (path: string) => Promise<SiteFile | undefined>
  content: (path: string) => Promise<Uint8Array | undefined>
  /** The paths of the stored OpenAPI documents. */
  openApiPaths: () => Promise<string[]>
}

/** A year, for names that change with their content (`logo.3f9a2c1b.svg`). */
const IMMUTABLE = 'public, max-age=31536000, immutable'
/** Any other name can get new bytes at any time: caches keep the file but ask (a 304 costs no bytes). */
const REVALIDATE = 'public, no-cache'
/**
 * An SVG opened on its own is a document that could run script: served with a CSP that allows none (`sandbox`
 * also gives it an opaque origin), so a file an author uploads can never act as this site. `<img>` never runs it.
 */
const FILE_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; sandbox"

/**
 * The response for a repository file at `path` (`images/hero.png` for `/docs/images/hero.png`): the author's
 * stored file first, else Trellis's built-in file at that path (`logo/light.svg`, `favicon.svg`); undefined when
 * the path names neither (it may still be a page). Only paths with a file extension are looked up.
 */
export async function fileResponse(
  files: SiteFiles | undefined,
  path: string,
  request: Request,
): Promise<Response | undefined> {
  if (assetTypeOf(path) === undefined) return undefined
  const stored = await files?.summary(path)
  if (stored !== undefined) {
    const cache = isHashedName(path) ? IMMUTABLE : REVALIDATE
    const headers = headersFor(stored.contentType, stored.etag, cache)
    if (notModified(request, stored.etag)) return new Response(null, { status: 304, headers })
    // HEAD reads the bytes too: the server sends their length and drops them, so Content-Length is true.
    const content = await files!.content(path)
    if (content === undefined) return undefined
    return new Response(content as Uint8Array<ArrayBuffer>, {
      headers: { ...headers, 'content-type': stored.contentType },
    })
  }
  const builtIn = builtInFile(path)
  return builtIn === undefined ? undefined : builtInResponse(builtIn, request, 'public, max-age=300')
}

/** A built-in file's response: the same headers as a stored one. */
function builtInResponse(asset: Asset, request: Request, cacheControl: string): Response {
  const headers = headersFor(asset.type, asset.etag, cacheControl)
  if (notModified(request, asset.etag)) return new Response(null, { status: 304, headers })
  return new Response(asset.body, { headers: { ...headers, 'content-type': asset.type } })
}

function headersFor(type: string, etag: string, cacheControl: string): Record<string, string> {
  const headers: Record<string, string> = { etag, 'cache-control': cacheControl, 'x-content-type-options': 'nosniff' }
  // A PDF viewer is a plugin the sandbox would block; every other type gets the locked-down policy.
  if (type !== 'application/pdf') headers['content-security-policy'] = FILE_CSP
  return headers
}

function notModified(request: Request, etag: string): boolean {
  const ifNoneMatch = request.headers.get('if-none-match')
  return ifNoneMatch !== null && ifNoneMatchHits(ifNoneMatch, etag)
}
