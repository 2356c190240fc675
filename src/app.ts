import { Elysia } from 'elysia'
import { type AuthDeps, authenticate } from './auth'
import type { TokenService } from './auth/service'
import type { Config } from './config'
import type { DatabaseHandle } from './db/connect'
import { errorResponse, jsonErrors, recordingStatus } from './http/json-errors'
import type { RequestGate } from './http/drain'
import type { Logger } from './telemetry/logger'
import { allowedMethods } from './http/method-not-allowed'
import { logRequest, observability } from './http/observability'
import { jsonMediaType } from './http/media-type'
import type { UiAssetLoader } from './http/ui-assets'
import { operationsPlugin } from './operations'
import { DOCUMENT_HEAD } from './operations/document-head'
import { type DocumentedRoute, openApiDocument } from './http/openapi-document'
import { plantsPlugin } from './plants'
import { chatPlugin, type ChatSetup, chatSetupFrom, isModelsPath } from './chat'
import { PROVIDER_KINDS } from './chat/providers'
import { ConfigReloader } from './config/reload'
import { configRoutes } from './config/routes'
import { configSchemaText } from './config/json-schema'
import { scenarioSchemaText } from './chat/providers/script/json-schema'
import { openAIErrorResponse } from './http/openai-errors'
import { anthropicErrorResponse } from './http/anthropic-errors'
import { adminPlugin } from './auth/admin'
import { docsConfigPlugin } from './docs-config'
import { DocsConfigService } from './docs-config/service'
import { DocsRevisionStore } from './docs-config/store'
import { docsPagesPlugin } from './docs-pages'
import { docsAssetsPlugin } from './docs-pages/asset-routes'
import { DocsAssetsService } from './docs-pages/asset-service'
import { DocsAssetsStore } from './docs-pages/asset-store'
import { DocsPagesService } from './docs-pages/service'
import { DocsPagesStore } from './docs-pages/store'
import { docsSitePlugin } from './docs-site'
import type { OpenApiDocument } from './docs-site/openapi-schema'
import { DocsSiteService, type SiteSources } from './docs-site/service'
import { docsSearchPlugin } from './docs-site/search'
import { docsDiscoveryPlugin, markdownPage } from './docs-site/discovery'
import { DiscoveryService } from './docs-site/discovery/service'
import { SearchService, type SearchSources } from './docs-site/search/service'
import { docsJsonComponents } from './docs-config/json-schema'
import { FailedAuthThrottle } from './auth/failed-auth'
import { Governance } from './governance/service'
import { usagePlugin } from './usage'
import { UsageLedger } from './usage/ledger'
import { estimateRows } from './usage/journal'
import { metricsRoutes } from './telemetry/routes'
import { consolePlugin } from './console'
import { Metrics } from './telemetry/metrics'
import { Pricing } from './cost/pricing'

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
  /** Set by the runtime entry, which drains through it on SIGTERM; without it the app never drains. */
  gate?: RequestGate
  /**
   * Per-token limits; default: one built on `database` and `config.defaultLimits` (bootstrap passes its own, to stop
   * it).
   */
  governance?: Governance
  /** The usage ledger; default: one on `database` (bootstrap passes its own, to flush it on stop). */
  ledger?: UsageLedger
  /**
   * The price table of the ledger's costs and of money budgets; default: one on `database`, recording `config.prices`
   * as it starts (bootstrap passes its own, started before the first request).
   */
  pricing?: Pricing
  /** Prometheus metrics; default: a registry of this app's own. */
  metrics?: Metrics
  /** The peer address of a request, from the runtime (for throttling failed authentication). */
  peerAddress?: (request: Request) => string | undefined
  /**
   * Re-reads the configuration (`POST /admin/config/reload`; the Bun entry's SIGHUP); default: one made by
   * {@link configReloaderFor} on this app's chat setup and governance (bootstrap passes its own, for the signal).
   */
  reloader?: ConfigReloader
}

/**
 * The reloader of an app: what a reload changes is handed to the chat setup (a new registry, for the requests
 * that start after it), to governance (the default limits) and to the price table.
 */
