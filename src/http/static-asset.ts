import { createHash } from 'node:crypto'
import { ifNoneMatchHits } from './entity-tags'

/**
 * A file a web page of ours needs (a stylesheet, a script, an image), embedded as text at build time
 * (`with { type: 'text' }` is inlined by `bun build`, for the binary and for the Node and Deno bundles alike), so
 * that the docs site and the console need no file beside the server and no CDN.
 */
export type Asset = { body: string; type: string; etag: string }

export function asset(body: string, type: string): Asset {
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` }
}

/** An asset's response (304 when the client holds it), or a plain 404 when there is no such asset. */
export function assetResponse(found: Asset | undefined, request?: Request, cacheControl = ''): Response {
  if (found === undefined || request === undefined)
    return new Response('no such file', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } })
  const headers = { etag: found.etag, 'cache-control': cacheControl, 'x-content-type-options': 'nosniff' }
  const ifNoneMatch = request.headers.get('if-none-match')
  if (ifNoneMatch !== null && ifNoneMatchHits(ifNoneMatch, found.etag))
    return new Response(null, { status: 304, headers })
  return new Response(found.body, { headers: { ...headers, 'content-type': found.type } })
}

/** How long a versioned asset (its name changes with its content) may be cached. */
export const IMMUTABLE = 'public, max-age=31536000, immutable'
