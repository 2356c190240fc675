import { Kind, type TSchema } from '@sinclair/typebox'

/**
 * The OpenAPI 3.1 document, built from the routes' own TypeBox schemas (body, params, query,
 * response) and their `detail`. Our own rather than @elysiajs/openapi's generator, which (1.4.16)
 * drops the request body of every route with a parse hook (all of ours: int64 ids need the
 * lossless parser), renders a void response as a media type named `type`, copies Elysia's
 * `error` keyword into schemas, and describes each response as "Response for status N". The
 * standard linters (Redocly, Spectral) rejected its output; tests/e2e/openapi-tools.test.ts
 * keeps this one clean.
 */

/** What the document needs of a route; Elysia's `app.routes` entries have it. */
export type DocumentedRoute = { method: string; path: string; hooks?: unknown }

type Hooks = { body?: TSchema; params?: TSchema; query?: TSchema; response?: unknown; detail?: Detail }
type ResponseDoc = { description?: string; headers?: Record<string, unknown>; content?: Record<string, unknown> }
type Detail = Record<string, unknown> & {
  hide?: boolean
  security?: unknown[]
  requestBody?: unknown
  responses?: Record<string, ResponseDoc>
}

export type DocumentHead = {
  info: { title: string; version: string; description: string }
  servers: { url: string; description: string }[]
  tags: { name: string; description: string }[]
  securitySchemes: Record<string, unknown>
  /** Named schemas that operations refer to as `#/components/schemas/<name>`. */
  schemas?: Record<string, unknown>
}

/** What a status means in every Trellis operation that sends it; a route may say more in `detail.responses`. */
const STATUS_MEANINGS: Record<string, string> = {
  400: 'The request is invalid: a field (the message names it and the rule it broke), or a malformed Authorization header (RFC 6750 `invalid_request`).',
  401: 'The bearer token is missing, malformed, unknown, expired or revoked.',
  403: 'The token is valid but lacks the scope this operation needs.',
  404: 'Nothing with this identifier exists for the caller.',
  413: 'The request body is larger than the server accepts (BODY_LIMIT).',
  415: 'The request body is not declared as application/json.',
  429: "A limit of the token (requests, tokens, streams or budget) or the peer's failed-authentication limit was reached; Retry-After says when to try again.",
  500: 'An unexpected fault. The body says nothing more; the server log has the details under the X-Request-Id of the response.',
  503: 'The database is unavailable, or this replica is shutting down; Retry-After says when to try again.',
}

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
}

/** The `Link: <…>; rel="next"` header of a paged list. */
export const NEXT_PAGE_LINK = {
  Link: {
    description: 'The next page, as `<url>; rel="next"`; absent on the last page.',
    schema: { type: 'string' as const },
  },
}

/** A JSON body of this schema, as an OpenAPI `content` map. */
export const jsonContent = (schema: TSchema) => ({ 'application/json': { schema: jsonSchema(schema) } })

/** Statuses without a body, whatever schema a route gives them. */
const BODILESS = new Set(['204', '304'])

export function openApiDocument(routes: readonly DocumentedRoute[], head: DocumentHead) {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    const hooks = (route.hooks ?? {}) as Hooks
    const method = route.method.toLowerCase()
    if (hooks.detail?.hide || !HTTP_METHODS.has(method)) continue
    const path = route.path.replace(/:([^/]+)/g, '{$1}').replace(/\/\*$/, `/{${WILDCARD}}`)
    paths[path] ??= {}
    paths[path][method] = operation(route, hooks, path)
  }
  return {
    openapi: '3.1.0',
    info: head.info,
    servers: head.servers,
    tags: head.tags,
    paths,
    components: {
      ...(head.schemas
        ? {
            schemas: Object.fromEntries(
              Object.entries(head.schemas).map(([name, schema]) => [name, jsonSchema(schema as TSchema)]),
            ),
          }
        : {}),
      securitySchemes: head.securitySchemes,
    },
  }
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head'])