export function configReloaderFor(deps: {
  config: Config
  chat: ChatSetup
  governance: Governance
  pricing: Pricing
  metrics: Metrics
  logger: Logger
}): ConfigReloader {
  return new ConfigReloader({
    config: deps.config,
    kinds: PROVIDER_KINDS,
    logger: deps.logger,
    apply: (next, changed) => {
      if (changed.some((part) => part !== 'limits' && part !== 'prices'))
        Object.assign(deps.chat, chatSetupFrom(next.chat, deps.metrics))
      if (changed.includes('limits')) deps.governance.setDefaults(next.defaultLimits)
      // Recorded in the database first (src/cost/versions.ts); requests priced meanwhile use the versions before.
      if (changed.includes('prices')) void deps.pricing.apply(next.prices)
    },
  })
}

/** The schema of trellis.yaml, made on first request: it never changes while the process runs. */
const configSchema = once(() => configSchemaText(PROVIDER_KINDS))
const scenarioSchema = once(scenarioSchemaText)

/**
 * How governance's holder of this process meets the rest (src/governance/holders.ts): the journal's estimates prove
 * what a dead holder's requests used, and on PGlite, a single process's database, every other holder is dead.
 */
export function holdersFor(database: DatabaseHandle) {
  return { proofs: estimateRows, exclusive: database.kind === 'pglite' }
}

