import { ProviderError } from '../provider'
import { streamError, timeoutError, upstreamHttpError } from '../upstream-error'

/**
 * The HTTP status each of Anthropic's error types stands for, as far as our client is concerned.
 * The type decides, not the response's status: an error event inside a 200 stream has no status
 * of its own, and Anthropic documents the type as the stable part. `api_error` and
 * `overloaded_error` (500, 529) are Anthropic's own passing trouble: a 503, worth a retry.
 */
const STATUS_OF_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 503,
  overloaded_error: 503,
}

/** Statuses without a readable type: 500 and 529 are what `api_error` and `overloaded_error` come with. */
const STATUS_OF_STATUS: Record<number, number> = { 500: 503, 529: 503 }

/** What an error answer said about waiting (`Retry-After`), and the most of it we pass on. */
export type RetryAdvice = { retryAfter: string | null; now: Date; maxRetryAfterSeconds: number }

/**
 * Anthropic's error answer (`{"type":"error","error":{"type","message"}}`) as the OpenAI error our
 * client sees. The mapping to statuses, messages and `detail` is the one every relay shares
 * ({@link upstreamHttpError}): what Anthropic says about our credentials goes to the log only.
 */
export function anthropicHttpError(
  provider: string,
  model: string,
  status: number,
  body: string,
  advice: RetryAdvice,
): ProviderError {
  const type = errorTypeOf(body)
  if (type === 'timeout_error') return timeoutError(provider, 'request')
  const mapped = statusOfType(type) ?? STATUS_OF_STATUS[status] ?? status
  // Anthropic's errors are JSON. Text that is not (a proxy's HTML page) would become the client's
  // message where the status passes the upstream's words on; there, the generic message stands.
  const said = type === undefined && CLIENT_SEES_MESSAGE.has(mapped) && !isJson(body) ? '' : body
  return upstreamHttpError(provider, model, mapped, said, advice.retryAfter, advice.now, advice.maxRetryAfterSeconds)
}

/** Statuses whose upstream message {@link upstreamHttpError} hands to the client rather than the log. */
const CLIENT_SEES_MESSAGE = new Set([400, 404, 413, 422, 429])

function isJson(body: string): boolean {
  try {
    JSON.parse(body)
    return true
  } catch {
    return false
  }
}

/**
 * An `error` event inside a stream: mapped by its type like an HTTP error, so that an overload
 * before the first byte is retried like a 529 answer would be. A type we do not know is an
 * upstream failure whose words go to the log.
 */
export function anthropicEventError(provider: string, model: string, data: string, now: Date): ProviderError {
  const type = errorTypeOf(data)
  if (type === 'timeout_error') return timeoutError(provider, 'request')
  const status = statusOfType(type)
  if (status === undefined) return streamError(provider, 'reported an error mid-answer.', data.slice(0, 500))
  return upstreamHttpError(provider, model, status, data, null, now)
}

/** The status of a type we know; an upstream's `constructor` or `__proto__` is not one of them. */
function statusOfType(type: string | undefined): number | undefined {
  return type !== undefined && Object.hasOwn(STATUS_OF_TYPE, type) ? STATUS_OF_TYPE[type] : undefined
}

/** `error.type` of an Anthropic error body, if it is one. */
function errorTypeOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { type?: unknown } }
    return typeof parsed?.error?.type === 'string' ? parsed.error.type : undefined
  } catch {
    return undefined
  }
}

/** The 400 for a parameter Anthropic cannot honour, naming it. */
export function unsupported(param: string, message: string): ProviderError {
  return new ProviderError(400, `${message}.`, { type: 'invalid_request_error', param, code: 'unsupported_parameter' })
}
