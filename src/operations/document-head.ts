import packageJson from '../../package.json' with { type: 'json' }
import type { DocumentHead } from '../http/openapi-document'

const AUTH_MODEL = `
## Authentication
Every route except the public ones (\`/health\`, \`/ready\`, \`/openapi.json\`, \`GET /docs.json\`, \`GET
/docs.json/schema\`, \`GET /docs/pages\`, \`GET /docs/pages/{path}\`, \`GET /config/schema\`) takes a bearer token: \`Authorization: Bearer
trl_…\`; Anthropic's Messages API (\`/v1/messages\`) also takes it as \`x-api-key: trl_…\`, as Anthropic SDKs send it.
A token belongs to one **owner** and carries **scopes**:

| scope | allows |
|---|---|
| \`plants:read\` | \`GET /plants\` |
| \`plants:write\` | \`POST /plants\`, \`DELETE /plants/{id}\` |
| \`chat\` | \`/chat/completions\`, \`/models\` (also under \`/v1\`), \`/v1/messages\` |
| \`docs:write\` | \`PUT /docs.json\`, \`PUT /docs/pages/{path}\` |
| \`metrics\` | \`GET /metrics\` |
| \`console\` | the console's read-only views (\`/console/api/…\`): every token's settings and usage (never a secret), every owner's usage, the live metrics |
| \`admin\` | every scope, \`/admin/tokens\`, \`/admin/config/reload\`, and every owner's plants and usage |

Any valid token may validate a docs.json, read its revisions, and read its own owner's \`/usage\`.

Owners never see each other's plants. A missing, unknown, expired or revoked token is **401**; a valid token without
the scope is **403**. A token may carry limits (requests and tokens per minute, concurrent streams, a token budget)
and a model allow-list; a limit reached is **429** with \`Retry-After\`.

Tokens are made by \`trellis token create\` (while the server is stopped, on the embedded database) or \`POST
/admin/tokens\` with an admin token. On first start with an empty database the server prints an admin token once.

## Errors
Plant store, docs.json, docs pages, admin and usage errors are \`{"error": <status>, "message": "<one sentence>"}\`.
The chat routes answer in OpenAI's shape, \`{"error": {"message", "type", "param", "code"}}\`, so OpenAI SDKs
understand them; \`/v1/messages\` in Anthropic's, \`{"type": "error", "error": {"type", "message"}, "request_id"}\`,
so Anthropic SDKs do.

## Ids
Plant ids are 64-bit integers. A JSON body carries them as numbers and the server reads them exactly; in a path they
are decimal strings, because a JavaScript number rounds above 2^53.
`.trim()

/** The parts of the OpenAPI document that no route says: who we are, where, and how to authenticate. */
export const DOCUMENT_HEAD: DocumentHead = {
  info: {
    title: 'Trellis',
    version: packageJson.version,
    description: `Plant store, OpenAI-compatible chat completions and docs.json configuration, in one server.\n\n${AUTH_MODEL}`,
  },
  // Relative: the document is right for whatever host, port or proxy prefix a client reached it through.
  servers: [{ url: '/', description: 'The server that serves this document' }],
  tags: [
    { name: 'plants', description: "Each owner's plants" },
    {
      name: 'chat',
      description: "OpenAI-compatible chat completions and models, and Anthropic's Messages API over the same models",
    },
    { name: 'docs.json', description: 'The documentation site configuration and its revisions' },
    { name: 'docs pages', description: 'The Markdown pages of the documentation site and their revisions' },
    { name: 'admin', description: 'Tokens, their scopes and limits' },
    { name: 'usage', description: 'Requests and tokens per owner and model' },
    {
      name: 'console',
      description: 'What the web console at /console/ reads: tokens with their usage, charts, live figures',
    },
    { name: 'operations', description: 'Health, readiness and metrics' },
  ],
  securitySchemes: {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      description: 'A `trl_…` token; see the authentication section above.',
    },
    apiKeyAuth: {
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
      description: "The same `trl_…` token in Anthropic's header, on `/v1/messages` only.",
    },
  },
}
