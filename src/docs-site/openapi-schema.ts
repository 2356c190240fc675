/**
 * Reading an OpenAPI 3 document for the site's API pages: finding an operation, following `$ref`s, and
 * making an example value from a schema. Documents come from trusted places (this server's own
 * /openapi.json) but are still walked with depth and cycle limits, so no schema makes a page render forever.
 */

export type JsonObject = Record<string, unknown>
export type OpenApiDocument = {
  paths?: Record<string, JsonObject>
  components?: { schemas?: Record<string, unknown> }
  servers?: { url?: string; variables?: unknown }[]
  security?: unknown[]
}

export type Operation = {
  method: string
  path: string
  summary?: string
  description?: string
  operationId?: string
  deprecated?: boolean
  parameters: Parameter[]
  requestBody?: { required?: boolean; description?: string; content: Record<string, MediaType> }
  responses: {
    status: string
    description?: string
    content: Record<string, MediaType>
    headers: Record<string, JsonObject>
  }[]
  security: unknown[]
}
type Parameter = {
  name: string
  in: string
  required?: boolean
  description?: string
  schema?: JsonObject
  example?: unknown
}
export type MediaType = {
  schema?: JsonObject
  example?: unknown
  examples?: Record<string, { value?: unknown; summary?: string }>
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']
/** How deep a schema is shown or an example built; deeper levels are summarised. */
export const MAX_SCHEMA_DEPTH = 6
/**
 * Values in one generated example, and fields in one listed schema: depth alone does not bound them (12 properties
 * that each refer to the next level make 3 million fields in 6 levels), and neither does a document's size.
 */
const MAX_EXAMPLE_VALUES = 2_000
export const MAX_LISTED_FIELDS = 1_000

/** The operation `method path` of `document`, with `$ref`ed parameters, bodies and responses resolved. */
export function findOperation(document: OpenApiDocument, method: string, path: string): Operation | undefined {
  const item = document.paths?.[path] ?? document.paths?.[path.replace(/\/$/, '')]
  const raw = item?.[method.toLowerCase()]
  if (!isObject(raw) || !HTTP_METHODS.includes(method.toLowerCase())) return undefined
  const shared = Array.isArray(item!.parameters) ? item!.parameters : []
  const own = Array.isArray(raw.parameters) ? raw.parameters : []
  const parameters = [...shared, ...own]
    .map((parameter) => parameterOf(resolve(document, parameter)))
    .filter((parameter) => parameter !== undefined)
  const body = resolve(document, raw.requestBody)
  const responses = isObject(raw.responses) ? raw.responses : {}
  return {
    method: method.toUpperCase(),
    path,
    summary: stringOr(raw.summary),
    description: stringOr(raw.description),
    operationId: stringOr(raw.operationId),
    deprecated: raw.deprecated === true,
    parameters,
    requestBody: isObject(body)
      ? {
          required: body.required === true,
          description: stringOr(body.description),
          content: contentOf(document, body.content),
        }
      : undefined,
    responses: Object.entries(responses).map(([status, value]) => {
      const response = resolve(document, value)
      const headers =
        isObject(response) && isObject(response.headers) ? (response.headers as Record<string, JsonObject>) : {}
      return {
        status,
        description: isObject(response) ? stringOr(response.description) : undefined,
        content: isObject(response) ? contentOf(document, response.content) : {},
        headers,
      }
    }),
    security: Array.isArray(raw.security) ? raw.security : Array.isArray(document.security) ? document.security : [],
  }
}

/**
 * A parameter with its fields of the types the pages use, or undefined without a string name and in. A stored
 * document was checked, but only where it is written inline: a `$ref`ed one, or a description that is a number,
 * reached the page's `escapeHtml` as is (a 500).
 */
function parameterOf(value: unknown): Parameter | undefined {
  if (!isObject(value) || typeof value.name !== 'string' || typeof value.in !== 'string') return undefined
  return {
    name: value.name,
    in: value.in,
    required: value.required === true,
    description: stringOr(value.description),
    schema: isObject(value.schema) ? value.schema : undefined,
    example: value.example,
  }
}

/** One operation of a document as navigation lists it. */
export type OperationEntry = {
  method: string
  path: string
  summary?: string
  /** The page title Mintlify gives it: the summary, else "METHOD /path". */
  title: string
  tags: string[]
  operationId?: string
  deprecated: boolean
  /**
   * The page path Mintlify publishes it at, below the generated folder: `{tag}/{title slug}`, or `{title slug}`
   * for an operation without tags (`x-mint.href` wins when the operation sets one).
   */
  slug: string
}

/** Every `METHOD /path` of a document, in document order; `x-hidden` and `x-excluded` operations left out. */
export function operationsOf(document: OpenApiDocument): OperationEntry[] {
  const found: OperationEntry[] = []
  for (const [path, item] of Object.entries(isObject(document.paths) ? document.paths : {})) {
    if (!isObject(item)) continue
    for (const method of HTTP_METHODS) {
      const operation = item[method]
      if (!isObject(operation) || operation['x-hidden'] === true || operation['x-excluded'] === true) continue
      const tags = Array.isArray(operation.tags)
        ? operation.tags.filter((tag): tag is string => typeof tag === 'string')
        : []
      const summary = stringOr(operation.summary)?.trim() || undefined
      const title = summary ?? `${method.toUpperCase()} ${path}`
      const mint = isObject(operation['x-mint']) ? operation['x-mint'] : {}
      // An href with a control character is no page path (a NUL one made the home page a 500): the slug serves.
      const href = typeof mint.href === 'string' && !CONTROL.test(mint.href) ? mint.href.replace(/^\/+|\/+$/g, '') : ''
      found.push({
        method: method.toUpperCase(),
        path,
        summary,
        title,
        tags,
        operationId: stringOr(operation.operationId),
        deprecated: operation.deprecated === true,
        slug: href || [...(tags[0] === undefined ? [] : [slugOf(tags[0])]), slugOf(title)].join('/'),
      })
    }
  }
  return found
}

/** Characters no page path holds. */
const CONTROL = /[\u0000-\u001f\u007f]/

/**
 * A title or tag as a path segment, as Mintlify makes them: lower case, runs of spaces and slashes as one "-"
 * ("Search & List Entities" → "search-&-list-entities"; "GET /plants/{id}" → "get-plants-{id}").
 */
function slugOf(text: string): string {
  return (
    text
      .toLowerCase()
      // Control characters too: a NUL in a summary made a page path no request could look up without a 500.
      .replace(/[\s/\u0000-\u001f\u007f]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'operation'
  )
}

/** The base URLs a document's `servers` name, their `{variables}` filled with their defaults. */
export function serverUrlsOf(document: OpenApiDocument): string[] {
  const urls: string[] = []
  for (const server of Array.isArray(document.servers) ? document.servers : []) {
    if (!isObject(server) || typeof server.url !== 'string') continue
    const variables = isObject(server.variables) ? server.variables : {}
    urls.push(
      server.url.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
        const variable = variables[name]
        return isObject(variable) && typeof variable.default === 'string' ? variable.default : whole
      }),
    )
  }
  return urls
}

