import { plain } from '../../../config/json-schema'
import { Scenario } from './model'

/**
 * The JSON Schema (draft-07) of a scenario file, from the schema the provider validates with: served at
 * `GET /config/scenario-schema` and committed as schemas/scenario.schema.json, so that
 * `# yaml-language-server: $schema=…` at the top of a scenario gives editors completion and hover text. What a schema
 * cannot say (a step doing one thing, a safe regular expression) only the server checks.
 */
export function scenarioSchemaText(): string {
  // The schema's own title ("a scenario") is for messages; editors show this one.
  const { title: _, ...scenario } = plain(JSON.parse(JSON.stringify(Scenario))) as Record<string, unknown>
  const schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Trellis scenario',
    description:
      'The scenario of a script provider (kind: script): rules, the first that matches a request answering it. ' +
      'Text values may hold ${VARIABLE}, read from the environment ($${ for a literal ${).',
    ...scenario,
  }
  return `${JSON.stringify(schema, null, 2)}\n`
}
