import { Type } from '@sinclair/typebox'
import { JSON_MEDIA_TYPE } from './media-type'

/**
 * Anthropic's error contract, spoken by `POST /v1/messages` and its `count_tokens`, whose clients
 * are Anthropic SDKs: `{"type":"error","error":{"type","message"},"request_id"}` with the matching
 * status, and the same body as the `error` event of a stream that fails after its first byte.
 */
export type AnthropicErrorBody = {
  type: 'error'
  error: { type: string; message: string }
  request_id: string | null
}

/** Everything needed to answer with an Anthropic-shaped error. */
export type AnthropicErrorInit = {
  status: number
  message: string
  /** One of Anthropic's error types, for a status Anthropic documents none for; else derived from the status. */
  type?: string
  /** Seconds; becomes a `Retry-After` header. */
  retryAfter?: number
  headers?: Record<string, string>
  /** The whole body instead of Anthropic's shape (a script provider's scripted error); never in an error event. */
  body?: string
}

/**
 * The error types Anthropic documents (and its SDK names), by status. A 4xx it does not list is
 * `invalid_request_error`, as Anthropic says it does; a 503 (our database, a shutdown, every provider
 * down) reads as `overloaded_error`, which is what Anthropic's clients retry on.
 */
const TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
}

/** Every `error.type` Anthropic's API answers with. */
const ANTHROPIC_ERROR_TYPES: ReadonlySet<string> = new Set([...Object.values(TYPES), 'conflict_error'])

/**
 * The `error.type` of a status. The status decides where Anthropic documents one (a 404 is
 * `not_found_error` whatever OpenAI-minded code called it); for any other status the thrower's
 * type stands when it is one of Anthropic's (an upstream's `conflict_error` on a 409).
 */
function anthropicErrorType(status: number, given?: string): string {
  const documented = TYPES[status]
  if (documented !== undefined) return documented
  if (given !== undefined && ANTHROPIC_ERROR_TYPES.has(given)) return given
  return status >= 500 ? 'api_error' : 'invalid_request_error'
}

/** The JSON body for an error; `request_id` is the response's `request-id` (and `x-request-id`). */
export function anthropicErrorBody(init: AnthropicErrorInit, requestId?: string): AnthropicErrorBody {
  return {
    type: 'error',
    error: { type: anthropicErrorType(init.status, init.type), message: init.message },
    request_id: requestId ?? null,
  }
}

/** A complete HTTP error response in Anthropic's shape, with `Retry-After` when advised and `request-id`. */
export function anthropicErrorResponse(init: AnthropicErrorInit, requestId?: string): Response {
  const headers: Record<string, string> = { 'content-type': JSON_MEDIA_TYPE, ...init.headers }
  if (init.retryAfter !== undefined && Number.isFinite(init.retryAfter))
    headers['retry-after'] = String(Math.max(0, Math.ceil(init.retryAfter)))
  if (requestId !== undefined) headers['request-id'] = requestId
  const body = init.body ?? JSON.stringify(anthropicErrorBody(init, requestId))
  return new Response(body, { status: init.status, headers })
}

/** Anthropic's error body, the only error shape of the Messages routes. */
export const AnthropicErrorSchema = Type.Object({
  type: Type.Literal('error'),
  error: Type.Object({
    type: Type.String({
      description:
        'invalid_request_error, authentication_error, permission_error, not_found_error, request_too_large, ' +
        'rate_limit_error, api_error, timeout_error or overloaded_error',
    }),
    message: Type.String({
      description: 'What went wrong; a field at fault is named first, as `messages.0.content: …`',
    }),
  }),
  request_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The `request-id` of the response, under which the server log has the details',
  }),
})
