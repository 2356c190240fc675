import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/*
 * Validating what Trellis answers against OpenAI's published OpenAPI document
 * (tests/fixtures/openai-openapi/, see SOURCE.md there): `openAISpec().assert('Response', body)`.
 *
 * The document says OpenAPI 3.1 (JSON Schema 2020-12) but keeps constructs Ajv does not read that
 * way, so a copy of its schemas is rewritten before compiling:
 *
 * - 110 leftover OpenAPI 3.0 `nullable: true` become `type: [T, "null"]` (or an anyOf with null);
 * - boolean `exclusiveMinimum`/`exclusiveMaximum` (3.0) become the numeric 2020-12 form;
 * - `$recursiveRef: "#"` (2019-09) becomes a `$ref` to the component it sits in;
 * - every `discriminator` (15 of them on anyOf, which Ajv's own refuses, several with branches whose
 *   `type` is optional or shared) becomes an if/then dispatch on the property's value, so that a
 *   `type` selects its branch and errors come from that branch only; this also removes the real
 *   ambiguity of `input` messages matching two branches of a oneOf.
 *
 * Formats are not checked (`unixtime` is OpenAI's own; what Trellis sends of the others is text it
 * was given). Objects stay open, as the document says. Compiling takes about a second, so it is
 * done once per process and each schema on first use.
 */

const SPEC = join(import.meta.dir, '../fixtures/openai-openapi/openai-openapi.json')
const DOCUMENT_ID = 'https://trellis.invalid/openai-openapi.json'
const REF = '#/components/schemas/'

type Schema = Record<string, any>

const MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']
const ONE_KEYWORDS = ['additionalProperties', 'items', 'not', 'if', 'then', 'else', 'propertyNames', 'contains']
const LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems']

/** Every sub-schema, innermost first, replaced by what `rewrite` returns for it. */
function mapSchema(schema: unknown, rewrite: (schema: Schema) => Schema): unknown {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema
  const out: Schema = { ...schema }
  for (const key of MAP_KEYWORDS)
    if (out[key] && typeof out[key] === 'object')
      out[key] = Object.fromEntries(Object.entries(out[key]).map(([name, sub]) => [name, mapSchema(sub, rewrite)]))
  for (const key of ONE_KEYWORDS) if (out[key] && typeof out[key] === 'object') out[key] = mapSchema(out[key], rewrite)
  for (const key of LIST_KEYWORDS)
    if (Array.isArray(out[key])) out[key] = out[key].map((sub: unknown) => mapSchema(sub, rewrite))
  return rewrite(out)
}

/** A discriminated union's branch: the schema to apply and the discriminator values that select it. */
type Branch = { ref: Schema; values: unknown[] | null; required: boolean }

