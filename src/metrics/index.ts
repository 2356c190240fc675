import { Elysia, t } from 'elysia'
import { type AuthDeps, authPlugin, BEARER_SECURITY } from '../auth'
import { ErrorBody, errorStatuses, plantStoreErrors } from '../http/plant-store-errors'
import type { Logger } from '../logging/logger'
import type { Metrics } from '../telemetry/metrics'

/** `GET /metrics`: the Prometheus text format, for a token with the `metrics` (or `admin`) scope. */
export const metricsPlugin = (deps: { auth: AuthDeps; logger: Logger; metrics: Metrics }) =>
  new Elysia({ name: 'metrics' })
    .use(authPlugin(deps.auth))
    .onError(plantStoreErrors(deps.logger))
    .get('/metrics', async () => new Response(await deps.metrics.registry.metrics(), { headers: { 'content-type': deps.metrics.registry.contentType } }), {
      auth: 'metrics',
      response: { 200: t.String(), ...errorStatuses(ErrorBody, 400, 401, 403, 429, 500, 503) },
      detail: {
        summary: 'Prometheus metrics',
        description: 'Needs the metrics (or admin) scope. Series are labelled by route template, method, status, model, provider and kind; never by owner, token or request id.',
        security: BEARER_SECURITY,
        tags: ['operations'],
        responses: {
          200: { description: 'The metrics, in the Prometheus text exposition format 0.0.4.', content: { 'text/plain; version=0.0.4': { schema: { type: 'string' as const } } } },
          403: { description: 'The token has neither the metrics nor the admin scope.' },
        },
      },
    })
