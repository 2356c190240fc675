import { storable } from '../../../db/storable-text'
import { parseJsonObject } from '../event-scan'
import { isObject, type JsonObject, type ProviderError, type ResponsesReport } from '../provider'
import { streamError, upstreamHttpError } from '../upstream-error'

/*
 * What a Responses API answer tells the ledger, and what its errors mean to our client. The route
 * settles limits and writes the ledger from Chat Completions usage whatever the wire format, so a
 * Response's usage is read into that shape here.
 */

/**
 * What a final Response (the whole answer, or the `response` of `response.completed`,
 * `response.incomplete` or `response.failed`) tells the report: itself, its usage, and its finish
 * reason. `status` is the event's where a stream names it, else the Response's own.
 */
export function noteResponse(report: ResponsesReport, response: JsonObject, status = response.status): void {
  report.response = response
  if (isObject(response.usage)) report.usage = usageOf(response.usage)
  const finish = finishReasonOf(status, response)
  if (finish) report.finishReason = finish
}

/**
 * A Response's usage in Chat Completions' shape: `input_tokens` are the prompt (cached ones
 * included, as in `prompt_tokens`), `output_tokens` the completion (reasoning included, as in
 * `completion_tokens`).
 */
function usageOf(usage: JsonObject): JsonObject {
  const prompt = count(usage.input_tokens)
  const completion = count(usage.output_tokens)
  const input = isObject(usage.input_tokens_details) ? usage.input_tokens_details : {}
  const output = isObject(usage.output_tokens_details) ? usage.output_tokens_details : {}
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: count(input.cached_tokens) },
    completion_tokens_details: { reasoning_tokens: count(output.reasoning_tokens) },
  }
}

/** Output items the client must answer: a Response that ends with one is Chat Completions' `tool_calls`. */
const TOOL_CALLS = new Set(['function_call', 'custom_tool_call'])

/** `incomplete_details.reason` as Chat Completions names it. */
const INCOMPLETE_REASONS: Record<string, string> = { max_output_tokens: 'length', content_filter: 'content_filter' }

/**
 * A Response's end as Chat Completions' `finish_reason`, for the ledger: `completed` is `stop`, or
 * `tool_calls` when it ends with a call for the client; `incomplete` is `length` or
 * `content_filter` by its reason; `failed` (which Chat Completions has no name for) stays `failed`.
 * A status or reason we do not know is kept when short and storable, as a relayed finish reason is.
 */
function finishReasonOf(status: unknown, response: JsonObject): string | undefined {
  if (status === 'completed') {
    const output = Array.isArray(response.output) ? response.output : []
    return output.some((item) => isObject(item) && TOOL_CALLS.has(item.type as string)) ? 'tool_calls' : 'stop'
  }
  if (status === 'incomplete') {
    const reason = isObject(response.incomplete_details) ? response.incomplete_details.reason : undefined
    if (typeof reason !== 'string') return 'incomplete'
    return Object.hasOwn(INCOMPLETE_REASONS, reason) ? INCOMPLETE_REASONS[reason] : kept(reason)
  }
  return typeof status === 'string' ? kept(status) : undefined
}

const kept = (value: string) => (value.length <= 64 && storable(value) ? value : 'unrecognized')

const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0)

/**
 * The HTTP status each error code (or, in a nested `error` object, type) stands for, as far as our
 * client is concerned: OpenAI's `ResponseErrorCode`s and the codes its HTTP errors carry, so an
 * error event is retried, passed on or logged as the same error answered over HTTP would be.
 */
const STATUS_OF_CODE: Record<string, number> = {
  invalid_request_error: 400,
  invalid_prompt: 400,
  context_length_exceeded: 400,
  invalid_image: 400,
  invalid_image_format: 400,
  invalid_base64_image: 400,
  invalid_image_url: 400,
  invalid_image_mode: 400,
  image_too_large: 400,
  image_too_small: 400,
  image_parse_error: 400,
  image_content_policy_violation: 400,
  image_file_too_large: 400,
  image_file_not_found: 400,
  unsupported_image_media_type: 400,
  empty_image_file: 400,
  failed_to_download_image: 400,
  invalid_api_key: 401,
  authentication_error: 401,
  permission_error: 403,
  model_not_found: 404,
  not_found_error: 404,
  rate_limit_exceeded: 429,
  rate_limit_error: 429,
  insufficient_quota: 429,
  server_error: 500,
  api_error: 500,
  server_is_overloaded: 503,
  overloaded_error: 503,
  service_unavailable: 503,
}

/**
 * An error the upstream reported in a 200: a stream's `error` event
 * (`{"type":"error","code","message","param"}`, or with those inside an `error` object) or an error
 * body instead of a Response. Mapped by its code like an HTTP error (see {@link upstreamHttpError}),
 * so a rate limit before the first byte is retried and an invalid prompt is the client's 400; a
 * code we do not know is an upstream failure whose words go to the log.
 */
export function responsesError(provider: string, model: string, data: string, now: Date): ProviderError {
  const parsed = parseJsonObject(data) ?? {}
  const nested = isObject(parsed.error) ? parsed.error : undefined
  const fields = nested ?? parsed
  const status = statusOf(fields.code) ?? (nested ? statusOf(nested.type) : undefined)
  if (status === undefined) {
    const message = typeof fields.message === 'string' ? fields.message : data
    return streamError(provider, 'reported an error mid-answer.', message.slice(0, 500))
  }
  return upstreamHttpError(provider, model, status, JSON.stringify(fields), null, now)
}

/** The status of a code we know; an upstream's `constructor` or `__proto__` is not one of them. */
const statusOf = (code: unknown) =>
  typeof code === 'string' && Object.hasOwn(STATUS_OF_CODE, code) ? STATUS_OF_CODE[code] : undefined

/**
 * Whether a 200's JSON reports an error instead of being a Response: an `error` (a Response's own
 * is `null` unless it failed, and then it is still a Response) without `object: "response"`, or an
 * error event's shape.
 */
export function reportsResponsesError(answer: JsonObject): boolean {
  return (answer.error != null && answer.object !== 'response') || answer.type === 'error'
}
