import { HttpError } from '../http/errors'
import { OpenAIError, type OpenAIErrorInit, openAIErrorBody } from '../http/openai-errors'
import { ProviderError } from './providers/provider'
import { encodeEvent } from './sse/encode'
import { DONE, KEEP_ALIVE, type StreamFraming } from './sse/writer'

/** Statuses whose answer always says when to retry (README: "429 and 503 carry Retry-After"). */
const WAIT_ADVISED = new Set([429, 503])

/** The wait advised when an upstream's 429 or 503 named none: another replica or the next second may do. */
const DEFAULT_RETRY_AFTER_SECONDS = 1

/**
 * Maps anything thrown on a chat route to an OpenAI error. Unknown errors become a 500
 * whose message does not leak internals; `isInternal` tells the caller to log them. A bug of ours
 * or an upstream's failure (a provider's 5xx) names `requestId`, under which the log has the details.
 */
export function toOpenAIError(error: unknown, requestId?: string): OpenAIErrorInit & { isInternal?: boolean } {
  const init = describe(error)
  const logged = init.isInternal || (error instanceof ProviderError && init.status >= 500)
  if (requestId === undefined || !logged) return init
  return { ...init, message: `${init.message} (request id ${requestId})` }
}

function describe(error: unknown): OpenAIErrorInit & { isInternal?: boolean } {
  if (error instanceof OpenAIError) return error.init
  if (error instanceof ProviderError) {
    return {
      status: error.status,
      message: error.message,
      type: error.options.type,
      code: error.options.code,
      param: error.options.param,
      // An upstream that is unavailable or rate limiting without saying how long gets our own advice:
      // SDKs wait what Retry-After says, and without it some retry at once.
      retryAfter:
        error.options.retryAfter ?? (WAIT_ADVISED.has(error.status) ? DEFAULT_RETRY_AFTER_SECONDS : undefined),
    }
  }
  if (error instanceof HttpError) {
    return {
      status: error.status,
      message: error.message,
      type: error.extra.type,
      param: error.extra.param ?? null,
      code: error.extra.code,
      headers: error.extra.headers,
    }
  }
  return { status: 500, message: 'The server had an error while processing your request.', isInternal: true }
}

/** OpenAI's stream framing: `: keep-alive` comments, `data: [DONE]`, and `data: {"error":{…}}` after the first byte. */
export const OPENAI_FRAMING: StreamFraming = {
  keepAlive: KEEP_ALIVE,
  done: DONE,
  errorEvent: (error, requestId) => encodeEvent(openAIErrorBody(toOpenAIError(error, requestId))),
}
