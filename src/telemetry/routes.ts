import { Elysia, t } from 'elysia'
import { ErrorBody, errorStatuses, jsonErrors } from '../http/json-errors'
import type { Logger } from './logger'
import type { Metrics } from './metrics'

/**
 * `GET /metrics`: the Prometheus text format. Telemetry sits below authentication (every feature
 * records metrics), so the composition passes in how a request proves the `metrics` scope.
 */
export const metricsRoutes = (deps: {
  authorize: (request: Request) => Promise<unknown>
  logger: Logger
  metrics: Metrics
}) =>
  new Elysia({ name: 'metrics' }).onError(jsonErrors(deps.logger)).get(
    '/metrics',
    async () =>
      new Response(await deps.metrics.registry.metrics(), {
        headers: { 'content-type': deps.metrics.registry.contentType },
      }),
    {
      async transform({ request }) {
        await deps.authorize(request)
      },
      response: { 200: t.String(), ...errorStatuses(ErrorBody, 400, 401, 403, 429, 500, 503) },
      detail: {
        summary: 'Prometheus metrics',
        description:
          'Needs the metrics (or admin) scope. Series are labelled by route template, method, status, model, ' +
          'provider and kind; never by owner, token or request id.',
        security: [{ bearerAuth: [] }],
        tags: ['operations'],
        responses: {
          200: {
            description: 'The metrics, in the Prometheus text exposition format 0.0.4.',
            content: { 'text/plain; version=0.0.4': { schema: { type: 'string' as const } } },
          },
          403: { description: 'The token has neither the metrics nor the admin scope.' },
        },
      },
    },
  )