/** A value with one level of `$ref` followed (local references only; anything else is left as is). */
export function resolve(document: OpenApiDocument, value: unknown, seen = 0): unknown {
  if (!isObject(value) || typeof value.$ref !== 'string' || seen > 16) return value
  const ref = value.$ref
  if (!ref.startsWith('#/')) return value
  let target: unknown = document
  for (const part of ref.slice(2).split('/')) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~')
    target = isObject(target) ? target[key] : undefined
  }
  return target === undefined ? value : resolve(document, target, seen + 1)
}

/**
 * An example for `schema`: its own `example`, `default`, first `enum` value or `const`, else one built from its
 * type (objects from their properties, arrays with one item). Beyond {@link MAX_SCHEMA_DEPTH} levels, or on a
 * `$ref` cycle, the value is left out.
 */
export function exampleOf(
  document: OpenApiDocument,
  schema: unknown,
  depth = 0,
  refs: string[] = [],
  budget = { left: MAX_EXAMPLE_VALUES },
): unknown {
  if (!isObject(schema) || depth > MAX_SCHEMA_DEPTH || budget.left <= 0) return undefined
  budget.left -= 1
  if (typeof schema.$ref === 'string') {
    if (refs.includes(schema.$ref)) return undefined
    return exampleOf(document, resolve(document, schema), depth, [...refs, schema.$ref], budget)
  }
  if (schema.example !== undefined) return schema.example
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
  if (schema.default !== undefined) return schema.default
  if (schema.const !== undefined) return schema.const
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key]
    if (Array.isArray(branches) && branches.length > 0) return exampleOf(document, branches[0], depth + 1, refs, budget)
  }
  if (Array.isArray(schema.allOf)) {
    const merged: JsonObject = {}
    for (const part of schema.allOf) Object.assign(merged, exampleOf(document, part, depth + 1, refs, budget) ?? {})
    return merged
  }
  const type = Array.isArray(schema.type) ? schema.type.find((each) => each !== 'null') : schema.type
  switch (type) {
    case 'object': {
      const value: JsonObject = {}
      const properties = isObject(schema.properties) ? schema.properties : {}
      const required = new Set(Array.isArray(schema.required) ? schema.required : [])
      // Required properties, and optional ones only where the schema gives an example or default: a made-up
      // value for an optional field (an id of 0) would be sent as is from the playground and mean something.
      for (const [name, property] of Object.entries(properties)) {
        if (!required.has(name) && !hasOwnExample(resolve(document, property))) continue
        const example = exampleOf(document, property, depth + 1, refs, budget)
        if (example !== undefined) value[name] = example
      }
      return value
    }
    case 'array': {
      const item = exampleOf(document, schema.items, depth + 1, refs, budget)
      return item === undefined ? [] : [item]
    }
    case 'string':
      return schema.format === 'date-time'
        ? '2026-01-01T00:00:00Z'
        : schema.format === 'uri'
          ? 'https://example.com'
          : 'string'
    case 'integer':
      return typeof schema.minimum === 'number' ? schema.minimum : 0
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0
    case 'boolean':
      return true
    default:
      return undefined
  }
}

