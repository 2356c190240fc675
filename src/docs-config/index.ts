import { Elysia, t } from 'elysia'
import { type AuthDeps, authenticatedBody, authPlugin, BEARER_SECURITY } from '../auth'
import { DOCS_BODY_LIMIT, readBodyText, requireJsonContentType } from '../http/body'
import { errorStatuses, jsonErrors } from '../http/json-errors'
import { HttpError } from '../http/errors'
import { bodiless, JSON_MEDIA_TYPE } from '../http/media-type'
import type { Logger } from '../telemetry/logger'
import { ifNoneMatchHits } from '../http/entity-tags'
import { DOCS_JSON_SCHEMA_TEXT } from './json-schema'
import {
  DocsConfigBody,
  DocsErrorBody,
  Revision,
  RevisionList,
  RevisionListQuery,
  RevisionParams,
  REVISIONS_PAGE_DEFAULT,
  REVISIONS_PAGE_MAX,
  StoredResult,
  StrictQuery,
  ValidationResult,
} from './model'
import { DEFAULT_DOCS_TEXT, DocsConfigService, InvalidDocsConfig, StaleRevision, WritersBusy } from './service'
import type { RevisionSummary } from './model'
import { validateDocsConfig } from './validation/validate'
import { NEXT_PAGE_LINK } from '../http/openapi-document'

export type DocsConfigDeps = { service: DocsConfigService; auth: AuthDeps; logger: Logger }

const errors = (...statuses: number[]) => errorStatuses(DocsErrorBody, ...statuses)

const ETAG_HEADER = {
  description: "The revision's entity tag, for If-None-Match and If-Match.",
  schema: { type: 'string' as const },
}

/** The docs.json schema, which the app puts in the document's components (see docsJsonComponents). */
const DOCS_JSON_REF = { $ref: '#/components/schemas/DocsJson' }

/** PUT stores what validates, so its body is a docs.json. */
const STORED_BODY_DOC = {
  required: true,
  description:
    'The docs.json, as `application/json`. It is read as sent, so the line and column numbers of errors refer to it.',
  content: { 'application/json': { schema: DOCS_JSON_REF } },
}

/** Validation exists to be shown broken files: any text is accepted, in any Content-Type, and judged. */
const CHECKED_BODY_DOC = {
  required: true,
  description:
    'The text to check: any text, valid JSON or not, in any Content-Type (the answer judges it; see the DocsJson ' +
    'schema for what passes). It is read as sent, so line and column numbers refer to it.',
  content: { 'application/json': { schema: {} } },
}

/**
 * docs.json: `GET /docs.json` (public, ETag / If-None-Match), `PUT /docs.json` (docs:write, If-Match, a new
 * revision each time), `POST /docs.json/validate` (any token), `GET /docs.json/schema` (public JSON Schema),
 * `GET /docs.json/revisions` and `GET /docs.json/revisions/{n}` (any token). Errors use the plant store's
 * `{error, message}` contract, plus `errors` for validation failures.
 */
