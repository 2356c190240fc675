import { Elysia } from 'elysia'
import { HttpError } from '../../http/errors'
import { jsonErrors } from '../../http/json-errors'
import type { Logger } from '../../telemetry/logger'
import type { DiscoveryService } from './service'

const TEXT = 'text/plain; charset=utf-8'
const MARKDOWN = 'text/markdown; charset=utf-8'
/** The longest DNS name: a longer Host is no real site's, and each of the files repeats it once per page. */
const HOST_MAX = 253

/**
 * The site's files for machines, public like the site: `/docs/llms.txt` and `/docs/llms-full.txt` (llmstxt.org),
 * `/docs/sitemap.xml` and `/docs/robots.txt`. URLs in them are absolute, on the origin the request was sent to.
 * Each page's Markdown (`/docs/<page>.md`) is answered by the site's own route, through {@link markdownPage}.
 */
export const docsDiscoveryPlugin = (deps: { service: DiscoveryService; logger: Logger }) => {
  const { service } = deps
  const file = (body: string, type: string) =>
    new Response(body, { headers: { 'content-type': type, 'cache-control': 'public, max-age=60' } })
  const hidden = { detail: { hide: true } }
  return new Elysia({ name: 'docs-discovery' })
    .onError(jsonErrors(deps.logger))
    .get('/docs/llms.txt', async ({ request }) => file(await service.llmsTxt(originOf(request)), TEXT), hidden)
    .get('/docs/llms-full.txt', async ({ request }) => file(await service.llmsFullTxt(originOf(request)), TEXT), hidden)
    .get(
      '/docs/sitemap.xml',
      async ({ request }) => file(await service.sitemapXml(originOf(request)), 'application/xml; charset=utf-8'),
      hidden,
    )
    .get('/docs/robots.txt', async ({ request }) => file(await service.robotsTxt(originOf(request)), TEXT), hidden)
}

/** `GET /docs/<page>.md`: the page as Markdown, or a plain 404 when the site has no text for it. */
export async function markdownPage(service: DiscoveryService, path: string): Promise<Response> {
  const text = await service.markdown(path)
  if (text === undefined)
    return new Response(`no page ${path} has a text on this site\n`, { status: 404, headers: { 'content-type': TEXT } })
  return new Response(text, { headers: { 'content-type': MARKDOWN, 'cache-control': 'no-cache' } })
}

/**
 * The origin the request was sent to (this app reads no forwarded headers for URLs).
 *
 * @throws HttpError 400 for a Host longer than a DNS name: 16 KiB of Host over 10,000 pages made 160 MB.
 */
function originOf(request: Request): string {
  const url = new URL(request.url)
  if (url.hostname.length > HOST_MAX)
    throw new HttpError(400, `the Host header names a host of ${url.hostname.length} characters; at most ${HOST_MAX}`)
  return url.origin
}
