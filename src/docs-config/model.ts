import { t, type Static } from 'elysia'
import { DocsConfigSchema } from './schema'

/** One problem in a submitted docs.json, located in the text as it was sent. */
export const Issue = t.Object(
  {
    path: t.String({ description: 'JSON Pointer of the offending value, e.g. /colors/primary' }),
    line: t.Integer({ minimum: 1, description: '1-based line in the submitted text' }),
    column: t.Integer({ minimum: 1, description: '1-based column (UTF-16 code units) in the submitted text' }),
    message: t.String({ description: 'the field and the rule it breaks, in plain words' }),
    expected: t.Optional(t.String({ description: 'what the field accepts' })),
    received: t.Optional(t.String({ description: 'what was found' })),
    suggestion: t.Optional(t.String({ description: 'a likely intended key or value ("did you mean")' })),
  },
  { title: 'Issue' },
)
export type Issue = Static<typeof Issue>

/** The outcome of validating a docs.json text. */
export const ValidationResult = t.Object(
  {
    valid: t.Boolean(),
    errors: t.Array(Issue, { description: 'every error, in document order' }),
    warnings: t.Array(Issue, { description: 'every warning (unknown properties), in document order' }),
    config: t.Optional(t.Unsafe<Static<typeof DocsConfigSchema>>({ type: 'object', description: 'the normalised config with defaults filled in; present only when valid' })),
  },
  { title: 'ValidationResult' },
)
export type ValidationResult = Static<typeof ValidationResult>

/** Options of a validation. */
export interface ValidateOptions {
  /** Treat warnings (unknown properties) as errors. */
  strict?: boolean
}
