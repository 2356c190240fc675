import { Elysia, t } from 'elysia'
import { type AuthDeps, authPlugin, BEARER_SECURITY } from '../auth'
import { ErrorBody, errorStatuses, jsonErrors } from '../http/json-errors'
import { HttpError } from '../http/errors'
import { assetResponse, IMMUTABLE } from '../http/static-asset'
import type { Logger } from '../telemetry/logger'
import { chartCsv, chartHtml } from './chart'
import { ChartParams, LiveSample, Session, TokenViews } from './model'
import { CONSOLE_CSP, CONSOLE_HTML, consoleAsset } from './page'
import type { Governance } from '../governance/service'
import { type ConsoleDeps, ConsoleService } from './service'
import { MAX_HOUR_DAYS } from './usage'

/** What the console reads: the ledger, the tokens, the metrics registry, and governance for each token's limits. */
export type ConsoleRouteDeps = Omit<ConsoleDeps, 'limitsOf'> & {
  governance: Governance
  auth: AuthDeps
  logger: Logger
}

const errors = (...statuses: number[]) => errorStatuses(ErrorBody, ...statuses)
const READ_ERRORS = errors(400, 401, 403, 429, 500, 503)
const CONSOLE_ONLY = { description: 'The token has neither the console nor the admin scope.' }
const detail = (summary: string, description: string, ok: string) => ({
  summary,
  description: `Needs the console (read-only) or admin scope. ${description}`,
  security: BEARER_SECURITY,
  tags: ['console'],
  responses: { 200: { description: ok }, 403: CONSOLE_ONLY },
})

/** The page's headers: the strict policy, and no framing, sniffing or caching of a page that shows tokens. */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
}

/**
 * The console: `GET /console/` (one page and its two files, public: they hold no data) and the read-only JSON, HTML
 * and CSV it fetches under /console/api/, scope `console` or `admin`. Changes to tokens go through the admin API
 * (`/admin/tokens`), which needs `admin`.
 */
export const consolePlugin = (deps: ConsoleRouteDeps) => {
  const service = new ConsoleService({
    ...deps,
    limitsOf: (limits) => deps.governance.limitsOf({ tokenId: '', limits }),
  })
  return new Elysia({ name: 'console' })
    .use(authPlugin(deps.auth))
    .onError(jsonErrors(deps.logger))
    .get('/console/', () => new Response(CONSOLE_HTML, { headers: PAGE_HEADERS }), { detail: { hide: true } })
    .get(
      '/console/_assets/:file',
      ({ params, request }) => assetResponse(consoleAsset(params.file), request, IMMUTABLE),
      { detail: { hide: true } },
    )
    .get(
      '/console/api/session',
      ({ principal }) => ({
        token_id: principal.tokenId,
        owner: principal.owner,
        scopes: principal.scopes,
        can_change_tokens: principal.isAdmin,
      }),
      {
        auth: 'console',
        response: { 200: Session, ...READ_ERRORS },
        detail: detail(
          'Who the console is signed in as',
          'What the token may do there.',
          'The token, never its secret.',
        ),
      },
    )
    .get('/console/api/tokens', async () => ({ data: await service.tokens() }), {
      auth: 'console',
      response: { 200: TokenViews, ...READ_ERRORS },
      detail: detail(
        'Tokens with their usage',
        'Every token (revoked ones included, never a secret), its limits and defaults, and what it used this UTC ' +
          'month and in the last minute, from the ledger.',
        'Every token.',
      ),
    })
    .get(
      '/console/api/usage',
      async ({ query }) =>
        new Response(chartHtml(await service.chart(chartQuery(query))), {
          headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
        }),
      {
        auth: 'console',
        query: ChartParams,
        response: { 200: t.String(), ...READ_ERRORS },
        detail: {
          ...detail(
            'A usage chart',
            'Usage over the last `days` days by model, owner or token, per day or hour, as an HTML fragment: a ' +
              'stacked bar chart in inline SVG (the 8 largest series, the rest as "Other"), its legend, and a table ' +
              'of totals. Days come from the daily rollup of the ledger, hours from its rows (7 days at most).',
            'The chart and its table.',
          ),
        },
      },
    )
    .get(
      '/console/api/usage.csv',
      async ({ query }) =>
        new Response(chartCsv(await service.chart(chartQuery(query))), {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': 'attachment; filename="trellis-usage.csv"',
            'cache-control': 'no-store',
          },
        }),
      {
        auth: 'console',
        query: ChartParams,
        response: { 200: t.String(), ...READ_ERRORS },
        detail: detail(
          'A usage chart as CSV',
          'The same query as GET /console/api/usage; one row per bucket and series.',
          'CSV, with a header row.',
        ),
      },
    )
    .get('/console/api/live', () => service.live(), {
      auth: 'console',
      response: { 200: LiveSample, ...READ_ERRORS },
      detail: detail(
        'Live figures',
        "This process's metrics registry: streams in flight, and counters of requests, 5xx answers, times to first " +
          'token and failed upstream attempts; the console takes the difference of two samples for rates.',
        'The counters now.',
      ),
    })
}

function chartQuery(query: typeof ChartParams.static) {
  const bucket = query.bucket ?? 'day'
  const days = Number(query.days ?? 30)
  if (bucket === 'hour' && days > MAX_HOUR_DAYS)
    throw new HttpError(400, `days must be at most ${MAX_HOUR_DAYS} for an hourly chart (bucket=hour)`)
  return { by: query.by ?? 'model', bucket, days, measure: query.measure ?? 'cost' }
}
