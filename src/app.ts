import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
import type { TokenService } from './auth/service'
import type { Config } from './config'
import type { DatabaseHandle } from './db/connect'
import { DATABASE_RETRY_AFTER_SECONDS, databaseUnavailable } from './db/failures'
import { errorResponse, plantStoreErrors } from './http/error-contract'
import type { Logger } from './http/logger'
import { allowedMethods } from './http/method-not-allowed'
import { observability } from './http/observability'
import { UI_ASSETS, type UiAssetLoader, type UiAssetName } from './http/ui-assets'
import { plantsPlugin } from './plants'
import { chatPlugin, type ChatSetup } from './chat'
import { openAIErrorResponse } from './chat/openai-error'
import { docsConfigPlugin } from './docs-config'

/** `/ready` answers within this, even while the database hangs; probes usually give up after 1–3 s. */
const READY_DEADLINE_MS = 1_500

/** `promise`, or a rejection once `ms` pass; for reads only, since the work itself goes on. */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: 'QUERY_TIMEOUT' })), ms)))
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer))
}

export type AppDeps = {
  config: Config
  database: DatabaseHandle
  tokens: TokenService
  logger: Logger
  clock: () => Date
  /** Files of the API-reference UI; without it, /openapi still serves the page but its assets 404. */
  uiAssets?: UiAssetLoader
  /** Called for responses that may stay open long (streams), so the server can lift its idle timeout. */
  onLongLivedRequest?: (request: Request) => void
  /** Aborts when the server is shutting down, so open streams can end cleanly. */
  shutdownSignal?: AbortSignal
  /** Chat registry and keep-alive; default: built from `config.chat`. Tests inject their own. */
  chat?: ChatSetup
}

/**
 * Builds the whole HTTP application from its dependencies. Web-standard only, so any
 * runtime can serve `createApp(deps).fetch`: Bun (src/server.ts), Deno and Node (src/runtimes).
 */
export function createApp(deps: AppDeps) {
  const db = deps.database.db
  const app = new Elysia({
    name: 'trellis',
    normalize: false,
    // By default Elysia assumes the host name is at least four characters long and looks
    // for the path from offset 11, so `Host: api` (a typical service name) routed to the
    // wrong path. Scanning from after `http://` is right for every host; our runtimes
    // serve plain HTTP (TLS ends at the load balancer), so URLs never start with https://.
    handler: { standardHostname: false },
  })
    .use(observability(deps.logger))
    .use(
      openapi({
        path: '/openapi',
        specPath: '/openapi.json',
        provider: 'swagger-ui',
        // The default drops every path with a dot as a "static file", which would hide /docs.json.
        exclude: { staticFile: false },
        swagger: { theme: '/openapi/assets/swagger-ui.css', cdn: '/openapi/assets/swagger-ui-bundle.js' },
        documentation: {
          info: {
            title: 'Trellis',
            version: '1.0.0',
            description: 'Plant store, OpenAI-compatible chat completions and docs.json configuration, in one server.',
          },
          components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A `trl_…` token from `trellis token create`' } } },
        },
      }),
    )
    .get(
      '/openapi/assets/:file',
      async ({ params }) => {
        const bytes = params.file in UI_ASSETS ? await deps.uiAssets?.(params.file as UiAssetName) : undefined
        if (!bytes) return errorResponse(404, `no asset named ${params.file}`)
        return new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': UI_ASSETS[params.file as UiAssetName], 'cache-control': 'public, max-age=86400' } })
      },
      { detail: { hide: true } },
    )
    .get('/health', () => ({ status: 'ok' as const }), { detail: { summary: 'Liveness: the process answers', tags: ['operations'] } })
    .get(
      '/ready',
      async ({ set }) => {
        try {
          await withDeadline(deps.database.ping(), READY_DEADLINE_MS)
          return { status: 'ready' as const, database: deps.database.kind }
        } catch (error) {
          // The cause goes to the log; probes and the public only learn that it is not ready.
          deps.logger.warn('not ready', { request_id: set.headers['x-request-id'], cause: databaseUnavailable(error) ?? String((error as Error)?.message ?? error) })
          return errorResponse(503, 'the database does not answer', { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) })
        }
      },
      { detail: { summary: 'Readiness: the database answers (503 otherwise)', description: `Answers within ${READY_DEADLINE_MS / 1000} s whatever the database does.`, tags: ['operations'] } },
    )
    .use(plantsPlugin({ db, tokens: deps.tokens, logger: deps.logger, config: deps.config }))
    .use(chatPlugin(deps))
    .use(docsConfigPlugin({ db, tokens: deps.tokens, logger: deps.logger, clock: deps.clock }))

  const allowed = allowedMethods(app.routes)
  const fallback = plantStoreErrors(deps.logger)
  // Destructured, not `(context) =>`: Elysia reads hook parameters to decide what every request
  // must parse, and a hook taking the whole context made each request parse its cookies.
  return app.onError(({ code, error, request, set }) => {
    if (code === 'NOT_FOUND') {
      const pathname = new URL(request.url).pathname
      const methods = allowed(pathname)
      // Under /v1 the callers are OpenAI SDKs, which understand only OpenAI's error shape.
      const openAIClient = pathname === '/v1' || pathname.startsWith('/v1/')
      if (methods.length > 0) {
        const message = `${request.method} is not allowed on ${pathname}; allowed: ${methods.join(', ')}`
        const headers = { allow: methods.join(', ') }
        return openAIClient ? openAIErrorResponse({ status: 405, message, headers }) : errorResponse(405, message, headers)
      }
      if (openAIClient) return openAIErrorResponse({ status: 404, message: `Invalid URL (${request.method} ${pathname})` })
    }
    return fallback({ code, error, request, set })
  })
}

export type App = ReturnType<typeof createApp>
