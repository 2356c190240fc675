import { Type } from '@sinclair/typebox'
import type { TSchema, ValidationError } from 'elysia'
import {
  DATABASE_RETRY_AFTER_SECONDS,
  databaseNotMigrated,
  databaseUnavailable,
  describeFailure,
  NOT_MIGRATED_MESSAGE,
  NOT_MIGRATED_RETRY_AFTER_SECONDS,
} from '../db/failures'
import { asHttpError, STATUS_TEXT } from './errors'
import type { Logger } from '../telemetry/logger'
import { describeValidation } from './validation'
import { JSON_MEDIA_TYPE } from './media-type'

/** The plant store's error body, which docs.json, admin, usage and metrics share. */
export const ErrorBody = Type.Object({
  error: Type.Integer({ format: 'int32', description: 'The HTTP status code' }),
  message: Type.String({ description: 'What went wrong, in one specific sentence' }),
})

/**
 * The plant store's error contract, also used by docs.json and unknown routes:
 * every non-2xx body is `{ "error": <status>, "message": "<specific sentence>" }`.
 */
export function errorResponse(
  status: number,
  message: string,
  headers: Record<string, string> = {},
  extra: Record<string, unknown> = {},
) {
  return new Response(JSON.stringify({ error: status, message, ...extra }), {
    status,
    headers: { 'content-type': JSON_MEDIA_TYPE, ...headers },
  })
}

/** `{ 400: schema, 401: schema, … }` for a route's `response`, so each error status is documented. */
export const errorStatuses = <S extends TSchema>(schema: S, ...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, schema])) as Record<number, S>

type ErrorContext = {
  code: unknown
  error: unknown
  request: Request
  set: { headers: Record<string, unknown>; status?: unknown }
}

/**
 * Wraps an error hook so that the status it answers is also the context's: Elysia's after-response
 * hook sees only that, and the request log once recorded a 404 as 200 and a 415 as 400.
 */
export function recordingStatus(hook: (context: ErrorContext) => Response) {
  // Destructured, never a whole `context` handed on: Elysia reads every hook's source to decide what each request must
  // parse, and a context passed to a function counts as all of it used, so every route parsed cookies and the query.
  return ({ code, error, request, set }: ErrorContext): Response => {
    const response = hook({ code, error, request, set })
    set.status = response.status
    return response
  }
}

/**
 * An Elysia onError hook that renders any failure in the `{error, message}` contract:
 * our HttpErrors as they are, Elysia's 422 validation errors as 400 naming the field,
 * and anything unexpected as a 500 whose details go to the log (with the request id),
 * never to the client.
 */
export function jsonErrors(logger: Logger) {
  return recordingStatus(({ code, error, request, set }: ErrorContext) => {
    const known = asHttpError(error)
    if (known) return errorResponse(known.status, known.message, known.extra.headers, known.extra.body)
    // Before PARSE: a token check inside a parse hook that met a database outage is not a bad body.
    const notMigrated = databaseNotMigrated(error)
    if (notMigrated) {
      logger.warn('database not migrated', { request_id: set.headers['x-request-id'], cause: notMigrated })
      return errorResponse(503, NOT_MIGRATED_MESSAGE, { 'retry-after': String(NOT_MIGRATED_RETRY_AFTER_SECONDS) })
    }
    const unavailable = databaseUnavailable(error)
    if (unavailable) {
      logger.warn('database unavailable', {
        request_id: set.headers['x-request-id'],
        method: request.method,
        path: new URL(request.url).pathname,
        cause: unavailable,
      })
      return errorResponse(503, 'the database is unavailable right now; retry shortly', {
        'retry-after': String(DATABASE_RETRY_AFTER_SECONDS),
      })
    }
    if (code === 'VALIDATION') return errorResponse(400, describeValidation(error as ValidationError).message)
    if (code === 'PARSE') return errorResponse(400, 'request body could not be parsed')
    if (code === 'NOT_FOUND')
      return errorResponse(404, `no route for ${request.method} ${new URL(request.url).pathname}`)
    const status = statusOf(error)
    if (status && status < 500)
      return errorResponse(status, (error as Error).message || STATUS_TEXT[status] || 'request failed')
    logger.error('unhandled error', {
      request_id: set.headers['x-request-id'],
      method: request.method,
      path: new URL(request.url).pathname,
      error: describeFailure(error),
    })
    return errorResponse(500, 'internal error; the details are in the server log under this request id')
  })
}

/** Elysia's own errors (and `status()` throws) carry a numeric `status`. */
function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown })?.status
  return typeof status === 'number' && status >= 400 && status < 600 ? status : undefined
}
