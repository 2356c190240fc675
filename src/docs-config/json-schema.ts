import type { TSchema } from 'elysia'
import { DocsConfigSchema } from '../docs-format/docs-json'
import { CurrentDocsConfigSchema } from '../docs-format/current-shape'

type JsonObject = Record<string, unknown>

/**
 * How an editor tells the shapes apart, as the validator does (see shapes.ts): a `theme` key or an object
 * `navigation` is the current shape.
 */
const CURRENT_SHAPE_TEST = {
  anyOf: [{ required: ['theme'] }, { required: ['navigation'], properties: { navigation: { type: 'object' } } }],
}

/**
 * The docs.json JSON Schema for editors (draft-07), generated from the TypeBox schemas of both shapes:
 * `if` the file is in the current shape, `then` that schema applies, `else` the spec's. Descriptions,
 * defaults, enums and patterns come along. TypeBox writes a recursive schema as an embedded `$id` with a
 * bare `$ref`; editors resolve `#/definitions/…` more reliably, so it is moved there.
 */
function buildDocsJsonSchema(): JsonObject {
  const spec = hoisted(DocsConfigSchema, '#/definitions/')
  const current = hoisted(CurrentDocsConfigSchema, '#/definitions/')
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'docs.json',
    description: 'A Mintlify docs.json in either shape: the current one (theme, object navigation) or the spec’s.',
    if: CURRENT_SHAPE_TEST,
    then: current.root,
    else: spec.root,
    definitions: { ...spec.definitions, ...current.definitions },
  }
}

/**
 * The same schemas as OpenAPI components: `DocsJson` (either shape), `DocsJsonSpec`, `DocsJsonCurrent` and
 * the definitions they refer to, with references into `#/components/schemas/`.
 */
export function docsJsonComponents(): Record<string, JsonObject> {
  const spec = hoisted(DocsConfigSchema, '#/components/schemas/')
  const current = hoisted(CurrentDocsConfigSchema, '#/components/schemas/')
  return {
    DocsJson: {
      description: 'a docs.json in the current shape or the spec’s',
      anyOf: [{ $ref: '#/components/schemas/DocsJsonCurrent' }, { $ref: '#/components/schemas/DocsJsonSpec' }],
    },
    DocsJsonSpec: spec.root,
    DocsJsonCurrent: current.root,
    ...(spec.definitions as Record<string, JsonObject>),
    ...(current.definitions as Record<string, JsonObject>),
  }
}

function hoisted(source: TSchema, refBase: string): { root: JsonObject; definitions: JsonObject } {
  const schema = JSON.parse(JSON.stringify(source)) as JsonObject
  const definitions: JsonObject = {}
  const hoist = (node: unknown, isRoot: boolean): unknown => {
    if (Array.isArray(node)) return node.map((item) => hoist(item, false))
    if (typeof node !== 'object' || node === null) return node
    const object = node as JsonObject
    const copy: JsonObject = {}
    for (const [key, value] of Object.entries(object)) copy[key] = hoist(value, false)
    if (typeof copy.$ref === 'string' && !copy.$ref.startsWith('#')) copy.$ref = `${refBase}${copy.$ref}`
    if (!isRoot && typeof copy.$id === 'string') {
      const { $id, ...definition } = copy
      definitions[$id as string] = definition
      return { $ref: `${refBase}${$id}` }
    }
    return copy
  }
  return { root: hoist(schema, true) as JsonObject, definitions }
}

/** The schema serialised once; it never changes while the process runs. */
export const DOCS_JSON_SCHEMA_TEXT = JSON.stringify(buildDocsJsonSchema(), null, 2)
