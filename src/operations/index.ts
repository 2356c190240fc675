import { Elysia } from 'elysia'
import type { DatabaseHandle } from '../db/connect'
import { withDeadline } from '../db/deadline'
import {
  DATABASE_RETRY_AFTER_SECONDS,
  databaseUnavailable,
  NOT_MIGRATED_MESSAGE,
  NOT_MIGRATED_RETRY_AFTER_SECONDS,
} from '../db/failures'
import { pendingMigrations } from '../db/migrate'
import { Type } from '@sinclair/typebox'
import { ErrorBody, errorResponse, jsonErrors } from '../http/json-errors'
import { jsonContent } from '../http/openapi-document'
import { JSON_MEDIA_TYPE } from '../http/media-type'
import type { Logger } from '../telemetry/logger'
import { UI_ASSETS, type UiAssetLoader, type UiAssetName } from '../http/ui-assets'
import { referencePage } from './reference-page'

export type OperationsDeps = {
  database: DatabaseHandle
  logger: Logger
  uiAssets?: UiAssetLoader
  title: string
  /** The OpenAPI document; made from every route of the app, so it is asked for only when served. */
  document: () => object
}

const ServerIndex = Type.Object({
  name: Type.String(),
  docs: Type.String({ description: 'The documentation site' }),
  api_reference: Type.String({ description: 'The API reference (Swagger UI)' }),
  openapi: Type.String({ description: 'The OpenAPI 3.1 document' }),
  health: Type.String(),
  ready: Type.String(),
})

const SERVER_INDEX: typeof ServerIndex.static = {
  name: 'Trellis',
  docs: '/docs/',
  api_reference: '/openapi',
  openapi: '/openapi.json',
  health: '/health',
  ready: '/ready',
}

/** Whether an Accept header asks for HTML before JSON, as a browser's does. */
function prefersHtml(accept: string | null): boolean {
  if (!accept) return false
  const html = accept.indexOf('text/html')
  const json = accept.indexOf('application/json')
  return html !== -1 && (json === -1 || html < json)
}

/** `/ready` answers within this, even while the database hangs; probes usually give up after 1–3 s. */
const READY_DEADLINE_MS = 1_500

const STATUS_CONTENT = jsonContent(
  Type.Object({ status: Type.String(), database: Type.Optional(Type.String({ description: 'pglite or postgres' })) }),
)
const ERROR_CONTENT = jsonContent(ErrorBody)

/**
 * What operators and newcomers reach first: `/health` (the process answers), `/ready` (the
 * database answers), and the API reference UI at `/openapi` with its assets. Public routes.
 */
export const operationsPlugin = (deps: OperationsDeps) => {
  const page = referencePage(deps.title)
  let migrated = false
  const html = () => new Response(page, { headers: { 'content-type': 'text/html; charset=utf-8' } })
  return (
    new Elysia({ name: 'operations' })
      .onError(jsonErrors(deps.logger))
      .get(
        '/openapi.json',
        ({ set }) => {
          set.headers['cache-control'] = 'no-cache'
          return deps.document()
        },
        { detail: { hide: true } },
      )
      // A browser pointed at the server lands on the documentation; a program gets the addresses to go on from.
      .get(
        '/',
        ({ request }) => {
          if (prefersHtml(request.headers.get('accept')))
            return new Response(null, { status: 302, headers: { location: '/docs/' } })
          return new Response(JSON.stringify(SERVER_INDEX), { headers: { 'content-type': JSON_MEDIA_TYPE } })
        },
        {
          detail: {
            summary: 'Where to go from here',
            description:
              'Public. Browsers (Accept: text/html) are redirected to the documentation site at /docs/; other ' +
              'clients get the addresses of the documentation, the API reference, the OpenAPI document and health.',
            tags: ['operations'],
            security: [],
            responses: {
              200: { description: 'The addresses to start from.', content: jsonContent(ServerIndex) },
              302: { description: 'A browser: to the documentation site.' },
              503: {
                description: 'This replica is shutting down; Retry-After says when to try again.',
                content: ERROR_CONTENT,
              },
            },
          },
        },
      )
      .get('/openapi', html, { detail: { hide: true } })
      .get('/openapi/', html, { detail: { hide: true } })
      .get(
        '/openapi/assets/:file',
        async ({ params }) => {
          // Own keys only: `in` would find `__proto__` and `toString` on the prototype.
          const name = Object.hasOwn(UI_ASSETS, params.file) ? (params.file as UiAssetName) : undefined
          const bytes = name ? await deps.uiAssets?.(name) : undefined
          if (!name || !bytes) return errorResponse(404, `no asset named ${params.file}`)
          return new Response(bytes as Uint8Array<ArrayBuffer>, {
            headers: { 'content-type': UI_ASSETS[name], 'cache-control': 'public, max-age=86400' },
          })
        },
        { detail: { hide: true } },
      )
      .get('/health', () => ({ status: 'ok' as const }), {
        detail: {
          summary: 'Liveness: the process answers',
          description: 'Public. Answers without touching the database.',
          tags: ['operations'],
          responses: {
            200: { description: 'The process is alive.', content: STATUS_CONTENT },
            503: {
              description: 'This replica is shutting down; Retry-After says when to try again.',
              content: ERROR_CONTENT,
            },
          },
        },
      })
      .get(
        '/ready',
        async ({ set }) => {
          try {
            await withDeadline(deps.database.ping(), READY_DEADLINE_MS)
            // Once every migration is in, they stay in: the check stops costing a query.
            if (!migrated) {
              const pending = await withDeadline(pendingMigrations(deps.database.db), READY_DEADLINE_MS)
              if (pending.length > 0) {
                deps.logger.warn('not ready: the database is not migrated', { pending })
                return errorResponse(503, `not ready: ${NOT_MIGRATED_MESSAGE} (${pending.length} pending)`, {
                  'retry-after': String(NOT_MIGRATED_RETRY_AFTER_SECONDS),
                })
              }
              migrated = true
            }
            return { status: 'ready' as const, database: deps.database.kind }
          } catch (error) {
            // The cause goes to the log; probes and the public only learn that it is not ready.
            deps.logger.warn('not ready', {
              request_id: set.headers['x-request-id'],
              cause: databaseUnavailable(error) ?? String((error as Error)?.message ?? error),
            })
            return errorResponse(503, 'the database does not answer', {
              'retry-after': String(DATABASE_RETRY_AFTER_SECONDS),
            })
          }
        },
        {
          detail: {
            summary: 'Readiness: the database answers and is migrated (503 otherwise)',
            description: `Public. Answers within ${READY_DEADLINE_MS / 1000} s whatever the database does.`,
            tags: ['operations'],
            responses: {
              200: { description: 'The database answers.', content: STATUS_CONTENT },
              503: {
                description:
                  'The database does not answer or is not migrated, or this replica is shutting down; Retry-After says ' +
                  'when to try again.',
                content: ERROR_CONTENT,
              },
            },
          },
        },
      )
  )
}
