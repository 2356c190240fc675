import { Elysia } from 'elysia'
import { ifNoneMatchHits } from '../http/entity-tags'
import { assetResponse, IMMUTABLE } from '../http/static-asset'
import { jsonErrors } from '../http/json-errors'
import type { Logger } from '../telemetry/logger'
import { siteAsset } from './assets'
import { fileResponse } from './files'
import { trimSlashes } from './links'
import { DocsSiteService, type RedirectPage, type SitePage, type SiteSources } from './service'

/**
 * Where the site's docs.json, pages and the server's own OpenAPI document come from; app.ts wires them, and passes the
 * service when it also asks it about pages being stored (DocsSiteService.pageProblem). `markdownPage` answers
 * `/docs/<page>.md` (the page as Markdown; see discovery/).
 */
export type DocsSiteDeps = {
  sources: SiteSources
  logger: Logger
  service?: DocsSiteService
  markdownPage?: (path: string) => Promise<Response>
}

const HTML_TYPE = 'text/html; charset=utf-8'

/**
 * The documentation site that docs.json describes: `GET /docs/` and `GET /docs/{page path}`, server-rendered
 * from the current docs.json and stored pages, plus its own stylesheet, script and built-in images under
 * /docs/_assets/ and /docs/_files/. Public, like GET /docs.json. Not in the OpenAPI document: these are
 * web pages, not API operations. `/docs/pages/…` is the pages API (a more specific route), not the site.
 */
export const docsSitePlugin = (deps: DocsSiteDeps) => {
  const service = deps.service ?? new DocsSiteService(deps.sources)
  return (
    new Elysia({ name: 'docs-site' })
      // The database behind a page can fail like any route's: a 503 with Retry-After, its cause in the log only.
      .onError(jsonErrors(deps.logger))
      // Elysia routes /docs and /docs/ alike (strictPath is off); the site's links are absolute, so both serve the home
      // page.
      .get('/docs/', async ({ request }) => pageResponse(await service.serve(''), request), { detail: { hide: true } })
      .get('/docs/_assets/:file', ({ params, request }) => assetResponse(siteAsset(params.file), request, IMMUTABLE), {
        detail: { hide: true },
      })
      // Where docs.json images pointed before the site served the repository's files at their own paths.
      .get(
        '/docs/_files/*',
        async ({ params, request }) =>
          (await fileResponse(deps.sources.files, decodePath(params['*']) ?? '', request)) ?? assetResponse(undefined),
        { detail: { hide: true } },
      )
      .get('/docs/*', ({ params, request }) => pageOrFile(params['*'], request), { detail: { hide: true } })
      .head('/docs/*', ({ params, request }) => pageOrFile(params['*'], request), { detail: { hide: true } })
  )

  /**
   * A repository file (`/docs/images/hero.png`: the author's stored file, else a built-in one at that path), or
   * the page at that path. A malformed escape names no page: the site's 404 page, like any other unknown address.
   */
  async function pageOrFile(raw: string | undefined, request: Request): Promise<Response> {
    const path = decodePath(raw)
    if (deps.markdownPage !== undefined && path?.endsWith('.md') && path.length > 3)
      return deps.markdownPage(path.slice(0, -3))
    const file = path === undefined ? undefined : await fileResponse(deps.sources.files, path, request)
    return file ?? pageResponse(await service.serve(path ?? '\u0000'), request)
  }
}

function pageResponse(page: SitePage | RedirectPage, request: Request): Response {
  if ('location' in page) {
    // Permanent redirects may be cached by browsers, as Mintlify's are; temporary ones are asked again.
    const cache = page.status === 308 ? 'public, max-age=300' : 'no-cache'
    return new Response(null, { status: page.status, headers: { location: page.location, 'cache-control': cache } })
  }
  const headers: Record<string, string> = {
    etag: page.etag,
    'cache-control': 'no-cache',
    'content-security-policy': page.csp,
    'x-content-type-options': 'nosniff',
    // The CSP's frame-ancestors says the same; browsers that predate it read this one.
    'x-frame-options': 'DENY',
    'referrer-policy': 'strict-origin-when-cross-origin',
  }
  const ifNoneMatch = request.headers.get('if-none-match')
  if (page.status === 200 && ifNoneMatch !== null && ifNoneMatchHits(ifNoneMatch, page.etag))
    return new Response(null, { status: 304, headers })
  return new Response(page.html, { status: page.status, headers: { ...headers, 'content-type': HTML_TYPE } })
}

/**
 * The wildcard's text as a page path: percent-decoded per segment; undefined when an escape is malformed or
 * decodes to NUL, which names no page or file (PostgreSQL text cannot hold it: the lookup was a 500).
 */
function decodePath(raw: string | undefined): string | undefined {
  if (raw === undefined) return ''
  try {
    const path = trimSlashes(raw.split('/').map(decodeURIComponent).join('/'), 'end')
    return path.includes('\u0000') ? undefined : path
  } catch {
    return undefined
  }
}
