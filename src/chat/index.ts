import { Elysia, type DocumentDecoration, type ValidationError } from 'elysia'
import { API_KEY_SECURITY, type AuthDeps, authPlugin, BEARER_SECURITY, type Principal } from '../auth'
import type { Governance } from '../governance/service'
import type { UsageLedger } from '../usage/ledger'
import type { Pricing } from '../cost/pricing'
import type { Metrics } from '../telemetry/metrics'
import { type CompletionDeps, serveCompletion } from './completion'
import {
  DATABASE_RETRY_AFTER_SECONDS,
  databaseNotMigrated,
  databaseUnavailable,
  describeFailure,
  NOT_MIGRATED_MESSAGE,
  NOT_MIGRATED_RETRY_AFTER_SECONDS,
} from '../db/failures'
import { readBodyText, requireJsonContentType } from '../http/body'
import { recordingStatus } from '../http/json-errors'
import { jsonContent } from '../http/openapi-document'
import type { Logger } from '../telemetry/logger'
import { DEFAULT_MAX_RESPONSE_BYTES, type ChatConfig } from '../config/chat'
import { ChatCompletionRequest, ChatCompletionResponse, ModelEntry, ModelList } from './model'
import { OpenAIError, openAIErrorResponse } from '../http/openai-errors'
import { MODEL_ERRORS, openAIErrors, UPSTREAM_ERRORS, underV1 } from './route-docs'
import { toOpenAIError } from './errors'
import { createEchoProvider } from './providers/echo/echo'
import { ProviderError } from './providers/provider'
import { type AttemptObserver, buildRegistry, modelList, modelNotFound, type ModelRegistry } from './registry'
import { describeIssue, parseChatRequest } from './request'
import { messagesPlugin } from './messages'
import { embeddingsPlugin } from './embeddings'
import { anthropicErrorResponse } from '../http/anthropic-errors'
import { toAnthropicError } from './messages/errors'
import { AnthropicModel, AnthropicModelList } from './messages/model'
import { anthropicModel, anthropicModelPage, speaksAnthropic } from './messages/models'
import { responsesPlugin } from './responses'
import { startRetentionSweep } from './responses/retention'
import { ResponseStore } from './responses/store'
import type { Database } from '../db/connect'

/**
 * What the chat routes serve from: the model registry, the keep-alive interval and the cap on one response (default 8
 * MiB). Read at the start of each request, which keeps what it read to its end: a configuration reload replaces the
 * fields (`Object.assign(setup, chatSetupFrom(…))`) for the requests that start after it.
 */
export type ChatSetup = { registry: ModelRegistry; keepAliveMs: number; maxResponseBytes?: number }

export type ChatDeps = {
  config: { bodyLimit: number; chat: ChatConfig; responses: { retentionDays: number; maxStoredBytes: number } }
  /** Where stored responses are kept (`POST /v1/responses` with `store`). */
  database: { db: Database }
  auth: AuthDeps
  governance?: Governance
  ledger?: UsageLedger
  /** The price table: each request's cost, for its row, the metrics and `x-trellis-cost`. */
  pricing?: Pricing
  metrics?: Metrics
  logger: Logger
  clock: () => Date
  /** Defaults to {@link chatSetupFrom} on `config.chat` (validated at start); tests pass their own registry. */
  chat?: ChatSetup
  /** Called for every completion request: streams and slow upstreams may outlive the server's idle timeout. */
  onLongLivedRequest?: (request: Request) => void
  /** Aborts every upstream request when the server shuts down; open streams end with a 503 error event. */
  shutdownSignal?: AbortSignal
}

/** The registry `providers`/`models` describe (see src/config/chat.ts); the built-in models alone when unset. */
export function chatSetupFrom(config: ChatConfig, metrics?: Metrics): ChatSetup {
  const maxResponseBytes = config.maxResponseBytes
  const echo = (options: { tokenDelayMs: number }) => createEchoProvider({ ...options, maxResponseBytes })
  const observe: AttemptObserver | undefined =
    metrics && ((event) => metrics.upstreamFailed(event.provider, event.next))
  return { registry: buildRegistry(config, { echo, observe }), keepAliveMs: config.keepAliveMs, maxResponseBytes }
}

