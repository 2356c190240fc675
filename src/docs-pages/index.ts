import { Elysia, t } from 'elysia'
import { type AuthDeps, authenticatedBody, authPlugin, BEARER_SECURITY } from '../auth'
import { DOCS_BODY_LIMIT, readBodyText, requireContentType } from '../http/body'
import { ifNoneMatchHits } from '../http/entity-tags'
import { HttpError } from '../http/errors'
import { bodiless } from '../http/media-type'
import { NEXT_PAGE_LINK } from '../http/openapi-document'
import { ErrorBody, errorStatuses, jsonErrors } from '../http/json-errors'
import type { Logger } from '../telemetry/logger'
import { FrontMatterError } from '../docs-format/front-matter'
import {
  MARKDOWN_MEDIA_TYPE,
  PAGE_MEDIA_TYPES,
  PageList,
  PageListQuery,
  PageQuery,
  PAGES_LIST_DEFAULT,
  PAGES_LIST_MAX,
  StoredPageResult,
} from './model'
import { pagePathProblem } from './page-path'
import {
  DocsPagesService,
  InvalidPagePath,
  PageNotRenderable,
  PagePreconditionFailed,
  PageWritersBusy,
  UnstorablePage,
  type PageSummary,
  type StoredPage,
} from './service'

export type DocsPagesDeps = { service: DocsPagesService; auth: AuthDeps; logger: Logger }

const errors = (...statuses: number[]) => errorStatuses(ErrorBody, ...statuses)

const PREFIX = '/docs/pages/'

const ETAG_HEADER = {
  description: "The revision's entity tag (a digest of its text), for If-None-Match and If-Match.",
  schema: { type: 'string' as const },
}

const MARKDOWN_TEXT = { schema: { type: 'string' as const } }

const PAGE_BODY_DOC = {
  required: true,
  description:
    'The page: Markdown (MDX as Mintlify writes it), optionally opening with a YAML front matter block between ' +
    'two `---` lines. `title`, `description`, `sidebarTitle` and `openapi` ("METHOD /path" or "<document> METHOD ' +
    '/path") must be strings; other keys are kept unchecked. Stored exactly as sent.',
  content: Object.fromEntries(PAGE_MEDIA_TYPES.map((type) => [type, MARKDOWN_TEXT])),
}

/**
 * The documentation site's Markdown pages: `PUT /docs/pages/{path}` (docs:write; a new revision each
 * time, If-Match / If-None-Match), `GET /docs/pages/{path}` (public; the text as stored, ETag,
 * `?revision=N`) and `GET /docs/pages` (public; the newest revision of every page, paged). A path may
 * hold slashes (`plants/overview`), sent as they are or as %2F. Errors use the plant store's
 * `{error, message}` contract.
 */
