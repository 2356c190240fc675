import { Elysia, type DocumentDecoration, type TSchema, type ValidationError } from 'elysia'
import { type AuthDeps, authPlugin, type Principal } from '../auth'
import type { Governance } from '../governance/service'
import type { UsageLedger } from '../usage/ledger'
import type { Metrics } from '../metrics/metrics'
import { type CompletionDeps, serveCompletion } from './completion'
import { DATABASE_RETRY_AFTER_SECONDS, databaseUnavailable } from '../db/failures'
import { readBodyText, requireJsonContentType } from '../http/body'
import { recordingStatus } from '../http/error-contract'
import type { Logger } from '../http/logger'
import { DEFAULT_MAX_RESPONSE_BYTES, type ChatConfig } from './config'
import { ChatCompletionRequest, ChatCompletionResponse, ModelEntry, ModelList } from './model'
import { OpenAIError, openAIErrorResponse, toOpenAIError } from './openai-error'
import { createEchoProvider } from './providers/echo'
import { ProviderError } from './providers/provider'
import { type AttemptObserver, buildRegistry, type ModelRegistry } from './providers/registry'
import { describeIssue, modelList, modelNotFound, parseChatRequest } from './service'

/** What the chat routes serve from: the model registry, the keep-alive interval and the cap on one response (default 8 MiB). */
export type ChatSetup = { registry: ModelRegistry; keepAliveMs: number; maxResponseBytes?: number }

