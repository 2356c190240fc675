import { Elysia } from 'elysia'

/**
 * Every JSON answer, success or error, on every runtime, says `application/json`: the
 * registered type has no charset parameter (RFC 8259 §11: JSON is UTF-8). Without this,
 * successes took the runtime's `Response.json` type (`application/json;charset=utf-8` on Bun,
 * `application/json` on Node and Deno) while our errors said `application/json`.
 */
export const JSON_MEDIA_TYPE = 'application/json'

/**
 * Sets the type up front, so an object a handler returns goes out with it; a `Response` a
 * handler builds keeps its own type (streams, HTML, files), since Elysia only adds headers
 * a response lacks.
 */
export const jsonMediaType = () =>
  new Elysia({ name: 'json-media-type' }).onRequest(({ set }) => {
    set.headers['content-type'] = JSON_MEDIA_TYPE
  })

/** A 204 or 304: no body, so no content type either (the default above would otherwise be added). */
export function bodiless(
  status: 204 | 304,
  set: { headers: Record<string, unknown>; status?: unknown },
  headers?: Record<string, string>,
) {
  delete set.headers['content-type']
  set.status = status
  return new Response(null, { status, headers })
}