export const docsPagesPlugin = (deps: DocsPagesDeps) => {
  const { service } = deps

  return new Elysia({ name: 'docs-pages' })
    .use(authPlugin(deps.auth))
    .onError(jsonErrors(deps.logger))
    .get(
      '/docs/pages',
      async ({ query, request, set }) => {
        const limit = query.limit === undefined ? PAGES_LIST_DEFAULT : Number(query.limit)
        const page = await service.list(limit, query.after)
        if (page.next !== undefined)
          set.headers.link = `<${new URL(request.url).pathname}?limit=${limit}&after=${encodeURIComponent(page.next)}>; rel="next"`
        return { pages: page.pages.map(listItem) }
      },
      {
        query: PageListQuery,
        response: { 200: PageList, ...errors(400, 500, 503) },
        detail: {
          summary: 'List the documentation pages',
          description:
            `Public. The newest revision of every page, sorted by path (byte order), ${PAGES_LIST_DEFAULT} at a ` +
            `time unless \`limit\` says otherwise (at most ${PAGES_LIST_MAX}): path, revision, front matter title, ` +
            `description and openapi reference, size, ETag and when it was last stored. When more exist, a \`Link: ` +
            `<…>; rel="next"\` header points at the next page.`,
          tags: ['docs pages'],
          responses: {
            200: { description: 'One page of page summaries.', headers: NEXT_PAGE_LINK },
            400: { description: '`limit` is not an integer from 1 to 1000, or `after` is longer than a page path.' },
          },
        },
      },
    )
    .get(
      '/docs/pages/*',
      async ({ params, query, request, set }) => {
        const path = requestedPagePath(params['*'])
        const page = await service.stored(path, query.revision === undefined ? undefined : Number(query.revision))
        if (page === undefined) throw await notFound(service, path, query.revision)
        const headers = { etag: page.etag, 'cache-control': 'no-cache' }
        const ifNoneMatch = request.headers.get('if-none-match')
        if (ifNoneMatch !== null && ifNoneMatchHits(ifNoneMatch, page.etag)) return bodiless(304, set, headers)
        return new Response(page.source, { headers: { ...headers, 'content-type': MARKDOWN_MEDIA_TYPE } })
      },
      {
        query: PageQuery,
        response: { 200: t.String(), 304: t.Void(), ...errors(400, 404, 500, 503) },
        detail: {
          summary: 'One documentation page',
          description:
            'Public. The newest text of the page exactly as it was stored, front matter included, with an ETag; ' +
            'If-None-Match with that ETag answers 304. `?revision=N` serves an older revision.',
          tags: ['docs pages'],
          responses: {
            200: {
              description: 'The page text, as stored.',
              headers: { ETag: ETAG_HEADER },
              content: { 'text/markdown': MARKDOWN_TEXT },
            },
            304: {
              description: 'Not modified: If-None-Match names the ETag of the revision asked for.',
              headers: { ETag: ETAG_HEADER },
            },
            400: {
              description:
                'The path breaks a rule of page paths (the message names it), has a malformed percent-escape, or `revision` is not a positive integer.',
            },
            404: {
              description:
                'No page with this path (the site shows it as "not written yet"), or no such revision of it.',
            },
          },
        },
      },
    )
    .put(
      '/docs/pages/*',
      async ({ body, principal, params, request, set }) => {
        try {
          const { page, created, unchanged } = await service.put({
            path: requestedPagePath(params['*']),
            text: body as string,
            author: principal.owner,
            ifMatch: request.headers.get('if-match') ?? undefined,
            ifNoneMatch: request.headers.get('if-none-match') ?? undefined,
          })
          set.headers.etag = page.etag
          set.status = created ? 201 : 200
          return { ...storedResult(page), unchanged }
        } catch (error) {
          if (
            error instanceof FrontMatterError ||
            error instanceof InvalidPagePath ||
            error instanceof UnstorablePage ||
            error instanceof PageNotRenderable
          )
            throw new HttpError(400, error.message)
          if (error instanceof PagePreconditionFailed)
            throw new HttpError(
              412,
              error.message,
              error.current === undefined ? {} : { headers: { etag: error.current } },
            )
          if (error instanceof PageWritersBusy)
            throw new HttpError(503, error.message, { headers: { 'retry-after': '1' } })
          throw error
        }
      },
      {
        // The path is checked before anything is read, then the type, then the body (UTF-8, 1 MiB).
        ...authenticatedBody(deps.auth, 'docs:write', async (request) => {
          requestedPagePath(new URL(request.url).pathname.slice(PREFIX.length))
          requireMarkdownContentType(request)
          return readBodyText(request, DOCS_BODY_LIMIT)
        }),
        response: {
          200: StoredPageResult,
          201: StoredPageResult,
          ...errors(400, 401, 403, 412, 413, 415, 429, 500, 503),
        },
        detail: {
          summary: 'Write a documentation page',
          description:
            'Needs the docs:write scope. Stores the text as the next revision of the page (201 for its first, ' +
            '200 after); history is never rewritten, and a text identical to the newest revision stores nothing ' +
            '(200 with that revision). The path names the page as docs.json navigation does (`plants/overview`, ' +
            'no `.md`/`.mdx`). Front matter that is not a YAML mapping, or whose `title`, `description`, ' +
            '`sidebarTitle` or `openapi` is not a string (or `openapi` not "METHOD /path"), is a 400 naming the ' +
            'field and the line. With If-Match, a stale ETag (or a page that does not exist) answers 412; ' +
            '`If-None-Match: *` only creates, and answers 412 when the page exists; without them writers take ' +
            'turns and never get 412 (503 with Retry-After if a turn takes over 5 s). Bodies over 1 MiB answer ' +
            '413.',
          security: BEARER_SECURITY,
          tags: ['docs pages'],
          requestBody: PAGE_BODY_DOC,
          responses: {
            200: {
              description: 'Stored as a new revision of an existing page (or unchanged); the body says which.',
              headers: { ETag: ETAG_HEADER },
            },
            201: { description: 'Stored as the first revision of a new page.', headers: { ETag: ETAG_HEADER } },
            400: {
              description:
                'The path breaks a rule of page paths, the front matter is unusable (the message names the field ' +
                'and the line), the body is not UTF-8 or holds a NUL character, or the Authorization header is ' +
                'malformed.',
            },
            403: { description: 'The token lacks the docs:write scope.' },
            412: {
              description:
                'If-Match names a version that is no longer current (the ETag header names the current one) or a ' +
                'page that does not exist, or If-None-Match: * meets a page that exists.',
              headers: { ETag: ETAG_HEADER },
            },
            413: { description: 'The body is over 1 MiB.' },
            415: {
              description: `The Content-Type is not one of ${PAGE_MEDIA_TYPES.join(', ')}, or names a charset other than UTF-8.`,
            },
            503: {
              description:
                'The database is unavailable, or other writers of this page held the turn for over 5 s; Retry-After says when to try again.',
            },
          },
        },
      },
    )
}

