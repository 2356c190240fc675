import type { TSchema } from 'elysia'
import type { TypeCheck } from '@sinclair/typebox/compiler'
import { DOCS_CONFIG_CHECK, DocsConfigSchema } from '../../docs-format/docs-json'
import { CURRENT_DOCS_CONFIG_CHECK, CurrentDocsConfigSchema, isCurrentShape } from '../../docs-format/current-shape'
import { checkCrossFieldRules } from '../rules'
import { checkCurrentShapeRules } from '../current-rules'
import type { Finding } from './finding'

/** One docs.json shape: its schema, the schema compiled, and the rules beyond the schema's types. */
export interface Shape {
  name: 'spec' | 'current'
  schema: TSchema
  check: TypeCheck<TSchema>
  rules: (value: Record<string, unknown>, findings: Finding[]) => void
  /** What the root must be, for the message when it is not an object. */
  expected: string
}

const SPEC: Shape = {
  name: 'spec',
  schema: DocsConfigSchema,
  check: DOCS_CONFIG_CHECK,
  rules: checkCrossFieldRules,
  expected: 'a JSON object with name and navigation',
}

const CURRENT: Shape = {
  name: 'current',
  schema: CurrentDocsConfigSchema,
  check: CURRENT_DOCS_CONFIG_CHECK,
  rules: checkCurrentShapeRules,
  expected: 'a JSON object with theme, name, colors and navigation',
}

/**
 * The shape a parsed docs.json is written in, chosen as Mintlify chooses: a `theme` key or an object
 * `navigation` is the current shape; anything else (an array navigation, the mint.json of old) the spec's.
 */
export function shapeOf(value: unknown): Shape {
  return isCurrentShape(value) ? CURRENT : SPEC
}
