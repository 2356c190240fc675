import { t } from 'elysia'
import { oneOf } from './current-shape/reusable'

/** `api` of the spec shape: base URL, authentication and playground of the API pages. */

/** Allowed values of `api.auth.method`. */
const AUTH_METHODS = ['bearer', 'basic', 'key', 'cobo'] as const
/** Allowed values of `api.playground.mode`. */
const PLAYGROUND_MODES = ['show', 'simple', 'hide'] as const

export const Api = t.Object(
  {
    baseUrl: t.Optional(
      t.Union(
        [
          t.String({ title: 'a URL string', description: 'base URL of all API endpoints' }),
          t.Array(t.String(), {
            title: 'an array of URL strings',
            description: 'several base URLs the user can toggle',
          }),
        ],
        {
          description:
            'base URL of all API endpoints; an array gives several base URLs that the user can toggle (absolute URLs)',
        },
      ),
    ),
    auth: t.Optional(
      t.Object(
        {
          method: t.Optional(
            t.Union(
              AUTH_METHODS.map((value) => t.Literal(value)),
              { description: 'authentication strategy for all endpoints' },
            ),
          ),
          name: t.Optional(
            t.String({
              description:
                'name of the authentication parameter in the playground; for basic the form is [usernameName]:[passwordName]',
            }),
          ),
          inputPrefix: t.Optional(t.String({ description: 'default prefix of the authentication input field' })),
        },
        { description: 'authentication settings' },
      ),
    ),
    playground: t.Optional(
      t.Object(
        {
          disableProxy: t.Optional(t.Boolean({ description: 'sends playground requests from the browser directly' })),
          mode: t.Optional(
            t.Union(
              PLAYGROUND_MODES.map((value) => t.Literal(value)),
              {
                default: 'show',
                description: 'show, hide, or simple (the endpoint is shown without interactivity)',
              },
            ),
          ),
        },
        { default: { mode: 'show' }, description: 'API playground settings' },
      ),
    ),
    request: t.Optional(
      t.Object(
        {
          example: t.Optional(
            t.Object({ showOptionalParams: t.Optional(t.Boolean()), languages: t.Optional(t.Array(t.String())) }),
          ),
        },
        { description: 'request examples' },
      ),
    ),
    paramFields: t.Optional(
      t.Object(
        {
          expanded: t.Optional(oneOf(['all', 'topLevel', 'topLevelOneOfs', 'none'] as const, 'which fields open')),
          post: t.Optional(t.Array(t.String())),
        },
        { description: 'parameter fields' },
      ),
    ),
    maintainOrder: t.Optional(
      t.Boolean({
        description:
          'when enabled, key order on OpenAPI pages follows the order in the OpenAPI file; to be deprecated once this becomes the default behavior',
      }),
    ),
  },
  { description: 'API page settings' },
)