/** The page path of a request, percent-decoded and checked; 400 naming the rule otherwise. */
function requestedPagePath(raw: string): string {
  let path: string
  try {
    path = decodeURIComponent(raw)
  } catch {
    throw new HttpError(400, `the page path ${JSON.stringify(raw)} has a malformed percent-escape`)
  }
  const problem = pagePathProblem(path)
  if (problem !== undefined) throw new HttpError(400, problem)
  return path
}

/** A page is text in UTF-8; a declared charset that says otherwise would be read wrongly, so it is refused. */
function requireMarkdownContentType(request: Request): void {
  requireContentType(request, PAGE_MEDIA_TYPES)
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(request.headers.get('content-type')!)?.[1]
  if (charset !== undefined && !['utf-8', 'utf8'].includes(charset.toLowerCase())) {
    throw new HttpError(415, `a page must be sent in UTF-8; the Content-Type names charset=${charset}`)
  }
}

async function notFound(
  service: DocsPagesService,
  path: string,
  revision: string | number | undefined,
): Promise<HttpError> {
  const current = revision === undefined ? undefined : await service.stored(path)
  if (current !== undefined)
    return new HttpError(404, `page ${path} has no revision ${revision}; its revisions are 1 to ${current.revision}`)
  return new HttpError(
    404,
    `no page ${path}: nothing has been stored under that path, so the site shows it as "not written yet"; PUT /docs/pages/${path} writes it`,
  )
}

/** The revision as the PUT answers it: everything but its text. */
function storedResult(page: StoredPage) {
  const { source: _source, body: _body, frontMatter: _frontMatter, ...stored } = page
  return stored
}

/** A page as the public list shows it: no author, and when it was last stored. */
function listItem(page: PageSummary) {
  const { createdAt, ...summary } = page
  return { ...summary, updatedAt: createdAt }
}
