import { Type } from '@sinclair/typebox'
import { JSON_MEDIA_TYPE } from './media-type'

/**
 * OpenAI's error contract, the only one the chat routes speak, because their clients are
 * OpenAI SDKs: `{"error":{"message","type","param","code"}}` with the matching status.
 */
export type OpenAIErrorBody = {
  error: { message: string; type: string; param: string | null; code: string | null }
}

/** Everything needed to answer with an OpenAI-shaped error. */
export type OpenAIErrorInit = {
  status: number
  message: string
  type?: string
  param?: string | null
  code?: string | null
  /** Seconds; becomes a `Retry-After` header. */
  retryAfter?: number
  headers?: Record<string, string>
  /** The whole body instead of OpenAI's shape (a script provider's scripted error); never in a stream's error event. */
  body?: string
}

/** The `type` and `code` OpenAI uses for each status, when the thrower did not say. */
const DEFAULTS: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'insufficient_permissions' },
  404: { type: 'invalid_request_error', code: 'not_found' },
  413: { type: 'invalid_request_error', code: 'request_too_large' },
  415: { type: 'invalid_request_error', code: 'unsupported_media_type' },
  429: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  502: { type: 'server_error', code: 'bad_gateway' },
  503: { type: 'server_error', code: 'service_unavailable' },
  504: { type: 'server_error', code: 'upstream_timeout' },
}

/**
 * Thrown by chat code for a failure that is the client's or ours to report, e.g.
 * `new OpenAIError({ status: 404, message: 'The model `x` does not exist', param: 'model', code: 'model_not_found' })`.
 */
export class OpenAIError extends Error {
  constructor(readonly init: OpenAIErrorInit) {
    super(init.message)
    this.name = 'OpenAIError'
  }
}

/** The JSON body for an error. */
export function openAIErrorBody(init: OpenAIErrorInit): OpenAIErrorBody {
  const fallback = DEFAULTS[init.status] ?? (init.status >= 500 ? DEFAULTS[500]! : DEFAULTS[400]!)
  return {
    error: {
      message: init.message,
      type: init.type ?? fallback.type,
      param: init.param ?? null,
      code: init.code === undefined ? fallback.code : init.code,
    },
  }
}

/** Response headers for an error: JSON content type, `Retry-After` when advised, plus the thrower's own. */
function openAIErrorHeaders(init: OpenAIErrorInit): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': JSON_MEDIA_TYPE, ...init.headers }
  if (init.retryAfter !== undefined && Number.isFinite(init.retryAfter)) {
    headers['retry-after'] = String(Math.max(0, Math.ceil(init.retryAfter)))
  }
  return headers
}

/** A complete HTTP error response in OpenAI's shape. */
export function openAIErrorResponse(init: OpenAIErrorInit): Response {
  return new Response(init.body ?? JSON.stringify(openAIErrorBody(init)), {
    status: init.status,
    headers: openAIErrorHeaders(init),
  })
}

/** OpenAI's error body, the only error shape of the chat routes. */
export const OpenAIErrorSchema = Type.Object({
  error: Type.Object({
    message: Type.String({ description: 'What went wrong' }),
    type: Type.String({ description: 'invalid_request_error, rate_limit_error or server_error' }),
    param: Type.Union([Type.String(), Type.Null()], {
      description: 'The request field at fault, as `messages[1].content`; null when none is',
    }),
    code: Type.Union([Type.String(), Type.Null()], {
      description: 'A machine-readable reason, as `model_not_found` or `rate_limit_exceeded`',
    }),
  }),
})
