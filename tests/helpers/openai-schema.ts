/**
 * Validates values against the schemas of OpenAI's published OpenAPI document
 * (tests/fixtures/openai-openapi/openai-openapi.json, with its SOURCE.md and LICENSE), with Ajv's
 * JSON Schema 2020-12 dialect. The document does not compile as it is; a copy of its
 * `components.schemas` is rewritten first (see {@link normalised}):
 *
 * - OpenAPI 3.0 leftovers: `nullable: true` becomes a `null` type or an `anyOf` with null;
 *   boolean `exclusiveMinimum`/`exclusiveMaximum` become numbers; `$recursiveRef: "#"` a `$ref` to
 *   the schema that holds it.
 * - `discriminator` unions (Ajv refuses those on `anyOf`, and several have branches that share a
 *   value or leave the property optional) become an if/then dispatch on the property's value, so
 *   an error points into the branch the value chose instead of listing every branch.
 * - Keywords Ajv does not know (`example`, `x-*`) are allowed. Formats (`float`, `unixtime`…) are
 *   not checked.
 *
 * Objects stay open, as the document has them: an extra field is not an error.
 *
 * @example
 * const openai = openaiSchemaValidator()
 * openai.assert('CreateEmbeddingResponse', await response.json())   // throws, listing what is wrong
 */
import { readFileSync } from 'node:fs'
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'

type Schema = Record<string, any>

type SchemaResult = { valid: boolean; errors: ErrorObject[]; message: string }

export type OpenAISchemaValidator = {
  validate(name: string, value: unknown): SchemaResult
  /** Throws an Error whose message lists where and why `value` does not match `components.schemas[name]`. */
  assert(name: string, value: unknown): void
}

const SPEC_PATH = new URL('../fixtures/openai-openapi/openai-openapi.json', import.meta.url).pathname
const DOCUMENT_ID = 'https://trellis.invalid/openai-openapi.json'
const REF_PREFIX = '#/components/schemas/'

let shared: OpenAISchemaValidator | undefined

/**
 * The validator, made once per test process: reading and rewriting the document takes about 0.3 s,
 * and each schema is compiled (once) when it is first used.
 */
export function openaiSchemaValidator(): OpenAISchemaValidator {
  shared ??= createValidator()
  return shared
}

function createValidator(): OpenAISchemaValidator {
  const spec = JSON.parse(readFileSync(SPEC_PATH, 'utf8')) as Schema
  const schemas = normalised(spec.components.schemas)
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, validateFormats: false })
  ajv.addKeyword({ keyword: 'x-trellis-dispatch' })
  ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas } })
  const compiled = new Map<string, ValidateFunction>()
  const compile = (name: string) => {
    let check = compiled.get(name)
    if (!check) {
      if (!schemas[name]) throw new Error(`OpenAI's document has no components.schemas.${name}`)
      check = ajv.getSchema(`${DOCUMENT_ID}${REF_PREFIX}${name}`)!
      compiled.set(name, check)
    }
    return check
  }
  const validate = (name: string, value: unknown): SchemaResult => {
    const check = compile(name)
    const valid = check(value) as boolean
    const errors = valid ? [] : (check.errors ?? [])
    return { valid, errors, message: valid ? '' : described(name, errors) }
  }
  return {
    validate,
    assert(name, value) {
      const result = validate(name, value)
      if (!result.valid) throw new Error(result.message)
    },
  }
}

const NAMED_CHILDREN = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']
const CHILD = [
  'additionalProperties',
  'items',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'contains',
  'unevaluatedProperties',
  'unevaluatedItems',
]
const CHILD_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems']