/** The whole HTTP application; Web-standard only, so Bun, Deno and Node (src/runtimes/) serve `createApp(deps).fetch`. */
export function createApp(deps: AppDeps) {
  const db = deps.database.db
  const ledger = deps.ledger ?? (deps.config.usageLedger ? new UsageLedger(deps.database, deps.logger) : undefined)
  const metrics = deps.metrics ?? metricsFor(deps.database, ledger)
  const pricing = deps.pricing ?? Pricing.started(deps.database.db, deps.logger, deps.config.prices)
  const governance =
    deps.governance ??
    new Governance(db, {
      defaults: deps.config.defaultLimits,
      clock: deps.clock,
      onRefused: (kind) => metrics.rateLimited(kind),
      holders: holdersFor(deps.database),
      prices: (priced, at) => pricing.lookup(priced, at),
    })
  const auth: AuthDeps = {
    tokens: deps.tokens,
    governance,
    throttle: new FailedAuthThrottle({
      perMinute: deps.config.authFailuresPerMinute,
      onRefused: () => metrics.rateLimited('failed_auth'),
    }),
    peerAddress: deps.peerAddress,
    trustProxy: deps.config.trustProxy,
  }
  const chat = deps.chat ?? chatSetupFrom(deps.config.chat, metrics)
  const reloader =
    deps.reloader ?? configReloaderFor({ config: deps.config, chat, governance, pricing, metrics, logger: deps.logger })
  const docsConfig = new DocsConfigService(new DocsRevisionStore(db), deps.clock)
  // Read when the document is first asked for, by which time every plugin has added its routes.
  let routes: readonly DocumentedRoute[] = []
  const document = once(() => openApiDocument(routes, { ...DOCUMENT_HEAD, schemas: docsJsonComponents() }))
  let search: SearchService | undefined
  // The site is asked about each page before it is stored: one whose HTML would pass DOCS_MAX_PAGE_HTML is refused.
  // Once stored, the page's sections go into the search index.
  const docsPages = new DocsPagesService(
    new DocsPagesStore(db),
    deps.clock,
    (path, body): Promise<string | undefined> => site.pageProblem(path, body),
    (page) => search!.pageStored(page),
  )
  const docsAssets = new DocsAssetsService(new DocsAssetsStore(db), deps.config.docsAssets)
  // What generated API pages list, and what an `openapi:` front matter names, the search reads from the site.
  search = new SearchService(
    db,
    {
      ...searchSources(docsConfig, docsPages, document),
      generatedPages: () => site.generatedPages(),
      operation: (reference) => site.operation(reference),
    },
    deps.logger,
  )
  const discovery = new DiscoveryService({
    ...siteSources(docsConfig, docsPages, docsAssets, document),
    pageSummaries: () => docsPages.summaries(),
  })
  const site: DocsSiteService = new DocsSiteService(siteSources(docsConfig, docsPages, docsAssets, document), {
    maxPageHtml: deps.config.docsMaxPageHtml,
  })
  const app = new Elysia({
    name: 'trellis',
    normalize: false,
    // By default Elysia assumes the host name is at least four characters long and looks
    // for the path from offset 11, so `Host: api` (a typical service name) routed to the
    // wrong path. Scanning from after `http://` is right for every host; our runtimes
    // serve plain HTTP (TLS ends at the load balancer), so URLs never start with https://.
    handler: { standardHostname: false },
  })
    .use(observability(deps.logger, metrics))
    .use(jsonMediaType())
    .use(drainGuard(deps.gate, deps.logger))
    .use(
      operationsPlugin({
        database: deps.database,
        logger: deps.logger,
        uiAssets: deps.uiAssets,
        title: 'Trellis',
        document,
      }),
    )
    .use(plantsPlugin({ db, auth, logger: deps.logger, config: deps.config }))
    .use(chatPlugin({ ...deps, chat, auth, governance, ledger, pricing, metrics }))
    .use(docsConfigPlugin({ service: docsConfig, auth, logger: deps.logger }))
    .use(docsPagesPlugin({ service: docsPages, auth, logger: deps.logger }))
    .use(docsAssetsPlugin({ service: docsAssets, auth, logger: deps.logger }))
    .use(docsSearchPlugin({ service: search, logger: deps.logger }))
    .use(docsDiscoveryPlugin({ service: discovery, logger: deps.logger }))
    .use(
      docsSitePlugin({
        sources: site.sources,
        logger: deps.logger,
        service: site,
        markdownPage: (path) => markdownPage(discovery, path),
      }),
    )
    .use(adminPlugin({ auth, tokens: deps.tokens, logger: deps.logger, config: deps.config }))
    .use(usagePlugin({ db, auth, pricing, logger: deps.logger, clock: deps.clock }))
    .use(consolePlugin({ ...deps, db, auth, metrics, governance }))
    .use(
      metricsRoutes({ authorize: (request) => authenticate(auth, request, 'metrics'), logger: deps.logger, metrics }),
    )
    .use(
      configRoutes({
        schema: configSchema,
        scenarioSchema,
        authorize: (request) => authenticate(auth, request, 'admin'),
        // A reload answers once its prices are recorded, so that the next request is priced by them.
        reload: async (trigger) => {
          const outcome = reloader.reload(trigger)
          await pricing.settled()
          return outcome
        },
        logger: deps.logger,
      }),
    )

  routes = app.routes
  const allowed = allowedMethods(app.routes)
  const fallback = jsonErrors(deps.logger)
  // Destructured, not `(context) =>`: Elysia reads hook parameters to decide what every request
  // must parse, and a hook taking the whole context made each request parse its cookies.
  return app.onError(
    recordingStatus(
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
        if (code === 'NOT_FOUND') {
          const pathname = new URL(request.url).pathname
          const methods = allowed(pathname)
          // Under /v1 the callers are OpenAI SDKs, which understand only OpenAI's error shape, and
          // under /v1/messages Anthropic SDKs, which understand only Anthropic's.
          const contract = contractOf(pathname, request)
          const requestId = set.headers['x-request-id'] as string | undefined
          if (methods.length > 0) {
            const message = `${request.method} is not allowed on ${pathname}; allowed: ${methods.join(', ')}`
            const headers = { allow: methods.join(', ') }
            if (contract === 'anthropic') return anthropicErrorResponse({ status: 405, message, headers }, requestId)
            return contract === 'openai'
              ? openAIErrorResponse({ status: 405, message, headers })
              : errorResponse(405, message, headers)
          }
          if (contract === 'anthropic')
            return anthropicErrorResponse(
              { status: 404, message: `Invalid URL (${request.method} ${pathname})` },
              requestId,
            )
          if (contract === 'openai')
            return openAIErrorResponse({ status: 404, message: `Invalid URL (${request.method} ${pathname})` })
        }
        return fallback({ code, error, request, set })
      },
    ),
  )
}

