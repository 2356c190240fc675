import { Elysia, t } from 'elysia'
import { Integer } from '../http/integer'
import { HttpError } from '../http/errors'
import { ErrorBody, errorStatuses, jsonErrors } from '../http/json-errors'
import type { Logger } from '../telemetry/logger'
import type { ReloadOutcome } from './reload'

const Finding = t.Object({
  file: t.String(),
  line: Integer({ minimum: 1 }),
  column: Integer({ minimum: 1 }),
  path: t.String({ description: 'The setting, e.g. providers.deepseek.baseUrl' }),
  message: t.String(),
  suggestion: t.Optional(t.String({ description: 'The closest known key or value (did you mean …?)' })),
})

const Reloaded = t.Object({
  reloaded: t.Literal(true),
  file: t.Union([t.String(), t.Null()], { description: 'The configuration file read, or null without one' }),
  changed: t.Array(t.String(), { description: 'What changed and now applies: providers, models, limits, chat' }),
  needs_restart: t.Array(t.String(), {
    description: 'Settings that differ from the running ones but apply only at the next start, e.g. server.port (PORT)',
  }),
  models: t.Array(t.String(), { description: 'The models served from now on' }),
})

const Refused = t.Object({
  error: Integer({ format: 'int32' }),
  message: t.String(),
  findings: t.Array(Finding, { description: 'Where the file is wrong; empty when a variable is' }),
})

/**
 * `GET /config/schema`, the JSON Schema of trellis.yaml (public, like `GET /docs.json/schema`), and
 * `POST /admin/config/reload` (admin), which re-reads the file and the environment. Configuration sits below
 * authentication, so the composition passes in how a request proves the admin scope, and what a reload does.
 */
export function configRoutes(deps: {
  /** The schema, serialised (see json-schema.ts). */
  schema: () => string
  /** The JSON Schema of a script provider's scenario, serialised (src/chat/providers/script/json-schema.ts). */
  scenarioSchema: () => string
  authorize: (request: Request) => Promise<unknown>
  reload: (trigger: string) => ReloadOutcome | Promise<ReloadOutcome>
  logger: Logger
}) {
  return new Elysia({ name: 'config' })
    .onError(jsonErrors(deps.logger))
    .get('/config/schema', () => schemaResponse(deps.schema()), {
      response: { 200: t.Object({}, { additionalProperties: true }), ...errorStatuses(ErrorBody, 503) },
      detail: schemaDetail(
        'The JSON Schema of trellis.yaml',
        'Public. The configuration file as the server validates it, with descriptions, defaults and the ' +
          'variable that overrides each setting, so `# yaml-language-server: $schema=<this URL>` gives editors ' +
          'completion. The same file is in the repository, schemas/trellis.schema.json.',
        'trellis.yaml',
      ),
    })
    .get('/config/scenario-schema', () => schemaResponse(deps.scenarioSchema()), {
      response: { 200: t.Object({}, { additionalProperties: true }), ...errorStatuses(ErrorBody, 503) },
      detail: schemaDetail(
        "The JSON Schema of a script provider's scenario",
        'Public. A scenario file (kind script, `scenario: file.yaml`) as the server validates it, with ' +
          'descriptions, so `# yaml-language-server: $schema=<this URL>` gives editors completion. The same file ' +
          'is in the repository, schemas/scenario.schema.json.',
        'a scenario file',
      ),
    })
    .post(
      '/admin/config/reload',
      async ({ set }) => {
        const outcome = await deps.reload('http')
        if (!outcome.reloaded) throw new HttpError(400, outcome.message, { body: { findings: outcome.findings } })
        set.status = 200
        return outcome
      },
      {
        parse: 'none',
        async transform({ request }) {
          await deps.authorize(request)
        },
        response: { 200: Reloaded, 400: Refused, ...errorStatuses(ErrorBody, 401, 403, 429, 500, 503) },
        detail: {
          summary: 'Reload the configuration',
          description:
            'Needs the admin scope. Re-reads the configuration file and the environment the process started with ' +
            '(as SIGHUP does) and replaces the providers, the models, the default limits and the chat tunables. ' +
            'Requests and streams in flight finish with what they started with. A configuration that does not ' +
            'validate is refused whole, and the running one stays. Settings that apply only at start (port, ' +
            'database…) are listed in `needs_restart`. With several workers, this reloads the one that answered; ' +
            'send SIGHUP to the parent process to reload them all.',
          security: [{ bearerAuth: [] }],
          tags: ['admin'],
          responses: {
            200: { description: 'Reloaded: what changed, what needs a restart, and the models served now.' },
            400: { description: 'Refused: the file does not validate (`findings` says where) or a variable is wrong.' },
            403: { description: 'The token is not an admin token.' },
          },
        },
      },
    )
}

const schemaResponse = (text: string) =>
  new Response(text, { headers: { 'content-type': 'application/schema+json', 'cache-control': 'public, max-age=300' } })

const schemaDetail = (summary: string, description: string, of: string) => ({
  summary,
  description,
  tags: ['operations'],
  responses: {
    200: {
      description: `The JSON Schema (draft-07) of ${of}.`,
      content: { 'application/schema+json': { schema: { type: 'object' as const, additionalProperties: true } } },
    },
    503: { description: 'This replica is shutting down; Retry-After says when to try again.' },
  },
})