/** A copy of `schema` with `rewrite` applied to every sub-schema, innermost first. */
function mapSchema(schema: unknown, rewrite: (schema: Schema) => Schema): any {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema
  const out: Schema = { ...schema }
  for (const key of NAMED_CHILDREN)
    if (out[key] && typeof out[key] === 'object')
      out[key] = Object.fromEntries(Object.entries(out[key]).map(([name, child]) => [name, mapSchema(child, rewrite)]))
  for (const key of CHILD) if (out[key] && typeof out[key] === 'object') out[key] = mapSchema(out[key], rewrite)
  for (const key of CHILD_LISTS)
    if (Array.isArray(out[key])) out[key] = out[key].map((child: unknown) => mapSchema(child, rewrite))
  return rewrite(out)
}

/** The rewritten copy of `components.schemas` that Ajv 2020 compiles (see the module comment). */
function normalised(original: Schema): Schema {
  const out: Schema = {}
  for (const [component, schema] of Object.entries(original)) {
    out[component] = mapSchema(schema, (node) => {
      let s = withoutNullable(node)
      for (const [exclusive, bound] of [
        ['exclusiveMinimum', 'minimum'],
        ['exclusiveMaximum', 'maximum'],
      ] as const) {
        if (typeof s[exclusive] !== 'boolean') continue
        if (s[exclusive] && typeof s[bound] === 'number') {
          s[exclusive] = s[bound]
          delete s[bound]
        } else delete s[exclusive]
      }
      if ('$recursiveAnchor' in s) delete s.$recursiveAnchor
      if (s.$recursiveRef === '#') {
        delete s.$recursiveRef
        s.$ref = REF_PREFIX + component
      }
      if (s.discriminator) s = dispatched(original, s)
      return s
    })
  }
  return out
}

/** OpenAPI 3.0's `nullable: true` in 2020-12 terms. */
function withoutNullable(schema: Schema): Schema {
  if (!('nullable' in schema)) return schema
  const { nullable, ...rest } = schema
  if (nullable !== true) return rest
  if (typeof rest.type === 'string' && !rest.$ref && !rest.anyOf && !rest.oneOf && !rest.allOf) {
    rest.type = [rest.type, 'null']
    if (Array.isArray(rest.enum) && !rest.enum.includes(null)) rest.enum = [...rest.enum, null]
    return rest
  }
  const { description, title, default: fallback, deprecated, ...inner } = rest
  return {
    anyOf: [inner, { type: 'null' }],
    ...(description && { description }),
    ...(title && { title }),
    ...(fallback !== undefined && { default: fallback }),
    ...(deprecated && { deprecated }),
  }
}

/** A branch of a discriminated union, flattened through nested unions: its schema and the values it takes. */
type Leaf = { ref: Schema; values: unknown[] | undefined; required: boolean }

const resolved = (all: Schema, schema: Schema): Schema =>
  schema?.$ref?.startsWith(REF_PREFIX) ? all[schema.$ref.slice(REF_PREFIX.length)] : schema

/** The discriminating property of `schema` (through allOf), and whether it is required. */
function propertyOf(all: Schema, schema: Schema, name: string, depth = 0): { property?: Schema; required: boolean } {
  const s = resolved(all, schema)
  let property = s?.properties?.[name]
  let required = Boolean(s?.required?.includes(name))
  for (const part of s?.allOf ?? []) {
    if (depth > 8) break
    const found = propertyOf(all, part, name, depth + 1)
    property ??= found.property
    required ||= found.required
  }
  return { property, required }
}

/** The values a discriminating property may take, or undefined when it is not a closed set. */
function valuesOf(all: Schema, property: Schema | undefined): unknown[] | undefined {
  const p = property && resolved(all, property)
  if (!p) return undefined
  if ('const' in p) return [p.const]
  if (Array.isArray(p.enum)) return [...p.enum, ...(p.nullable ? [null] : [])]
  if (p.type === 'null') return [null]
  const branches = p.anyOf ?? p.oneOf
  if (!Array.isArray(branches)) return undefined
  const values: unknown[] = []
  for (const branch of branches) {
    const more = valuesOf(all, branch)
    if (!more) return undefined
    values.push(...more)
  }
  return values
}

