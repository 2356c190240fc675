import { DocsConfigSchema } from '../docs-format/docs-json'

type JsonObject = Record<string, unknown>

/**
 * The docs.json JSON Schema for editors (draft-07), generated from the TypeBox schema: descriptions, defaults,
 * enums and the hex pattern come along. TypeBox writes the recursive navigation group as an embedded `$id`
 * with a bare `$ref`; editors resolve `#/definitions/…` more reliably, so it is moved there.
 */
function buildDocsJsonSchema(): JsonObject {
  const { root, definitions } = hoisted('#/definitions/')
  return { $schema: 'http://json-schema.org/draft-07/schema#', ...root, definitions }
}

/**
 * The same schema as OpenAPI components: `DocsJson` and the definitions it refers to, with
 * references into `#/components/schemas/`, so the document types the docs.json routes' bodies.
 */
export function docsJsonComponents(): Record<string, JsonObject> {
  const { root, definitions } = hoisted('#/components/schemas/')
  return { DocsJson: root, ...(definitions as Record<string, JsonObject>) }
}

function hoisted(refBase: string): { root: JsonObject; definitions: JsonObject } {
  const schema = JSON.parse(JSON.stringify(DocsConfigSchema)) as JsonObject
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
