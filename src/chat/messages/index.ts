import { Elysia, type DocumentDecoration } from 'elysia'
import { API_KEY_SECURITY, type AuthDeps, authPlugin, type Principal } from '../../auth'
import {
  DATABASE_RETRY_AFTER_SECONDS,
  databaseNotMigrated,
  databaseUnavailable,
  NOT_MIGRATED_MESSAGE,
  NOT_MIGRATED_RETRY_AFTER_SECONDS,
} from '../../db/failures'
import { anthropicErrorResponse, AnthropicErrorSchema } from '../../http/anthropic-errors'
import { readBodyText, requireJsonContentType } from '../../http/body'
import { jsonContent } from '../../http/openapi-document'
import { recordingStatus } from '../../http/json-errors'
import type { Logger } from '../../telemetry/logger'
import type { CompletionDeps } from '../completion'
import { modelNotFound } from '../registry'
import { toAnthropicError } from './errors'
import { CountTokensRequest, CountTokensResponse, MessageResponse, MessagesRequest } from './model'
import { parseCountTokensRequest, parseMessagesRequest } from './request'
import { countTokens, passedHeaders, serveMessages } from './service'

/**
 * What the Messages routes need from the chat feature: how completions are served, and how its routes log and check.
 */
export type MessagesDeps = {
  auth: AuthDeps
  bodyLimit: number
  logger: Logger
  completion: CompletionDeps
  /** Whether the token may use the model (its allow-list). */
  allows: (principal: Principal, model: string) => boolean
  onLongLivedRequest?: (request: Request) => void
  /** The logger of failures after a stream's first byte (the chat routes' own, the response cap's warning included). */
  streamErrorLogger: (where: RequestPlace) => (error: unknown) => void
  /** Logs a failure (a 5xx, or a bug) under its request id. */
  logFailure: (error: unknown, where: RequestPlace, message: string) => void
}

/** What a log line says of a request, copied from it: a stream should not keep its Request alive. */
type RequestPlace = { method: string; url: string; requestId?: string }

type HandlerContext = { request: Request; set: { headers: Record<string, unknown> }; principal: Principal }

const ERRORS: Record<number, string> = {
  400:
    '`invalid_request_error`: the request is invalid (the message starts with the field, as `messages.0.content: ' +
    '…`), a field has no equivalent for a model that is not served by an Anthropic provider, or the Authorization ' +
    'header is malformed.',
  401: '`authentication_error`: the token (`x-api-key` or `Authorization: Bearer`) is missing, unknown, expired or revoked.',
  403: '`permission_error`: the token lacks the chat scope.',
  404: '`not_found_error`: no such model, or the token may not use it.',
  413: '`request_too_large`: the body is larger than BODY_LIMIT.',
  415: '`invalid_request_error`: the body is not declared as application/json.',
  429:
    "`rate_limit_error`: a limit of the token, or the peer's failed-authentication limit, was reached, or every " +
    'provider of the model answered 429; Retry-After says when to try again. A spent monthly budget also says ' +
    '`x-should-retry: false`.',
  500: '`api_error`: an unexpected fault; the server log has the details under the request id.',
  502: '`api_error`: the upstream failed or answered something that is not a message.',
  503:
    '`overloaded_error`: every provider of the model is unavailable, the database is unavailable, or this replica ' +
    'is shutting down; Retry-After says when to try again.',
  504: '`timeout_error`: the upstream did not answer in time.',
}

const anthropicErrors = (statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [status, { description: ERRORS[status], content: jsonContent(AnthropicErrorSchema) }]),
  )

/**
 * Anthropic's Messages API over the same model registry: `POST /v1/messages` (streamed or not) and
 * `POST /v1/messages/count_tokens`, so an Anthropic SDK pointed at `http://host:port` works with
 * any Trellis model. The token comes as `x-api-key` or `Authorization: Bearer` and needs the `chat`
 * scope; its limits, model allow-list, the ledger and the metrics are the chat routes'. Every error
 * is in Anthropic's shape, with `request-id` beside `x-request-id`.
 */