function leavesOf(all: Schema, branch: Schema, name: string, seen = new Set<string>()): Leaf[] {
  const s = resolved(all, branch)
  const branches = s?.oneOf ?? s?.anyOf
  const nested =
    Array.isArray(branches) &&
    !s.properties &&
    (s.discriminator?.propertyName === name ||
      branches.every((member: Schema) => propertyOf(all, member, name).property))
  if (nested) {
    if (branch.$ref) {
      if (seen.has(branch.$ref)) return []
      seen.add(branch.$ref)
    }
    return branches.flatMap((member: Schema) => leavesOf(all, member, name, seen))
  }
  const { property, required } = propertyOf(all, branch, name)
  return [{ ref: branch.$ref ? { $ref: branch.$ref } : branch, values: valuesOf(all, property), required }]
}

/**
 * A `discriminator` union as an if/then dispatch on the property's value: a value shared by
 * several branches is any of them (which also settles the spec's ambiguous oneOf members), and a
 * value without the property is any branch where it is optional. A union whose values are not a
 * closed set is left a plain union.
 */
function dispatched(all: Schema, schema: Schema): Schema {
  const name: string = schema.discriminator.propertyName
  const { discriminator, oneOf, anyOf, ...rest } = schema
  const branches = oneOf ?? anyOf
  const leaves: Leaf[] = Array.isArray(branches)
    ? branches.flatMap((branch: Schema) => leavesOf(all, branch, name))
    : []
  if (leaves.length === 0 || leaves.some((leaf) => !leaf.values))
    return { ...rest, ...(oneOf && { oneOf }), ...(anyOf && { anyOf }) }
  const byValue = new Map<string, { value: unknown; refs: Schema[] }>()
  for (const leaf of leaves)
    for (const value of leaf.values!) {
      const key = JSON.stringify(value)
      const entry = byValue.get(key) ?? { value, refs: [] }
      if (!entry.refs.some((ref) => JSON.stringify(ref) === JSON.stringify(leaf.ref))) entry.refs.push(leaf.ref)
      byValue.set(key, entry)
    }
  const either = (refs: Schema[]) => (refs.length === 1 ? refs[0] : { anyOf: refs })
  const optional = leaves.filter((leaf) => !leaf.required).map((leaf) => leaf.ref)
  const entries = [...byValue.values()]
  return {
    ...rest,
    type: 'object',
    'x-trellis-dispatch': name,
    if: { required: [name] },
    then: {
      properties: { [name]: { enum: entries.map((entry) => entry.value) } },
      allOf: entries.map((entry) => ({
        if: { properties: { [name]: { const: entry.value } } },
        then: either(entry.refs),
      })),
    },
    else: optional.length ? either(optional) : { required: [name] },
  }
}

/** Ajv's errors as lines, without the noise of failed `if`s, null arms and unions a deeper error explains. */
function described(name: string, errors: ErrorObject[], most = 8): string {
  const useful = errors.filter(
    (error) =>
      error.keyword !== 'if' &&
      !(error.keyword === 'type' && (error.params as { type?: unknown }).type === 'null') &&
      !(
        (error.keyword === 'anyOf' || error.keyword === 'oneOf') &&
        errors.some(
          (other) =>
            other !== error &&
            other.keyword !== error.keyword &&
            other.keyword !== 'if' &&
            other.instancePath.startsWith(error.instancePath),
        )
      ),
  )
  const lines = (useful.length ? useful : errors).slice(0, most).map((error) => {
    const params = error.params as Record<string, unknown>
    const extra =
      error.keyword === 'enum'
        ? ` ${JSON.stringify(params.allowedValues).slice(0, 200)}`
        : error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties'
          ? ` '${params.additionalProperty ?? params.unevaluatedProperty}'`
          : ''
    return `  ${error.instancePath || '(root)'} ${error.message}${extra}  [${error.schemaPath.replace(DOCUMENT_ID, '')}]`
  })
  return `${name}: invalid (${errors.length} Ajv error${errors.length === 1 ? '' : 's'})\n${lines.join('\n')}`
}