function rewriteSchemas(all: Schema): Schema {
  const resolve = (schema: Schema) => (schema?.$ref?.startsWith(REF) ? all[schema.$ref.slice(REF.length)] : schema)
  const propertyOf = (schema: Schema, name: string, depth = 0): { property?: Schema; required: boolean } => {
    const resolved = resolve(schema)
    let property = resolved?.properties?.[name]
    let required = !!resolved?.required?.includes(name)
    for (const part of resolved?.allOf ?? []) {
      if (depth > 8) break
      const found = propertyOf(part, name, depth + 1)
      property ??= found.property
      required ||= found.required
    }
    return { property, required }
  }
  const valuesOf = (property: Schema | undefined): unknown[] | null => {
    const resolved = property && resolve(property)
    if (!resolved) return null
    if ('const' in resolved) return [resolved.const]
    if (Array.isArray(resolved.enum)) return [...resolved.enum, ...(resolved.nullable ? [null] : [])]
    if (resolved.type === 'null') return [null]
    const alternatives = resolved.anyOf ?? resolved.oneOf
    if (!Array.isArray(alternatives)) return null
    const values: unknown[] = []
    for (const alternative of alternatives) {
      const found = valuesOf(alternative)
      if (!found) return null
      values.push(...found)
    }
    return values
  }
  const branchesOf = (branch: Schema, name: string, seen = new Set<string>()): Branch[] => {
    const resolved = resolve(branch)
    const alternatives = resolved?.oneOf ?? resolved?.anyOf
    // A union nested in a union (InputItem → Item) is flattened into its members.
    if (
      Array.isArray(alternatives) &&
      !resolved.properties &&
      (resolved.discriminator?.propertyName === name ||
        alternatives.every((alternative: Schema) => propertyOf(alternative, name).property))
    ) {
      if (branch.$ref) {
        if (seen.has(branch.$ref)) return []
        seen.add(branch.$ref)
      }
      return alternatives.flatMap((alternative: Schema) => branchesOf(alternative, name, seen))
    }
    const { property, required } = propertyOf(branch, name)
    return [{ ref: branch.$ref ? { $ref: branch.$ref } : branch, values: valuesOf(property), required }]
  }

  const out: Schema = {}
  for (const [component, original] of Object.entries(all)) {
    out[component] = mapSchema(original, (input) => {
      let schema = input
      if ('nullable' in schema) {
        const { nullable, ...rest } = schema
        schema = rest
        if (nullable === true) {
          if (typeof schema.type === 'string' && !schema.$ref && !schema.anyOf && !schema.oneOf && !schema.allOf) {
            schema.type = [schema.type, 'null']
            if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null]
          } else {
            const { description, ...inner } = schema
            schema = { anyOf: [inner, { type: 'null' }], ...(description ? { description } : {}) }
          }
        }
      }
      for (const [exclusive, bound] of [
        ['exclusiveMinimum', 'minimum'],
        ['exclusiveMaximum', 'maximum'],
      ] as const) {
        if (typeof schema[exclusive] !== 'boolean') continue
        if (schema[exclusive] && typeof schema[bound] === 'number') {
          schema[exclusive] = schema[bound]
          delete schema[bound]
        } else delete schema[exclusive]
      }
      delete schema.$recursiveAnchor
      if (schema.$recursiveRef === '#') {
        delete schema.$recursiveRef
        schema.$ref = REF + component
      }
      if (!schema.discriminator) return schema
      const name: string = schema.discriminator.propertyName
      const { discriminator: _discriminator, oneOf, anyOf, ...rest } = schema
      const union = oneOf ?? anyOf
      const branches: Branch[] = Array.isArray(union) ? union.flatMap((branch: Schema) => branchesOf(branch, name)) : []
      // A discriminator that cannot dispatch (one sits on an array) leaves the plain union.
      if (branches.length === 0 || branches.some((branch) => !branch.values))
        return { ...rest, ...(oneOf ? { oneOf } : {}), ...(anyOf ? { anyOf } : {}) }
      const byValue = new Map<string, { value: unknown; refs: Schema[] }>()
      for (const branch of branches)
        for (const value of branch.values!) {
          const key = JSON.stringify(value)
          const entry = byValue.get(key) ?? { value, refs: [] }
          if (!entry.refs.some((ref) => JSON.stringify(ref) === JSON.stringify(branch.ref))) entry.refs.push(branch.ref)
          byValue.set(key, entry)
        }
      const either = (refs: Schema[]) => (refs.length === 1 ? refs[0] : { anyOf: refs })
      const untyped = branches.filter((branch) => !branch.required).map((branch) => branch.ref)
      return {
        ...rest,
        type: 'object',
        if: { required: [name] },
        then: {
          properties: { [name]: { enum: [...byValue.values()].map((entry) => entry.value) } },
          allOf: [...byValue.values()].map((entry) => ({
            if: { properties: { [name]: { const: entry.value } } },
            then: either(entry.refs),
          })),
        },
        else: untyped.length > 0 ? either(untyped) : { required: [name] },
      }
    })
  }
  return out
}

export type OpenAISpec = {
  validate(schema: string, value: unknown): { valid: boolean; message: string }
  /** Throws, saying what is wrong, when `value` is not a valid `schema` (a name under components.schemas). */
  assert(schema: string, value: unknown): void
}

let made: OpenAISpec | undefined

/** The validator, made once per process. */
export function openAISpec(): OpenAISpec {
  if (made) return made
  const document = JSON.parse(readFileSync(SPEC, 'utf8'))
  const schemas = rewriteSchemas(document.components.schemas)
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, discriminator: false })
  ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas } })
  const compiled = new Map<string, ValidateFunction>()
  const compile = (name: string) => {
    let validate = compiled.get(name)
    if (!validate) {
      if (!schemas[name]) throw new Error(`the document has no schema ${name}`)
      validate = ajv.getSchema(`${DOCUMENT_ID}${REF}${name}`)!
      compiled.set(name, validate)
    }
    return validate
  }
  const validate = (name: string, value: unknown) => {
    const check = compile(name)
    const valid = check(value) as boolean
    return { valid, message: valid ? '' : describe(name, check.errors ?? []) }
  }
  made = {
    validate,
    assert(name, value) {
      const result = validate(name, value)
      if (!result.valid) throw new Error(`${result.message}\nvalue: ${JSON.stringify(value).slice(0, 2000)}`)
    },
  }
  return made
}

/** Ajv's errors without the noise of failed `if`s, null arms and unions a deeper error explains. */
function describe(name: string, errors: ErrorObject[]): string {
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
  const lines = (useful.length > 0 ? useful : errors)
    .slice(0, 8)
    .map(
      (error) => `  ${error.instancePath || '(root)'} ${error.message}  [${error.schemaPath.replace(DOCUMENT_ID, '')}]`,
    )
  return `not a valid ${name} (${errors.length} Ajv errors):\n${lines.join('\n')}`
}