export function messagesPlugin(deps: MessagesDeps) {
  const requestIdOf = (set: { headers: Record<string, unknown> }) => set.headers['x-request-id'] as string | undefined

  /**
   * Reads the body after authentication (401 before 400), within the size limit. `completion` is what the request is
   * served from to its end (its registry), copied once: a configuration reload reaches only later requests.
   */
  const read = async ({ request, set, principal }: HandlerContext, parse: (text: string) => { model: string }) => {
    set.headers['request-id'] = requestIdOf(set)
    requireJsonContentType(request)
    const parsed = parse(await readBodyText(request, deps.bodyLimit))
    const completion = { ...deps.completion }
    // A model outside the token's allow-list is answered exactly like one that does not exist.
    if (!completion.registry.has(parsed.model) || !deps.allows(principal, parsed.model))
      throw modelNotFound(parsed.model)
    return { parsed, completion }
  }

  const create = async (context: HandlerContext) => {
    const { parsed, completion } = await read(context, parseMessagesRequest)
    const request = parsed as MessagesRequest
    const { set, principal } = context
    deps.onLongLivedRequest?.(context.request)
    const requestId = requestIdOf(set)
    const onStreamError = deps.streamErrorLogger({
      method: context.request.method,
      url: context.request.url,
      requestId,
    })
    const setHeaders = (headers: Record<string, string>) => Object.assign(set.headers, headers)
    return serveMessages(
      { ...completion, onStreamError },
      { request: context.request, principal, requestId, setHeaders },
      request,
    )
  }

  const count = async (context: HandlerContext) => {
    const { parsed, completion } = await read(context, parseCountTokensRequest)
    const request = parsed as CountTokensRequest
    const { input_tokens, method } = await countTokens(
      completion.registry,
      request,
      context.request.signal,
      passedHeaders(context.request),
    )
    context.set.headers['x-trellis-token-count'] = method
    return { input_tokens }
  }

  return new Elysia({ name: 'chat-messages' })
    .use(authPlugin(deps.auth))
    .onError(
      recordingStatus(
        ({
          error,
          request,
          set,
        }: {
          error: unknown
          request: Request
          set: { headers: Record<string, unknown>; status?: unknown }
        }) => {
          const requestId = requestIdOf(set)
          const notMigrated = databaseNotMigrated(error)
          if (notMigrated) {
            deps.logger.warn('database not migrated', { request_id: requestId, cause: notMigrated })
            const init = { status: 503, message: NOT_MIGRATED_MESSAGE, retryAfter: NOT_MIGRATED_RETRY_AFTER_SECONDS }
            return anthropicErrorResponse(init, requestId)
          }
          const unavailable = databaseUnavailable(error)
          if (unavailable) {
            deps.logger.warn('database unavailable', {
              request_id: requestId,
              method: request.method,
              path: new URL(request.url).pathname,
              cause: unavailable,
            })
            return anthropicErrorResponse(
              {
                status: 503,
                message: 'The service is briefly unavailable; retry the request.',
                retryAfter: DATABASE_RETRY_AFTER_SECONDS,
              },
              requestId,
            )
          }
          // Bodies are read and validated by the handlers (parse: 'none'), so Elysia's own 422s and parse errors cannot
          // arise here.
          const init = toAnthropicError(error, requestId)
          // A client that hung up before the first byte aborted its own request; nothing to report.
          if ((init.isInternal || init.status >= 500) && !request.signal.aborted)
            deps.logFailure(error, { method: request.method, url: request.url, requestId }, 'messages request failed')
          return anthropicErrorResponse(init, requestId)
        },
      ),
    )
    .post('/v1/messages', create, {
      apiKeyAuth: 'chat',
      parse: 'none',
      detail: {
        summary: 'Create a message (Anthropic Messages API)',
        description:
          "Anthropic's Messages API over any Trellis model, for Anthropic SDKs given `http://host:port` as their " +
          'base URL. A model served by an Anthropic provider gets the request as it came; any other gets it in ' +
          "OpenAI's form: a field that cannot change the answer (`cache_control`, `context_management`, " +
          '`service_tier`, …) is ignored and named in `x-trellis-ignored`; one that would change it and has no ' +
          "equivalent (such as `top_k`) is a 400 naming it. With `stream: true` the answer is Anthropic's event " +
          'stream, with `ping` events while waiting.',
        tags: ['chat'],
        security: API_KEY_SECURITY,
        requestBody: { required: true, content: jsonContent(MessagesRequest) },
        responses: {
          200: {
            description:
              'The message, or with `stream: true` its events. An error after the first byte comes as an `error` event.',
            headers: {
              'x-trellis-ignored': {
                description:
                  "The fields a model served through OpenAI's form accepted and ignored, comma-separated as the " +
                  'client wrote them (`context_management, cache_control, tools[3].defer_loading`); absent when none was.',
                schema: { type: 'string' },
              },
            },
            content: {
              ...jsonContent(MessageResponse),
              'text/event-stream': {
                schema: {
                  type: 'string',
                  description:
                    '`event: <type>` and `data: <json>` lines: message_start, content_block_start/delta/stop, message_delta, message_stop; ping while waiting',
                },
              },
            },
          },
          ...anthropicErrors([400, 401, 403, 404, 413, 415, 429, 500, 502, 503, 504]),
        },
      } as DocumentDecoration,
    })
    .post('/v1/messages/count_tokens', count, {
      apiKeyAuth: 'chat',
      parse: 'none',
      detail: {
        summary: 'Count the input tokens of a message (Anthropic Messages API)',
        description:
          'The input tokens a message with this prompt would use: exact for echo (what its `/v1/messages` usage ' +
          "reports as input plus cache reads), the upstream's own count for a model served by an Anthropic " +
          'provider, and for any other model an estimate (a token per three bytes of UTF-8, which errs high). ' +
          '`x-trellis-token-count` says which: `exact`, `upstream` or `estimate`.',
        tags: ['chat'],
        security: API_KEY_SECURITY,
        requestBody: { required: true, content: jsonContent(CountTokensRequest) },
        responses: {
          200: {
            description: 'The count.',
            headers: {
              'x-trellis-token-count': {
                description: 'How the count was made: `exact`, `upstream` or `estimate`.',
                schema: { type: 'string', enum: ['exact', 'upstream', 'estimate'] },
              },
            },
            content: jsonContent(CountTokensResponse),
          },
          ...anthropicErrors([400, 401, 403, 404, 413, 415, 429, 500, 502, 503, 504]),
        },
      } as DocumentDecoration,
    })
}
