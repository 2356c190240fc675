import { Elysia } from 'elysia'
import { type AuthDeps, authPlugin, BEARER_SECURITY } from '../auth'
import type { Database } from '../db/connect'
import { ErrorBody, errorStatuses, jsonErrors } from '../http/json-errors'
import { HttpError } from '../http/errors'
import type { Logger } from '../telemetry/logger'
import { PriceList, UsageQuery, UsageReport } from './model'
import { dollars, type Group, summarizeUsage, TooManyGroups, usageTotal } from './service'
import type { Pricing } from '../cost/pricing'

export type UsageDeps = { db: Database; auth: AuthDeps; pricing: Pricing; logger: Logger; clock: () => Date }

const DAY_MS = 86_400_000

/**
 * `GET /usage`: the ledger's totals over a time range, grouped by model, owner, token, day or hour.
 * A token sees its owner's usage; an admin sees everyone's, and may pick one owner with `owner=`.
 */
export const usagePlugin = (deps: UsageDeps) =>
  new Elysia({ name: 'usage' })
    .use(authPlugin(deps.auth))
    .onError(jsonErrors(deps.logger))
    .get(
      '/usage',
      async ({ query, principal }) => {
        if (query.owner !== undefined && query.owner !== principal.owner && !principal.isAdmin)
          throw new HttpError(403, "only an admin token may read another owner's usage")
        const to = query.to ? new Date(query.to) : deps.clock()
        const from = query.from ? new Date(query.from) : new Date(to.getTime() - 30 * DAY_MS)
        if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()))
          throw new HttpError(400, 'from and to must be real dates')
        if (from >= to) throw new HttpError(400, 'from must be before to')
        const owner = principal.isAdmin ? query.owner : principal.owner
        try {
          const data = await summarizeUsage(deps.db, {
            from,
            to,
            owner,
            groupBy: (query.group_by ?? 'model').split(',') as Group[],
          })
          return { from: from.toISOString(), to: to.toISOString(), data, total: usageTotal(data) }
        } catch (error) {
          if (error instanceof TooManyGroups) throw new HttpError(400, error.message)
          throw error
        }
      },
      {
        auth: 'any',
        query: UsageQuery,
        response: { 200: UsageReport, ...errorStatuses(ErrorBody, 400, 401, 403, 429, 500, 503) },
        detail: {
          summary: 'Chat usage and cost, totalled',
          description:
            "Any valid token: its owner's usage; an admin token: everyone's, or one owner's with `owner=`. Rows " +
            "are written in batches within about a second of a request's end. Each row's cost was computed once, " +
            'when it was made, by the price version then in effect (`GET /prices`).',
          security: BEARER_SECURITY,
          tags: ['usage'],
          responses: {
            200: { description: 'Totals per group over the period.' },
            403: { description: '`owner` names another owner, and the token is not an admin token.' },
          },
        },
      },
    )
    .get(
      '/prices',
      () => ({
        data: deps.pricing.versions().map((version) => ({
          id: version.id,
          model: version.model,
          from: version.from.toISOString(),
          input: dollars(version.rates.input),
          cached_input: dollars(version.rates.cachedInput),
          cache_write: dollars(version.rates.cacheWrite),
          output: dollars(version.rates.output),
          reasoning: dollars(version.rates.reasoning),
        })),
      }),
      {
        auth: 'any',
        response: { 200: PriceList, ...errorStatuses(ErrorBody, 400, 401, 429, 500, 503) },
        detail: {
          summary: 'The price table, every version',
          description:
            'Any valid token. Every version of the price table this server prices by, oldest first: the ' +
            'defaults and the configuration (`prices:`, `TRELLIS_PRICES`) as recorded in the database. A ' +
            "version is in effect from its `from` until the next version of the same model's; a usage row names " +
            'the one it was priced by. Prices in US dollars per million tokens.',
          security: BEARER_SECURITY,
          tags: ['usage'],
          responses: { 200: { description: 'Every version, oldest first.' } },
        },
      },
    )