/** A short human name for a schema's type: `string`, `integer[]`, `object`, `Plant`, `a | b`. */
export function typeName(document: OpenApiDocument, schema: unknown): string {
  if (!isObject(schema)) return 'any'
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').at(-1) ?? 'object'
    const target = resolve(document, schema)
    return isObject(target) && target.type !== undefined && target.type !== 'object'
      ? typeName(document, { ...target, $ref: undefined })
      : name
  }
  if (Array.isArray(schema.type)) return schema.type.join(' | ')
  if (schema.type === 'array') return `${typeName(document, schema.items)}[]`
  if (typeof schema.type === 'string')
    return schema.format === undefined ? schema.type : `${schema.type} (${String(schema.format)})`
  for (const key of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(schema[key]))
      return (schema[key] as unknown[]).map((branch) => typeName(document, branch)).join(' | ')
  }
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  if (Array.isArray(schema.enum)) return 'enum'
  return isObject(schema.properties) ? 'object' : 'any'
}

function hasOwnExample(schema: unknown): boolean {
  return (
    isObject(schema) &&
    (schema.example !== undefined ||
      schema.default !== undefined ||
      (Array.isArray(schema.examples) && schema.examples.length > 0))
  )
}

function contentOf(document: OpenApiDocument, content: unknown): Record<string, MediaType> {
  if (!isObject(content)) return {}
  const out: Record<string, MediaType> = {}
  for (const [type, media] of Object.entries(content)) {
    if (isObject(media))
      out[type] = { ...media, schema: isObject(media.schema) ? media.schema : undefined } as MediaType
  }
  return out
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}