/** The app's metrics, reading the ledger's queue and the database pool when scraped. */
export function metricsFor(database: DatabaseHandle, ledger: UsageLedger | undefined): Metrics {
  return new Metrics({
    ledger: ledger && (() => ({ depth: ledger.depth, dropped: ledger.dropped, ...ledger.written })),
    pool: () => database.poolStats(),
  })
}

/** The documentation site renders the current docs.json and the stored pages, and this server's own document. */
function siteSources(
  config: DocsConfigService,
  pages: DocsPagesService,
  files: DocsAssetsService,
  ownDocument: () => unknown,
): SiteSources {
  return {
    config: () => config.current(),
    pagesGeneration: () => pages.generation(),
    pageSummaries: () => pages.summaries(),
    pageText: async (path) => (await pages.stored(path))?.source,
    ownDocument: ownDocument as () => OpenApiDocument,
    files: {
      generation: () => files.generation(),
      summary: (path) => files.summary(path),
      content: async (path) => (await files.get(path))?.content,
      openApiPaths: () => files.openApiPaths(),
    },
  }
}

/** The site's search reads whether docs.json is the default, the stored pages, and this server's own document. */
function searchSources(
  config: DocsConfigService,
  pages: DocsPagesService,
  ownDocument: () => unknown,
): Omit<SearchSources, 'generatedPages' | 'operation'> {
  return {
    builtInConfig: async () => (await config.current()).builtIn,
    pagesGeneration: () => pages.generation(),
    pageRevisions: () => pages.summaries(),
    page: (path) => pages.stored(path),
    ownDocument: ownDocument as () => OpenApiDocument,
  }
}

/** The routes are fixed once the app is built: the document is made at its first request, then kept. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined
  return () => (made ??= { value: make() }).value
}

/**
 * The error contract a path's clients understand: Anthropic's under `/v1/messages` (Anthropic
 * SDKs), and on the models routes for a request that carries `anthropic-version` (which both SDK
 * families call); OpenAI's elsewhere under `/v1` and on the chat and responses routes (OpenAI SDKs), the
 * plant store's everywhere else.
 */
function contractOf(pathname: string, request: Request): 'anthropic' | 'openai' | 'plant-store' {
  if (pathname === '/v1/messages' || pathname.startsWith('/v1/messages/')) return 'anthropic'
  if (isModelsPath(pathname) && request.headers.has('anthropic-version')) return 'anthropic'
  return /^\/(v1(\/|$)|chat\/|models(\/|$)|responses(\/|$))/.test(pathname) ? 'openai' : 'plant-store'
}

/**
 * While the process drains (after SIGTERM): a request that arrives is refused with 503 and
 * `Retry-After`, in its route's contract, and every response says `Connection: close`, so that
 * keep-alive clients take their next request elsewhere instead of to a server about to close.
 */
function drainGuard(gate: RequestGate | undefined, logger: Logger) {
  const guard = new Elysia({ name: 'drain-guard' })
  if (!gate) return guard
  const closing = ({ set }: { set: { headers: Record<string, unknown> } }) => {
    if (gate.draining) set.headers.connection = 'close'
  }
  return guard
    .onRequest(({ request, set }) => {
      if (!gate.draining) return
      const message = 'this server is shutting down; retry the request'
      const requestId = set.headers['x-request-id']
      const headers = {
        'retry-after': String(DRAINING_RETRY_AFTER_SECONDS),
        connection: 'close',
        'x-request-id': String(requestId),
      }
      const pathname = new URL(request.url).pathname
      // Answered before routing: the after-response hook never sees it, so it is logged here.
      logRequest(logger, request, pathname, requestId, 503)
      const contract = contractOf(pathname, request)
      if (contract === 'anthropic') return anthropicErrorResponse({ status: 503, message, headers }, String(requestId))
      return contract === 'openai'
        ? openAIErrorResponse({ status: 503, message, headers })
        : errorResponse(503, message, headers)
    })
    .onAfterHandle({ as: 'global' }, closing)
    .onError({ as: 'global' }, closing)
}

/** Another replica takes the retry at once; this one is going away. */
const DRAINING_RETRY_AFTER_SECONDS = 1
