import { Elysia, type DocumentDecoration, type TSchema, type ValidationError } from 'elysia'
import { authPlugin } from '../auth'
import type { TokenService } from '../auth/service'
import { DATABASE_RETRY_AFTER_SECONDS, databaseUnavailable } from '../db/failures'
import { readBodyText, requireJsonContentType } from '../http/body'
import { recordingStatus } from '../http/error-contract'
import type { Logger } from '../http/logger'
import { DEFAULT_MAX_RESPONSE_BYTES, type ChatConfig } from './config'
import { ChatCompletionRequest, ChatCompletionResponse, ModelEntry, ModelList } from './model'
import { OpenAIError, openAIErrorResponse, toOpenAIError } from './openai-error'
import { createEchoProvider } from './providers/echo'
import { ProviderError, type ChatRequest } from './providers/provider'
import { buildRegistry, type ModelRegistry } from './providers/registry'
import { describeIssue, modelList, modelNotFound, parseChatRequest } from './service'
import { KEEP_ALIVE_MS, openEventStream } from './sse'

/** What the chat routes serve from: the model registry, the keep-alive interval and the cap on one response (default 8 MiB). */
export type ChatSetup = { registry: ModelRegistry; keepAliveMs: number; maxResponseBytes?: number }

export type ChatDeps = {
  config: { bodyLimit: number; chat: ChatConfig }
  tokens: TokenService
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
export function chatSetupFrom(config: ChatConfig): ChatSetup {
  const maxResponseBytes = config.maxResponseBytes
  const echo = (options: { tokenDelayMs: number }) => createEchoProvider({ ...options, maxResponseBytes })
  return { registry: buildRegistry(config, { echo }), keepAliveMs: config.keepAliveMs, maxResponseBytes }
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
  const chat = deps.chat ?? chatSetupFrom(deps.config.chat)
  const listedAt = deps.clock()

  const complete = async ({ request, set }: { request: Request; set: { headers: Record<string, unknown> } }) => {
    requireJsonContentType(request)
    const parsed = parseChatRequest(await readBodyText(request, deps.config.bodyLimit))
    if (!chat.registry.has(parsed.model)) throw modelNotFound(parsed.model)
    const body: ChatRequest = { ...parsed, stream: parsed.stream === true }
    deps.onLongLivedRequest?.(request)

    const abort = new AbortController()
    const links = new AbortLinks(abort, request.signal, deps.shutdownSignal)
    if (!body.stream) {
      try {
        return Response.json(await chat.registry.complete(body, abort.signal))
      } finally {
        links.release()
      }
    }
    const state = { committed: false }
    // What the log needs is copied now: a stream lives long, and should not keep its Request alive.
    const where = { method: request.method, url: request.url, requestId: requestIdOf(set) }
    return openEventStream(chat.registry.streamEvents(body, abort.signal, state), {
      state,
      abort,
      keepAliveMs: chat.keepAliveMs || KEEP_ALIVE_MS,
      maxBytes: chat.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      onStreamError: (error) => {
        // A stream cut at the response cap is the request's doing, not a fault: a warning without a stack.
        if (error instanceof OpenAIError && error.init.code === 'response_too_large') {
          deps.logger.warn('chat stream cut at the response cap', { request_id: where.requestId, method: where.method, path: new URL(where.url).pathname, limit: chat.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES })
        } else logFailure(deps.logger, error, where, 'chat stream failed after the first byte')
      },
      onClose: () => links.release(),
      requestId: where.requestId,
    })
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

  const models = () => modelList(chat.registry.list(), listedAt)
  const model = ({ params }: { params: { model: string } }) => {
    const entry = models().data.find((candidate) => candidate.id === params.model)
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
    .use(authPlugin(deps.tokens))
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

/**
 * Aborts `abort` when the client disconnects or the server shuts down. A shutdown aborts
 * with a 503 so that a stream already under way ends with an error event that says so.
 * One object per request, which is its own listener (handleEvent): a held stream keeps no
 * closures for it. `release` detaches the listeners.
 */
class AbortLinks {
  readonly #abort: AbortController
  readonly #client: AbortSignal
  readonly #shutdown: AbortSignal | undefined

  constructor(abort: AbortController, client: AbortSignal, shutdown?: AbortSignal) {
    this.#abort = abort
    this.#client = client
    this.#shutdown = shutdown
    if (client.aborted) this.handleEvent({ target: client })
    else client.addEventListener('abort', this, { once: true })
    if (shutdown?.aborted) this.handleEvent({ target: shutdown })
    else shutdown?.addEventListener('abort', this, { once: true })
  }

  handleEvent(event: { target: EventTarget | null }): void {
    if (event.target === this.#client) this.#abort.abort(this.#client.reason)
    else this.#abort.abort(new OpenAIError({ status: 503, message: 'The server is shutting down; retry the request.', retryAfter: 1 }))
  }

  release(): void {
    this.#client.removeEventListener('abort', this)
    this.#shutdown?.removeEventListener('abort', this)
  }
}

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
