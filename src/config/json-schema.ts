import { type ProviderKinds, REQUIRED_UNLESS } from './chat'
import { configFileSchema } from './file-schema'

type JsonObject = Record<string, unknown>

/**
 * The JSON Schema (draft-07) of trellis.yaml for editors: `# yaml-language-server: $schema=…` gives completion,
 * hover text (each setting's description names its variable) and the errors a schema can show. Generated from the
 * schema the server validates with; a kind's settings are refused on another kind here too (`if`/`then`). What a
 * schema cannot say (a URL's scheme, a model's provider existing, `${VAR}` being set) only the server checks.
 */
export function configJsonSchema(kinds: ProviderKinds): JsonObject {
  const root = plain(JSON.parse(JSON.stringify(configFileSchema(kinds)))) as JsonObject
  const providers = (root.properties as JsonObject).providers as JsonObject
  const provider = providers.additionalProperties as JsonObject
  const kindNames = Object.keys(kinds)
  delete provider[REQUIRED_UNLESS]
  provider.allOf = kindNames.map((name, index) => {
    const foreign = kindNames
      .filter((other) => other !== name)
      .flatMap((other) => Object.keys(kinds[other]!.settings))
      .filter((key) => !(key in kinds[name]!.settings))
    // Without `kind`, a provider is of the first kind: only the others must say so.
    const when: JsonObject = { properties: { kind: { const: name } } }
    if (index > 0) when.required = ['kind']
    const then: JsonObject = { properties: Object.fromEntries(foreign.map((key) => [key, false])) }
    // A kind that wraps another provider (record, replay) has no URL of its own; an offline kind (script) none at
    // all; every other kind needs one.
    if (kinds[name]!.withoutBaseUrl) (then.properties as JsonObject).baseUrl = false
    else if (!kinds[name]!.offline) then.required = ['baseUrl']
    return { if: when, then }
  })
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'trellis.yaml',
    description:
      'The configuration file of Trellis. Every setting is optional; an environment variable that is set wins over ' +
      'the file. Text values may hold ${VARIABLE}, read from the environment ($${ for a literal ${).',
    ...root,
  }
}

/** The schema as served and committed (schemas/trellis.schema.json). */
export const configSchemaText = (kinds: ProviderKinds) => `${JSON.stringify(configJsonSchema(kinds), null, 2)}\n`

/** A TypeBox record (`patternProperties: {"^(.*)$": …}`) as the `additionalProperties` editors read best. */
export function plain(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(plain)
  if (typeof node !== 'object' || node === null) return node
  const copy: JsonObject = {}
  for (const [key, value] of Object.entries(node)) copy[key] = plain(value)
  const patterns = copy.patternProperties as JsonObject | undefined
  if (patterns && Object.keys(patterns).length === 1 && '^(.*)$' in patterns) {
    copy.additionalProperties = patterns['^(.*)$']
    delete copy.patternProperties
  }
  return copy
}
