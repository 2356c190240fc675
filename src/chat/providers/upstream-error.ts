import { ProviderError } from './provider'

/** Which wait ran out: response headers, the first chunk, silence between chunks, or a whole non-streaming request. */
export type TimeoutPhase = 'connect' | 'first_token' | 'idle' | 'request'

const TIMEOUT_WHAT: Record<TimeoutPhase, string> = {
  connect: 'sent no response headers',
  first_token: 'sent no first chunk',
  idle: 'went silent mid-stream',
  request: 'did not finish the request',
}

/**
 * Maps an upstream's HTTP error to the status and OpenAI error our client should see.
 * The upstream's 401/403 concern the gateway's own key, not the client's, so they become 502.
 */
export function upstreamHttpError(
  provider: string,
  model: string,
  status: number,
  body: string,
  retryAfterHeader: string | null,
  now: Date,
  maxRetryAfterSeconds = Number.POSITIVE_INFINITY,
): ProviderError {
  const upstream = describeUpstreamBody(body)
  // What the upstream said reaches the client only where it is about the client's request (400, 404,
  // 413, 429); about our credentials or its own failure, it goes to the log.
  const said = upstream.message ? `: ${upstream.message}` : ''
  const detail = upstream.message ? `HTTP ${status}: ${upstream.message}` : `HTTP ${status}`
  const parsed = parseRetryAfter(retryAfterHeader, now)
  // An upstream's Retry-After is advice to us; what we pass on is capped by our own patience.
  const retryAfter = parsed === undefined ? undefined : Math.min(parsed, maxRetryAfterSeconds)
  switch (true) {
    case status === 400 || status === 422:
      return new ProviderError(400, upstream.message ?? `The upstream provider '${provider}' rejected the request.`, {
        type: 'invalid_request_error',
        param: upstream.param,
        code: upstream.code,
      })
    case status === 401 || status === 403:
      return new ProviderError(
        502,
        `The upstream provider '${provider}' rejected this gateway's credentials (HTTP ${status}); its API key ` +
          `is missing or wrong in the gateway's configuration.`,
        { type: 'api_error', code: 'upstream_auth_failed', detail },
      )
    case status === 404:
      return new ProviderError(404, `The upstream provider '${provider}' does not serve the model '${model}'${said}`, {
        type: 'invalid_request_error',
        code: 'model_not_found',
        param: 'model',
      })
    case status === 408:
      return timeoutError(provider, 'request')
    case status === 413:
      return new ProviderError(413, upstream.message ?? 'The request is too large for the upstream provider.', {
        type: 'invalid_request_error',
        code: upstream.code,
      })
    case status === 429:
      return new ProviderError(429, `The upstream provider '${provider}' is rate limiting requests${said}`, {
        type: 'rate_limit_error',
        code: upstream.code ?? 'rate_limit_exceeded',
        retryable: true,
        retryAfter,
      })
    case status === 503:
      return new ProviderError(503, `The upstream provider '${provider}' is unavailable.`, {
        type: 'api_error',
        code: 'upstream_unavailable',
        retryable: true,
        retryAfter,
        detail,
      })
    case status >= 500:
      return new ProviderError(502, `The upstream provider '${provider}' failed with HTTP ${status}.`, {
        type: 'api_error',
        code: 'upstream_error',
        retryable: true,
        retryAfter,
        detail,
      })
    default:
      return new ProviderError(502, `The upstream provider '${provider}' answered with unexpected HTTP ${status}.`, {
        type: 'api_error',
        code: 'upstream_error',
        detail,
      })
  }
}

/**
 * The upstream could not be reached, or (`midResponse`) the connection broke before a complete
 * answer. Why (a refused connection, a certificate the runtime would not trust) is for the log:
 * it names hosts and certificates of our infrastructure.
 */
export function connectionError(provider: string, cause: unknown, midResponse = false): ProviderError {
  const what = midResponse
    ? `The connection to the upstream provider '${provider}' broke mid-response.`
    : `Could not reach the upstream provider '${provider}'.`
  return new ProviderError(502, what, {
    type: 'api_error',
    code: 'upstream_unreachable',
    retryable: true,
    detail: describeCause(cause),
  })
}

/** An error's code and message, as runtimes give them (`ECONNREFUSED`, `CERT_HAS_EXPIRED`, …). */
function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause)
  const code = (cause as { code?: unknown }).code
  return typeof code === 'string' && !cause.message.startsWith(code) ? `${code}: ${cause.message}` : cause.message
}

/**
 * An answer that broke off, was not what the protocol allows, or reported an error in-band. The
 * client learns which of those; what the upstream actually sent (`detail`) goes to the log.
 */
export function streamError(provider: string, message: string, detail?: string): ProviderError {
  return new ProviderError(502, `The upstream provider '${provider}' ${message}`, {
    type: 'api_error',
    code: 'upstream_error',
    retryable: true,
    detail,
  })
}

/** A streamed event grew past `CHAT_MAX_EVENT_BYTES` before it ended. */
export function eventTooLarge(provider: string, limit: number): ProviderError {
  return streamError(
    provider,
    `sent an event larger than this gateway's limit of ${limit} bytes (CHAT_MAX_EVENT_BYTES).`,
  )
}

export function timeoutError(provider: string, phase: TimeoutPhase, ms?: number): ProviderError {
  const within = ms === undefined ? '' : ` within ${ms} ms`
  return new ProviderError(504, `The upstream provider '${provider}' ${TIMEOUT_WHAT[phase]}${within}.`, {
    type: 'timeout',
    code: `upstream_${phase}_timeout`,
    retryable: true,
  })
}

/** `Retry-After` as delta-seconds or an HTTP date, in whole seconds from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: Date): number | undefined {
  if (value === null) return undefined
  const text = value.trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text)
  // An HTTP date always names its month; this keeps Date.parse from reading '-3' as a year.
  const date = /[a-z]{3}/i.test(text) ? Date.parse(text) : Number.NaN
  if (Number.isNaN(date)) return undefined
  return Math.max(0, Math.ceil((date - now.getTime()) / 1000))
}

/**
 * Reads the usual error bodies: OpenAI's `{error:{message,param,code}}`, vLLM's flat
 * `{message,param,code}`, Ollama and llama.cpp's `{error:"..."}` and FastAPI's `{detail}`.
 */
function describeUpstreamBody(body: string): { message?: string; param: string | null; code: string | null } {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    const text = body.trim().slice(0, 500)
    return { message: text || undefined, param: null, code: null }
  }
  const root = isRecord(parsed) ? parsed : {}
  const error = isRecord(root.error) ? root.error : root
  const message = [error.message, root.error, root.detail].find((value) => typeof value === 'string') as
    | string
    | undefined
  return {
    message,
    param: typeof error.param === 'string' ? error.param : null,
    code: typeof error.code === 'string' ? error.code : null,
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