export type ChatDeps = {
  config: { bodyLimit: number; chat: ChatConfig }
  auth: AuthDeps
  governance?: Governance
  ledger?: UsageLedger
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

/** The registry `CHAT_PROVIDERS`/`CHAT_MODELS` describe (see `config.ts`); `echo` alone when unset. */
export function chatSetupFrom(config: ChatConfig, metrics?: Metrics): ChatSetup {
  const maxResponseBytes = config.maxResponseBytes
  const echo = (options: { tokenDelayMs: number }) => createEchoProvider({ ...options, maxResponseBytes })
  const observe: AttemptObserver | undefined = metrics && ((event) => metrics.upstreamFailed(event.provider, event.next))
  return { registry: buildRegistry(config, { echo, observe }), keepAliveMs: config.keepAliveMs, maxResponseBytes }
}

const security = [{ bearerAuth: [] }]

/** A TypeBox schema as the plain JSON Schema an OpenAPI document embeds. */
function documented(schema: TSchema, mediaType = 'application/json') {
  return { [mediaType]: { schema: JSON.parse(JSON.stringify(schema)) as unknown } }
}

/**
 * OpenAI-compatible chat: `POST /chat/completions`, `GET /models` and `GET /models/{model}`,
 * also under `/v1`, so an OpenAI SDK pointed at `http://host:port/v1` works unchanged.
 * Bearer tokens need the `chat` scope. Every error is in OpenAI's shape.
 *
 * The body is read in the handler rather than by Elysia's parser, so that authentication
 * is checked before the body is read (401 before 400, like OpenAI) and the size limit holds.
 */
export function chatPlugin(deps: ChatDeps) {
  const chat = deps.chat ?? chatSetupFrom(deps.config.chat, deps.metrics)
  const listedAt = deps.clock()

  const served: CompletionDeps = {
    registry: chat.registry,
    keepAliveMs: chat.keepAliveMs,
    maxResponseBytes: chat.maxResponseBytes,
    governance: deps.governance,
    ledger: deps.ledger,
    metrics: deps.metrics,
    shutdownSignal: deps.shutdownSignal,
  }

  const complete = async ({ request, set, principal }: { request: Request; set: { headers: Record<string, unknown> }; principal: Principal }) => {
    requireJsonContentType(request)
    const parsed = parseChatRequest(await readBodyText(request, deps.config.bodyLimit))
    // A model outside the token's allow-list is answered exactly like one that does not exist.
    if (!chat.registry.has(parsed.model) || !allows(principal, parsed.model)) throw modelNotFound(parsed.model)
    deps.onLongLivedRequest?.(request)
    const requestId = requestIdOf(set)
    // What the log needs is copied now: a stream lives long, and should not keep its Request alive.
    const where = { method: request.method, url: request.url, requestId }
    const onStreamError = (error: unknown) => {
      // A stream cut at the response cap is the request's doing, not a fault: a warning without a stack.
      if (error instanceof OpenAIError && error.init.code === 'response_too_large') {
        deps.logger.warn('chat stream cut at the response cap', { request_id: where.requestId, method: where.method, path: new URL(where.url).pathname, limit: chat.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES })
      } else logFailure(deps.logger, error, where, 'chat stream failed after the first byte')
    }
    const setHeaders = (headers: Record<string, string>) => Object.assign(set.headers, headers)
    return serveCompletion({ ...served, onStreamError }, { request, principal, requestId, setHeaders }, parsed)
  }

  const completeHook = {
    auth: 'chat' as const,
    parse: 'none' as const,
    detail: {
      summary: 'Create a chat completion',
      description:
        'OpenAI Chat Completions, with DeepSeek\'s `reasoning_content` and cache counters. With `stream: true` the answer is `text/event-stream`: `data: <chunk>` events, then `data: [DONE]`.',
      tags: ['chat'],
      security,
      requestBody: { required: true, content: documented(ChatCompletionRequest) },
      responses: {
        200: {
          description: 'The completion, or its event stream',
          content: { ...documented(ChatCompletionResponse), 'text/event-stream': { schema: { type: 'string' } } },
        },
      },
    } as DocumentDecoration,
  }

  const models = ({ principal }: { principal: Principal }) => modelList(chat.registry.list().filter((name) => allows(principal, name)), listedAt)
  const model = ({ params, principal }: { params: { model: string }; principal: Principal }) => {
    const entry = models({ principal }).data.find((candidate) => candidate.id === params.model)
    if (!entry) throw modelNotFound(params.model)
    return entry
  }
  const modelsHook = {
    auth: 'chat' as const,
    detail: { summary: 'List models', tags: ['chat'], security, responses: { 200: { description: 'Public model names', content: documented(ModelList) } } } as DocumentDecoration,
  }
  const modelHook = {
    auth: 'chat' as const,
    detail: { summary: 'Retrieve a model', tags: ['chat'], security, responses: { 200: { description: 'One model', content: documented(ModelEntry) } } } as DocumentDecoration,
  }

  return new Elysia({ name: 'chat' })
    .use(authPlugin(deps.auth))
    .onError(
      recordingStatus(({ code, error, request, set }: { code: unknown; error: unknown; request: Request; set: { headers: Record<string, unknown>; status?: unknown } }) => {
      const unavailable = databaseUnavailable(error)
      if (unavailable) {
        deps.logger.warn('database unavailable', { request_id: requestIdOf(set), method: request.method, path: new URL(request.url).pathname, cause: unavailable })
        return openAIErrorResponse({ status: 503, message: 'The service is briefly unavailable; retry the request.', retryAfter: DATABASE_RETRY_AFTER_SECONDS })
      }
      if (code === 'VALIDATION') {
        const issue = (error as ValidationError).valueError
        return openAIErrorResponse(issue ? describeIssue(issue).init : { status: 400, message: 'The request is invalid.' })
      }
      if (code === 'PARSE') return openAIErrorResponse({ status: 400, message: 'We could not parse the JSON body of your request.' })
      const requestId = requestIdOf(set)
      const init = toOpenAIError(error, requestId)
      // A client that hung up before the first byte aborted its own request; nothing to report.
      if ((init.isInternal || init.status >= 500) && !request.signal.aborted) logFailure(deps.logger, error, { method: request.method, url: request.url, requestId }, 'chat request failed')
      return openAIErrorResponse(init)
    }),
    )
    .post('/chat/completions', complete, completeHook)
    .post('/v1/chat/completions', complete, { ...completeHook, detail: { ...completeHook.detail, hide: true } })
    .get('/models', models, modelsHook)
    .get('/v1/models', models, { ...modelsHook, detail: { ...modelsHook.detail, hide: true } })
    .get('/models/:model', model, modelHook)
    .get('/v1/models/:model', model, { ...modelHook, detail: { ...modelHook.detail, hide: true } })
}

/** A token's model allow-list; a token without one may use every model. */
const allows = (principal: Principal, model: string) => principal.models === undefined || principal.models.includes(model)

const requestIdOf = (set: { headers: Record<string, unknown> }) => set.headers['x-request-id'] as string | undefined

/**
 * One log line for a failure: the request it ended, and why. A provider's failure is expected
 * (an upstream down, a certificate refused): its `detail`, which the client never sees, stands
 * in for a stack. Anything else is a bug, logged with its stack. `where` is copied from the
 * request (a stream should not keep its Request alive); the URL is parsed only when logging.
 */
function logFailure(logger: Logger, error: unknown, where: { method: string; url: string; requestId?: string }, message: string) {
  const provider = error instanceof ProviderError
  logger.error(message, {
    request_id: where.requestId,
    method: where.method,
    path: new URL(where.url).pathname,
    error: provider ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error),
    ...(provider && error.options.detail !== undefined ? { detail: error.options.detail } : {}),
  })
}