function operation(route: DocumentedRoute, hooks: Hooks, path: string) {
  const { hide: _hide, responses: responseDocs = {}, requestBody, security, ...rest } = hooks.detail ?? {}
  const parameters = [
    ...(hooks.params ? parametersOf(hooks.params, 'path') : untypedPathParameters(path)),
    ...parametersOf(hooks.query, 'query'),
  ]
  const body = requestBody ?? (hooks.body ? { required: true, content: jsonContent(hooks.body) } : undefined)
  return {
    operationId: operationId(route.method, path),
    ...rest,
    // Public routes say so: a linter (and a reader) cannot tell "public" from "forgot".
    security: security ?? [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: responses(route, hooks.response, responseDocs),
  }
}

function responses(route: DocumentedRoute, schemas: unknown, docs: Record<string, ResponseDoc>) {
  const bySchema: Record<string, TSchema> = isSchema(schemas)
    ? { 200: schemas }
    : ((schemas ?? {}) as Record<string, TSchema>)
  const statuses = [...new Set([...Object.keys(bySchema), ...Object.keys(docs)])].sort()
  const result: Record<string, unknown> = {}
  for (const status of statuses) {
    const doc = docs[status] ?? {}
    const schema = bySchema[status]
    const description =
      doc.description ?? STATUS_MEANINGS[status] ?? (schema as { description?: string } | undefined)?.description
    // A route that can send a status must say what it means; failing here fails the document's tests.
    if (!description) throw new Error(`${route.method} ${route.path}: no description for status ${status}`)
    const headers = doc.headers ?? (status === '429' || status === '503' ? RETRY_AFTER : undefined)
    const content =
      doc.content ?? (schema && !BODILESS.has(status) && !isVoid(schema) ? jsonContent(schema) : undefined)
    result[status] = { description, ...(headers ? { headers } : {}), ...(content ? { content } : {}) }
  }
  return result
}

function parametersOf(schema: TSchema | undefined, where: 'path' | 'query') {
  if (!schema) return []
  const object = jsonSchema(schema) as { properties?: Record<string, Record<string, unknown>>; required?: string[] }
  return Object.entries(object.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property
    return {
      name,
      in: where,
      required: where === 'path' || (object.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: rest,
    }
  })
}

/** A route's trailing `*` (the rest of the URL, slashes included) is documented as this path parameter. */
const WILDCARD = 'path'
const WILDCARD_DESCRIPTION =
  'The rest of the URL path, which may hold slashes; a client may also send them escaped as %2F'

/**
 * A path's `{name}`s, for a route that leaves them untyped (their value is any segment, or the rest of the path for a
 * wildcard).
 */
const untypedPathParameters = (path: string) =>
  [...path.matchAll(/\{([^}]+)\}/g)].map((match) => ({
    name: match[1]!,
    in: 'path',
    required: true,
    ...(match[1] === WILDCARD && path.endsWith(`/{${WILDCARD}}`) ? { description: WILDCARD_DESCRIPTION } : {}),
    schema: { type: 'string' as const },
  }))

/** `DELETE /plants/{id}` → `deletePlantsById`; `GET /docs.json/schema` → `getDocsJsonSchema`. */
function operationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .flatMap((segment) => (segment.startsWith('{') ? ['by', segment.slice(1, -1)] : segment.split(/[^A-Za-z0-9]+/)))
    .filter(Boolean)
  return method.toLowerCase() + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('')
}

const isSchema = (value: unknown): value is TSchema =>
  typeof value === 'object' &&
  value !== null &&
  (Kind in value || 'type' in value || '$ref' in value || 'anyOf' in value)

const isVoid = (schema: TSchema) => ['void', 'undefined'].includes((schema as { type?: string }).type ?? '')

/**
 * Keywords our schemas carry that JSON Schema does not define: Elysia's message, our trimming
 * flag, the editors' pattern message in the docs.json schema, and a draft-07 `$schema` that
 * would contradict the document's own dialect.
 */
const PRIVATE_KEYWORDS = ['error', 'trimmed', 'patternErrorMessage', '$schema']

/** A TypeBox schema as plain JSON Schema: symbols gone (JSON), private keywords removed at schema positions only. */
function jsonSchema(schema: TSchema): Record<string, unknown> {
  return clean(JSON.parse(JSON.stringify(schema)) as Record<string, unknown>)
}

function clean(node: Record<string, unknown>): Record<string, unknown> {
  for (const keyword of PRIVATE_KEYWORDS) delete node[keyword]
  for (const key of ['properties', 'patternProperties', '$defs'] as const) {
    const map = node[key] as Record<string, Record<string, unknown>> | undefined
    if (map) for (const name of Object.keys(map)) clean(map[name]!)
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
    const list = node[key] as Record<string, unknown>[] | undefined
    if (list) list.forEach(clean)
  }
  for (const key of [
    'items',
    'additionalProperties',
    'not',
    'if',
    'then',
    'else',
    'contains',
    'propertyNames',
  ] as const) {
    const sub = node[key]
    if (Array.isArray(sub)) sub.forEach((item) => clean(item as Record<string, unknown>))
    else if (typeof sub === 'object' && sub !== null) clean(sub as Record<string, unknown>)
  }
  return node
}
