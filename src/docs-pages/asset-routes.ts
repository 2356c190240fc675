import { Elysia, t } from 'elysia'
import { type AuthDeps, authPlugin, authenticatedBody, BEARER_SECURITY } from '../auth'
import { readLimited } from '../http/body'
import { HttpError } from '../http/errors'
import { ErrorBody, errorStatuses, jsonErrors } from '../http/json-errors'
import { bodiless } from '../http/media-type'
import { NEXT_PAGE_LINK } from '../http/openapi-document'
import type { Logger } from '../telemetry/logger'
import { assetPathProblem } from '../docs-format/asset-files'
import { AssetList, AssetListQuery, ASSETS_LIST_DEFAULT, ASSETS_LIST_MAX, StoredAssetResult } from './asset-model'
import { AssetPreconditionFailed, AssetTooLarge, type DocsAssetsService, InvalidAsset } from './asset-service'

export type DocsAssetsDeps = { service: DocsAssetsService; auth: AuthDeps; logger: Logger }

const errors = (...statuses: number[]) => errorStatuses(ErrorBody, ...statuses)

const PREFIX = '/docs/assets/'

/**
 * The docs repository's files beside its pages: `PUT /docs/assets/{path}` and `DELETE /docs/assets/{path}`
 * (docs:write), `GET /docs/assets` (public; the list). The site serves each file at `/docs/{path}`, where a page
 * or docs.json that names `/images/hero.png` or `images/hero.png` finds it (see src/docs-site/index.ts).
 */
export const docsAssetsPlugin = (deps: DocsAssetsDeps) => {
  const { service } = deps
  return new Elysia({ name: 'docs-assets' })
    .use(authPlugin(deps.auth))
    .onError(jsonErrors(deps.logger))
    .get(
      '/docs/assets',
      async ({ query, request, set }) => {
        const limit = query.limit === undefined ? ASSETS_LIST_DEFAULT : Number(query.limit)
        const page = await service.list(limit, query.after)
        if (page.next !== undefined)
          set.headers.link = `<${new URL(request.url).pathname}?limit=${limit}&after=${encodeURIComponent(page.next)}>; rel="next"`
        return { files: page.files }
      },
      {
        query: AssetListQuery,
        response: { 200: AssetList, ...errors(400, 500, 503) },
        detail: {
          summary: 'List the documentation files',
          description:
            `Public. Every stored file (image, video, font, data or OpenAPI document) without its bytes, sorted by ` +
            `path, ${ASSETS_LIST_DEFAULT} at a time (\`limit\`, at most ${ASSETS_LIST_MAX}); a \`Link: <…>; ` +
            'rel="next"` header points at the next page.',
          tags: ['docs files'],
          responses: {
            200: { description: 'One page of files.', headers: NEXT_PAGE_LINK },
            400: { description: '`limit` is not an integer from 1 to 1000, or `after` is not a file path.' },
          },
        },
      },
    )
    .put(
      '/docs/assets/*',
      async ({ body, principal, params, request, set }) => {
        try {
          const { stored, created, unchanged } = await service.put({
            path: requestedPath(params['*']),
            content: body as Uint8Array,
            author: principal.owner,
            ifMatch: request.headers.get('if-match') ?? undefined,
            ifNoneMatch: request.headers.get('if-none-match') ?? undefined,
          })
          set.headers.etag = stored.etag
          set.status = created ? 201 : 200
          return { ...stored, unchanged }
        } catch (error) {
          if (error instanceof InvalidAsset) throw new HttpError(400, error.message)
          if (error instanceof AssetTooLarge) throw new HttpError(413, error.message)
          if (error instanceof AssetPreconditionFailed)
            throw new HttpError(
              412,
              error.message,
              error.current === undefined ? {} : { headers: { etag: error.current } },
            )
          throw error
        }
      },
      {
        // The path is checked before the body is read, and the body is read up to the per-file cap only.
        ...authenticatedBody(deps.auth, 'docs:write', async (request) => {
          requestedPath(new URL(request.url).pathname.slice(PREFIX.length))
          return readBytes(request, service)
        }),
        response: { 200: StoredAssetResult, 201: StoredAssetResult, ...errors(400, 401, 403, 412, 413, 429, 500, 503) },
        detail: {
          summary: 'Store a documentation file',
          description:
            'Needs the docs:write scope. The body is the file, as is (any Content-Type; what it is served as comes ' +
            'from the extension). The path is the file in the repository (`images/hero.png`), served by the site ' +
            'at `/docs/images/hero.png`; it replaces whatever the path held (201 for a new path). A `.json`, ' +
            '`.yaml` or `.yml` file must parse, and one that says `openapi:` must be a usable OpenAPI 3.0 or 3.1 ' +
            'document: 400 names the problem. A file over DOCS_ASSET_MAX_BYTES (25 MiB), or one that would take ' +
            "the site's files past DOCS_ASSETS_MAX_BYTES (1 GiB), answers 413.",
          security: BEARER_SECURITY,
          tags: ['docs files'],
          requestBody: {
            required: true,
            description: 'The file, byte for byte.',
            content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
          },
          responses: {
            200: { description: 'Replaced the file at this path (or unchanged: the same bytes); the body says which.' },
            201: { description: 'Stored a file at a path that held none.' },
            400: { description: 'A bad path (`..`, a hidden file, an extension the store does not take) or content.' },
            412: { description: 'If-Match or If-None-Match does not hold.' },
            413: { description: 'The file or the site is over its cap; the message names the setting.' },
          },
        },
      },
    )
    .delete(
      '/docs/assets/*',
      async ({ params, set }) => {
        const path = requestedPath(params['*'])
        if (!(await service.remove(path))) throw new HttpError(404, `no file ${path} is stored`)
        return bodiless(204, set)
      },
      {
        auth: 'docs:write',
        response: { 204: t.Void(), ...errors(400, 401, 403, 404, 429, 500, 503) },
        detail: {
          summary: 'Delete a documentation file',
          description: 'Needs the docs:write scope. The site stops serving the file at once (404 after).',
          security: BEARER_SECURITY,
          tags: ['docs files'],
          responses: {
            204: { description: 'Deleted; the site no longer serves the file.' },
            400: { description: 'The path breaks a rule of file paths.' },
            403: { description: 'The token lacks the docs:write scope.' },
            404: { description: 'No file is stored at this path.' },
          },
        },
      },
    )
}

/** The file path of a request, percent-decoded and checked; 400 naming the rule otherwise. */
function requestedPath(raw: string | undefined): string {
  let path: string
  try {
    path = decodeURIComponent(raw ?? '')
  } catch {
    throw new HttpError(400, `the file path ${JSON.stringify(raw)} has a malformed percent-escape`)
  }
  const problem = assetPathProblem(path)
  if (problem !== undefined) throw new HttpError(400, problem)
  return path
}

/** The body's bytes, refused with 413 as soon as they pass the per-file cap (declared or counted). */
async function readBytes(request: Request, service: DocsAssetsService): Promise<Uint8Array> {
  const limit = service.maxFileBytes
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > limit)
    throw new HttpError(413, service.fileTooLarge(Number(declared)).message)
  if (request.body === null) return new Uint8Array()
  const bytes = await readLimited(request.body, limit)
  if (bytes === undefined) throw new HttpError(413, service.fileTooLarge().message)
  return bytes
}