/**
 * OpenAI-compatible chat: `POST /chat/completions`, `GET /models` and `GET /models/{model}`,
 * and `POST /embeddings` from embeddings/, each also under `/v1`, so an OpenAI SDK pointed at
 * `http://host:port/v1` works unchanged.
 * Bearer tokens need the `chat` scope. Every error is in OpenAI's shape. Anthropic's Messages
 * API over the same registry is mounted from messages/ (`/v1/messages`), in its own shape.
 *
 * The body is read in the handler rather than by Elysia's parser, so that authentication
 * is checked before the body is read (401 before 400, like OpenAI) and the size limit holds.
 */
export function chatPlugin(deps: ChatDeps) {
  const chat = deps.chat ?? chatSetupFrom(deps.config.chat, deps.metrics)
  const listedAt = deps.clock()

  // Getters: each request copies these once (`{ ...served }`), so a reload that replaces `chat`'s fields reaches the
  // requests that start after it, and never one in flight.
  const served: CompletionDeps = {
    get registry() {
      return chat.registry
    },
    get keepAliveMs() {
      return chat.keepAliveMs
    },
    get maxResponseBytes() {
      return chat.maxResponseBytes
    },
    governance: deps.governance,
    ledger: deps.ledger,
    pricing: deps.pricing,
    metrics: deps.metrics,
    shutdownSignal: deps.shutdownSignal,
  }

  /** Logs a failure after a stream's first byte, which the client only sees as an error event. */
  const streamErrorLogger = (where: { method: string; url: string; requestId?: string }) => (error: unknown) => {
    // A stream cut at the response cap is the request's doing, not a fault: a warning without a stack.
    if (error instanceof OpenAIError && error.init.code === 'response_too_large') {
      deps.logger.warn('chat stream cut at the response cap', {
        request_id: where.requestId,
        method: where.method,
        path: new URL(where.url).pathname,
        limit: chat.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      })
    } else logFailure(deps.logger, error, where, 'chat stream failed after the first byte')
  }

  const complete = async ({
    request,
    set,
    principal,
  }: {
    request: Request
    set: { headers: Record<string, unknown> }
    principal: Principal
  }) => {
    requireJsonContentType(request)
    const parsed = parseChatRequest(await readBodyText(request, deps.config.bodyLimit))
    // The registry of this request, from here to its end, whatever a reload does meanwhile.
    const current = { ...served }
    // A model outside the token's allow-list is answered exactly like one that does not exist.
    if (!current.registry.has(parsed.model) || !allows(principal, parsed.model)) throw modelNotFound(parsed.model)
    deps.onLongLivedRequest?.(request)
    const requestId = requestIdOf(set)
    // What the log needs is copied now: a stream lives long, and should not keep its Request alive.
    const onStreamError = streamErrorLogger({ method: request.method, url: request.url, requestId })
    const setHeaders = (headers: Record<string, string>) => Object.assign(set.headers, headers)
    return serveCompletion({ ...current, onStreamError }, { request, principal, requestId, setHeaders }, parsed)
  }

  const completeHook = {
    auth: 'chat' as const,
    parse: 'none' as const,
    detail: {
      summary: 'Create a chat completion',
      description:
        "OpenAI Chat Completions, with DeepSeek's `reasoning_content` and cache counters. With `stream: true` " +
        'the answer is `text/event-stream`: `data: <chunk>` events, then `data: [DONE]`.',
      tags: ['chat'],
      security: BEARER_SECURITY,
      requestBody: { required: true, content: jsonContent(ChatCompletionRequest) },
      responses: {
        200: {
          description:
            'The completion, or with `stream: true` its event stream. Errors after the first byte come as an `error` event in the stream.',
          content: {
            ...jsonContent(ChatCompletionResponse),
            'text/event-stream': {
              schema: { type: 'string', description: '`data: <chat.completion.chunk>` events, then `data: [DONE]`' },
            },
          },
        },
        ...openAIErrors([400, 401, 403, 404, 413, 415, 429, 500, 502, 503, 504], UPSTREAM_ERRORS),
      },
    } as DocumentDecoration,
  }

  /** The names of the models the token may use, in the registry's order. */
  const allowedNames = (principal: Principal) => chat.registry.list().filter((name) => allows(principal, name))
  type ModelContext = { request: Request; set: { headers: Record<string, unknown> }; principal: Principal }
  // OpenAI's shape, or Anthropic's for a request that carries anthropic-version (see messages/models.ts).
  const models = ({ request, set, principal }: ModelContext) => {
    if (!speaksAnthropic(request)) return modelList(allowedNames(principal), listedAt)
    set.headers['request-id'] = requestIdOf(set)
    return anthropicModelPage(allowedNames(principal), listedAt, new URL(request.url).searchParams)
  }
  const model = ({ request, set, params, principal }: ModelContext & { params: { model: string } }) => {
    // A malformed escape leaves Elysia no name (null): it names no model, as any unknown one.
    const name = typeof params.model === 'string' ? params.model : ''
    if (!allowedNames(principal).includes(name)) throw modelNotFound(name)
    if (!speaksAnthropic(request)) return modelList([params.model], listedAt).data[0]!
    set.headers['request-id'] = requestIdOf(set)
    return anthropicModel(params.model, listedAt)
  }
  const ANTHROPIC_SHAPE =
    " With an `anthropic-version` header (as Anthropic SDKs send), the answer is in Anthropic's shape, " +
    "the token may come as `x-api-key`, and errors are Anthropic's."
  const modelsHook = {
    sdkAuth: 'chat' as const,
    detail: {
      summary: 'List models',
      description:
        'The public names of the models this token may use.' +
        ANTHROPIC_SHAPE +
        " Anthropic's pagination applies there: `limit` (1..1000, default 20), `after_id` or `before_id`; " +
        '`lifecycle` filters (every model Trellis serves is `active`).',
      tags: ['chat'],
      security: API_KEY_SECURITY,
      parameters: [
        { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000 } },
        { name: 'after_id', in: 'query', required: false, schema: { type: 'string' } },
        { name: 'before_id', in: 'query', required: false, schema: { type: 'string' } },
        { name: 'lifecycle', in: 'query', required: false, schema: { type: 'string' } },
      ],
      responses: {
        200: {
          description: "The models: OpenAI's list, or Anthropic's page with `anthropic-version`.",
          content: { 'application/json': { schema: { anyOf: [ModelList, AnthropicModelList] } } },
        },
        ...openAIErrors([400, 401, 403, 429, 500, 503], MODEL_ERRORS),
      },
    } as DocumentDecoration,
  }
  const modelHook = {
    sdkAuth: 'chat' as const,
    detail: {
      summary: 'Retrieve a model',
      description:
        'One model, by its public name; a model the token may not use is answered as one that does not exist.' +
        ANTHROPIC_SHAPE,
      tags: ['chat'],
      security: API_KEY_SECURITY,
      responses: {
        200: {
          description: "The model, in OpenAI's shape or, with `anthropic-version`, Anthropic's.",
          content: { 'application/json': { schema: { anyOf: [ModelEntry, AnthropicModel] } } },
        },
        ...openAIErrors([400, 401, 403, 404, 429, 500, 503], MODEL_ERRORS),
      },
    } as DocumentDecoration,
  }

  /** OpenAI's error shape for every chat route but Anthropic's: database trouble as 503, Elysia's own errors as 400. */
  /** The error contract of every OpenAI-shaped route here (and of the models routes for an Anthropic SDK). */
  const openAIErrorHook = recordingStatus(
    ({
      code,
      error,
      request,
      set,
    }: {
      code: unknown
      error: unknown
      request: Request
      set: { headers: Record<string, unknown>; status?: unknown }
    }) => {
      const requestId = requestIdOf(set)
      // The models routes answer an Anthropic SDK in its own contract.
      const anthropic = speaksAnthropic(request) && isModelsPath(new URL(request.url).pathname)
      const notMigrated = databaseNotMigrated(error)
      if (notMigrated) {
        deps.logger.warn('database not migrated', { request_id: requestId, cause: notMigrated })
        const init = {
          status: 503,
          message: NOT_MIGRATED_MESSAGE,
          type: 'server_error',
          code: 'database_not_migrated',
          retryAfter: NOT_MIGRATED_RETRY_AFTER_SECONDS,
        }
        return anthropic ? anthropicErrorResponse(init, requestId) : openAIErrorResponse(init)
      }
      const unavailable = databaseUnavailable(error)
      if (unavailable) {
        deps.logger.warn('database unavailable', {
          request_id: requestId,
          method: request.method,
          path: new URL(request.url).pathname,
          cause: unavailable,
        })
        const init = {
          status: 503,
          message: 'The service is briefly unavailable; retry the request.',
          retryAfter: DATABASE_RETRY_AFTER_SECONDS,
        }
        return anthropic ? anthropicErrorResponse(init, requestId) : openAIErrorResponse(init)
      }
      if (code === 'VALIDATION') {
        const issue = (error as ValidationError).valueError
        return openAIErrorResponse(
          issue ? describeIssue(issue).init : { status: 400, message: 'The request is invalid.' },
        )
      }
      if (code === 'PARSE')
        return openAIErrorResponse({ status: 400, message: 'We could not parse the JSON body of your request.' })
      const init = anthropic ? toAnthropicError(error, requestId) : toOpenAIError(error, requestId)
      // A client that hung up before the first byte aborted its own request; nothing to report.
      if ((init.isInternal || init.status >= 500) && !request.signal.aborted)
        logFailure(deps.logger, error, { method: request.method, url: request.url, requestId }, 'chat request failed')
      return anthropic ? anthropicErrorResponse(init, requestId) : openAIErrorResponse(init)
    },
  )

  const responseStore = new ResponseStore(deps.database.db)
  // A server (whose runtime stops it on shutdown) sweeps; an app made without one, as tests make them, does not
  // leave a timer running against a database it closed.
  if (deps.shutdownSignal)
    startRetentionSweep(responseStore, { clock: deps.clock, logger: deps.logger, stop: deps.shutdownSignal })
  const responses = responsesPlugin({
    auth: deps.auth,
    bodyLimit: deps.config.bodyLimit,
    completion: served,
    store: responseStore,
    clock: deps.clock,
    retentionDays: deps.config.responses.retentionDays,
    maxStoredBytes: deps.config.responses.maxStoredBytes,
    allows,
    onLongLivedRequest: deps.onLongLivedRequest,
    streamErrorLogger,
    onError: openAIErrorHook,
  })

  const messages = messagesPlugin({
    auth: deps.auth,
    bodyLimit: deps.config.bodyLimit,
    logger: deps.logger,
    completion: served,
    allows,
    onLongLivedRequest: deps.onLongLivedRequest,
    streamErrorLogger,
    logFailure: (error, where, message) => logFailure(deps.logger, error, where, message),
  })

  const embeddings = embeddingsPlugin({
    auth: deps.auth,
    bodyLimit: deps.config.bodyLimit,
    completion: served,
    allows,
    onLongLivedRequest: deps.onLongLivedRequest,
  })

  return (
    new Elysia({ name: 'chat' })
      .use(authPlugin(deps.auth))
      // Before the OpenAI error hook, which would otherwise also see the Messages routes' errors.
      .use(messages)
      .use(responses)
      .onError(openAIErrorHook)
      // After the OpenAI error hook, which answers the embeddings routes' errors too.
      .use(embeddings)
      .post('/chat/completions', complete, completeHook)
      .post('/v1/chat/completions', complete, underV1(completeHook))
      .get('/models', models, modelsHook)
      .get('/v1/models', models, underV1(modelsHook))
      .get('/models/:model', model, modelHook)
      .get('/v1/models/:model', model, underV1(modelHook))
  )
}

/** A token's model allow-list; a token without one may use every model. */
const allows = (principal: Principal, model: string) =>
  principal.models === undefined || principal.models.includes(model)

const requestIdOf = (set: { headers: Record<string, unknown> }) => set.headers['x-request-id'] as string | undefined

/** `/models`, `/v1/models` and a model under either. */
export const isModelsPath = (pathname: string) => /^\/(v1\/)?models(\/|$)/.test(pathname)

/**
 * One log line for a failure: the request it ended, and why. A provider's failure is expected
 * (an upstream down, a certificate refused): its `detail`, which the client never sees, stands
 * in for a stack. Anything else is a bug, logged with its stack. `where` is copied from the
 * request (a stream should not keep its Request alive); the URL is parsed only when logging.
 */
function logFailure(
  logger: Logger,
  error: unknown,
  where: { method: string; url: string; requestId?: string },
  message: string,
) {
  const provider = error instanceof ProviderError
  logger.error(message, {
    request_id: where.requestId,
    method: where.method,
    path: new URL(where.url).pathname,
    error: provider ? error.message : describeFailure(error),
    ...(provider && error.options.detail !== undefined ? { detail: error.options.detail } : {}),
  })
}