export const docsConfigPlugin = (deps: DocsConfigDeps) => {
  const { service } = deps
  const readBody = (request: Request) => readBodyText(request, DOCS_BODY_LIMIT)

  return new Elysia({ name: 'docs-config' })
    .use(authPlugin(deps.auth))
    .onError(jsonErrors(deps.logger))
    .get(
      '/docs.json',
      async ({ request, set }) => {
        const current = await service.current()
        const headers = { etag: current.etag, 'cache-control': 'no-cache' }
        const ifNoneMatch = request.headers.get('if-none-match')
        if (ifNoneMatch !== null && ifNoneMatchHits(ifNoneMatch, current.etag)) return bodiless(304, set, headers)
        return new Response(current.body, { headers: { ...headers, 'content-type': JSON_MEDIA_TYPE } })
      },
      {
        response: { 200: DocsConfigBody, 304: t.Void(), ...errors(500, 503) },
        detail: {
          summary: 'The current docs.json',
          description:
            'Public. The current configuration, normalised (defaults filled in), with an ETag; If-None-Match ' +
            'with that ETag answers 304. Before any PUT it is the built-in default that describes Trellis.',
          tags: ['docs.json'],
          responses: {
            200: {
              description: 'The current docs.json, normalised.',
              headers: { ETag: ETAG_HEADER },
              content: { 'application/json': { schema: DOCS_JSON_REF } },
            },
            304: { description: 'Not modified: If-None-Match names the current ETag.', headers: { ETag: ETAG_HEADER } },
          },
        },
      },
    )
    .put(
      '/docs.json',
      async ({ body, principal, query, request, set }) => {
        try {
          const { stored, warnings } = await service.replace({
            text: body as string,
            author: principal.owner,
            strict: query.strict === 'true',
            ifMatch: request.headers.get('if-match') ?? undefined,
          })
          set.headers.etag = stored.etag
          return { ...summary(stored), config: stored.config, warnings }
        } catch (error) {
          if (error instanceof InvalidDocsConfig)
            throw new HttpError(400, error.message, { body: { errors: error.result.errors } })
          if (error instanceof StaleRevision)
            throw new HttpError(412, error.message, { headers: { etag: error.current } })
          if (error instanceof WritersBusy) throw new HttpError(503, error.message, { headers: { 'retry-after': '1' } })
          throw error
        }
      },
      {
        // Like the plant store: a body route that stores JSON takes it as JSON. Validation reads any type.
        ...authenticatedBody(deps.auth, 'docs:write', async (request) => {
          requireJsonContentType(request)
          return readBody(request)
        }),
        query: StrictQuery,
        response: { 200: StoredResult, ...errors(400, 401, 403, 412, 413, 415, 429, 500, 503) },
        detail: {
          summary: 'Replace docs.json',
          description:
            'Needs the docs:write scope. Validates the text (400 with every error when invalid; ?strict=true ' +
            'makes unknown properties errors; a Content-Type other than application/json is 415) and stores it ' +
            'as a new revision; history is never rewritten. With If-Match, a stale ETag answers 412, so two ' +
            'editors never silently overwrite each other; without it writers take turns and never get 412 (503 ' +
            'with Retry-After if a turn takes over 5 s). Bodies over 1 MiB answer 413.',
          security: BEARER_SECURITY,
          tags: ['docs.json'],
          requestBody: STORED_BODY_DOC,
          responses: {
            200: {
              description: 'Stored as a new revision; the body says which, with any warnings.',
              headers: { ETag: ETAG_HEADER },
            },
            400: {
              description:
                'The docs.json is invalid (`errors` lists every error with its JSON Pointer, line and column), ' +
                '`strict` is not true or false, or the Authorization header is malformed.',
            },
            403: { description: 'The token lacks the docs:write scope.' },
            412: {
              description:
                'If-Match names a revision that is no longer current; the ETag header names the current one.',
              headers: { ETag: ETAG_HEADER },
            },
            413: { description: 'The body is over 1 MiB.' },
            503: {
              description:
                'The database is unavailable, or another writer held the turn for over 5 s; Retry-After says when to try again.',
            },
          },
        },
      },
    )
    .delete(
      '/docs.json',
      async ({ principal, request, set }) => {
        // The way back to Trellis's own site, kept in the history like any change: the built-in default, stored
        // again as the next revision (revisions are never removed).
        try {
          const { stored } = await service.replace({
            text: DEFAULT_DOCS_TEXT,
            author: principal.owner,
            ifMatch: request.headers.get('if-match') ?? undefined,
          })
          set.headers.etag = stored.etag
          return { ...summary(stored), config: stored.config, warnings: [] }
        } catch (error) {
          if (error instanceof StaleRevision)
            throw new HttpError(412, error.message, { headers: { etag: error.current } })
          if (error instanceof WritersBusy) throw new HttpError(503, error.message, { headers: { 'retry-after': '1' } })
          throw error
        }
      },
      {
        auth: 'docs:write',
        response: { 200: StoredResult, ...errors(400, 401, 403, 412, 429, 500, 503) },
        detail: {
          summary: 'Go back to the built-in docs.json',
          description:
            'Needs the docs:write scope. Stores the built-in default (the docs.json that describes Trellis) as the ' +
            "next revision, so the documentation site shows Trellis's own pages again; the history keeps every " +
            'earlier revision. If-Match is honoured as on PUT.',
          security: BEARER_SECURITY,
          tags: ['docs.json'],
          responses: {
            200: {
              description: 'The built-in default, stored as a new revision.',
              headers: { ETag: ETAG_HEADER },
            },
            403: { description: 'The token lacks the docs:write scope.' },
            412: {
              description:
                'If-Match names a revision that is no longer current; the ETag header names the current one.',
              headers: { ETag: ETAG_HEADER },
            },
          },
        },
      },
    )
    .post(
      '/docs.json/validate',
      // The parse hook hands over the raw text; there is no body schema so the OpenAPI requestBody below stands.
      ({ body, query }) => validateDocsConfig(body as string, { strict: query.strict === 'true' }),
      {
        ...authenticatedBody(deps.auth, 'any', readBody),
        query: StrictQuery,
        response: { 200: ValidationResult, ...errors(400, 401, 413, 429, 500, 503) },
        detail: {
          summary: 'Validate a docs.json without storing it',
          description:
            'Any valid token. Validates the body text as sent and returns every error and warning with its JSON ' +
            'Pointer, line and column (200 whether or not it is valid). ?strict=true makes unknown properties ' +
            'errors.',
          security: BEARER_SECURITY,
          tags: ['docs.json'],
          requestBody: CHECKED_BODY_DOC,
          responses: {
            200: {
              description: 'The verdict: `valid`, every error and warning, and the normalised config when valid.',
            },
            400: {
              description:
                '`strict` is not true or false, the body is not UTF-8, or the Authorization header is malformed.',
            },
            413: { description: 'The body is over 1 MiB.' },
          },
        },
      },
    )
    .get(
      '/docs.json/schema',
      () =>
        new Response(DOCS_JSON_SCHEMA_TEXT, {
          headers: { 'content-type': 'application/schema+json', 'cache-control': 'public, max-age=300' },
        }),
      {
        response: { 200: t.Object({}, { additionalProperties: true }), ...errors(503) },
        detail: {
          summary: 'The JSON Schema of docs.json',
          description:
            'Public. Generated from the same TypeBox schema the validator uses, with descriptions, defaults and ' +
            'enums, so `"$schema": "<this URL>"` gives editors autocompletion and hover docs.',
          tags: ['docs.json'],
          responses: {
            200: {
              description: 'The JSON Schema (draft-07) of docs.json.',
              content: { 'application/schema+json': { schema: { type: 'object', additionalProperties: true } } },
            },
            503: { description: 'This replica is shutting down; Retry-After says when to try again.' },
          },
        },
      },
    )
    .get(
      '/docs.json/revisions',
      async ({ query, request, set }) => {
        const limit = query.limit === undefined ? REVISIONS_PAGE_DEFAULT : Number(query.limit)
        const page = await service.list(limit, query.after === undefined ? undefined : Number(query.after))
        if (page.next !== undefined)
          set.headers.link = `<${new URL(request.url).pathname}?limit=${limit}&after=${page.next}>; rel="next"`
        return { revisions: page.revisions.map(summary) }
      },
      {
        auth: 'any',
        query: RevisionListQuery,
        response: { 200: RevisionList, ...errors(400, 401, 429, 500, 503) },
        detail: {
          summary: 'List docs.json revisions',
          description:
            `Any valid token. The stored revisions, oldest first, ${REVISIONS_PAGE_DEFAULT} at a time unless ` +
            `\`limit\` says otherwise (at most ${REVISIONS_PAGE_MAX}): number, time, author (token owner), size ` +
            `and ETag. When more exist, a \`Link: <…>; rel="next"\` header points at the next page.`,
          security: BEARER_SECURITY,
          tags: ['docs.json'],
          responses: {
            200: { description: 'One page of revision summaries.', headers: NEXT_PAGE_LINK },
          },
        },
      },
    )
    .get(
      '/docs.json/revisions/:n',
      async ({ params }) => {
        const stored = Number(params.n) === 0 ? undefined : await service.get(Number(params.n))
        if (stored === undefined) {
          throw new HttpError(
            404,
            `no docs.json revision ${params.n}; revisions are numbered from 1, and before the first PUT GET /docs.json serves the built-in default`,
          )
        }
        return { ...summary(stored), source: stored.source, config: stored.config }
      },
      {
        auth: 'any',
        params: RevisionParams,
        response: { 200: Revision, ...errors(400, 401, 404, 429, 500, 503) },
        detail: {
          summary: 'One docs.json revision',
          description: 'Any valid token. The revision as submitted (source) and normalised (config).',
          security: BEARER_SECURITY,
          tags: ['docs.json'],
          responses: { 200: { description: 'The revision.' }, 404: { description: 'No revision with this number.' } },
        },
      },
    )
}

/** The summary fields alone, whatever else the revision carries. */
function summary(revision: RevisionSummary): RevisionSummary {
  return {
    revision: revision.revision,
    createdAt: revision.createdAt,
    author: revision.author,
    size: revision.size,
    etag: revision.etag,
  }
}
