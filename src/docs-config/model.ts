import { Integer } from '../http/integer'
import { t, type Static } from 'elysia'
import { IntegerString } from '../http/int64'
import type { DocsConfig } from '../docs-format/docs-json'
import { ErrorBody } from '../http/json-errors'

/** One problem in a submitted docs.json, located in the text as it was sent. */
export const Issue = t.Object(
  {
    path: t.String({ description: 'JSON Pointer of the offending value, e.g. /colors/primary' }),
    line: Integer({ minimum: 1, description: '1-based line in the submitted text' }),
    column: Integer({ minimum: 1, description: '1-based column (UTF-16 code units) in the submitted text' }),
    message: t.String({ description: 'the field and the rule it breaks, in plain words' }),
    expected: t.Optional(t.String({ description: 'what the field accepts' })),
    received: t.Optional(t.String({ description: 'what was found' })),
    suggestion: t.Optional(t.String({ description: 'a likely intended key or value ("did you mean")' })),
  },
  { title: 'Issue' },
)
export type Issue = Static<typeof Issue>

/**
 * The normalised docs.json as served. Described, not spelt out, in the OpenAPI document: its full JSON Schema
 * (recursive navigation groups included) is served at /docs.json/schema.
 */
export const DocsConfigBody = t.Object(
  {},
  {
    additionalProperties: true,
    description: 'The normalised docs.json (defaults filled in). Its JSON Schema is served at GET /docs.json/schema.',
  },
)

/** The outcome of validating a docs.json text. */
export const ValidationResult = t.Object(
  {
    valid: t.Boolean(),
    errors: t.Array(Issue, { description: 'every error, in document order' }),
    warnings: t.Array(Issue, { description: 'every warning (unknown properties), in document order' }),
    config: t.Optional(DocsConfigBody),
  },
  { title: 'ValidationResult' },
)
/** `config`, present only when valid, is typed by the docs.json schema itself. */
export type ValidationResult = Omit<Static<typeof ValidationResult>, 'config'> & { config?: DocsConfig }

/** Options of a validation. */
export interface ValidateOptions {
  /** Treat warnings (unknown properties) as errors. */
  strict?: boolean
}

/** The docs.json error contract (the plant store's), with every validation issue when there are any. */
/** The plant store's error body, plus every validation error of a refused docs.json. */
export const DocsErrorBody = t.Composite(
  [
    ErrorBody,
    t.Object({
      errors: t.Optional(t.Array(Issue, { description: 'every validation error, in document order (400 only)' })),
    }),
  ],
  { title: 'DocsError' },
)

/** `?strict=true` turns warnings (unknown properties) into errors. */
export const StrictQuery = t.Object({
  strict: t.Optional(
    t.Union([t.Literal('true'), t.Literal('false')], {
      description: 'treat unknown properties as errors',
      error: 'strict must be true or false',
    }),
  ),
})

export const REVISIONS_PAGE_DEFAULT = 100
export const REVISIONS_PAGE_MAX = 1000

/** One page of the revision list: a long-lived site keeps thousands, and one request must not read them all. */
export const RevisionListQuery = t.Object({
  limit: t.Optional(
    IntegerString({
      format: 'int32',
      minimum: 1,
      maximum: REVISIONS_PAGE_MAX,
      default: REVISIONS_PAGE_DEFAULT,
      description: `The most revisions to return (1 to ${REVISIONS_PAGE_MAX}, default ${REVISIONS_PAGE_DEFAULT})`,
      error: `limit must be an integer from 1 to ${REVISIONS_PAGE_MAX}`,
    }),
  ),
  after: t.Optional(
    IntegerString({
      format: 'int32',
      minimum: 0,
      maximum: 2_147_483_647,
      description: 'Revisions after this number; the `Link: rel="next"` header of the previous page carries it',
      error: 'after must be a revision number',
    }),
  ),
})

export const RevisionParams = t.Object({
  n: t.String({ pattern: '^[0-9]{1,9}$', description: 'revision number, from 1' }),
})

const revisionFields = {
  revision: Integer({ minimum: 1, description: 'revision number, 1 for the first stored docs.json' }),
  createdAt: t.String({ format: 'date-time', description: 'when it was stored' }),
  author: t.String({ description: 'owner of the token that stored it' }),
  size: Integer({ description: 'size of the submitted text in bytes' }),
  etag: t.String({ description: 'its entity tag, for If-Match' }),
}

export const RevisionSummary = t.Object(revisionFields, { title: 'DocsRevisionSummary' })
export type RevisionSummary = Static<typeof RevisionSummary>

export const RevisionList = t.Object({ revisions: t.Array(RevisionSummary, { description: 'oldest first' }) })

export const Revision = t.Object(
  {
    ...revisionFields,
    source: t.String({ description: 'the text exactly as submitted' }),
    config: DocsConfigBody,
  },
  { title: 'DocsRevision' },
)

export const StoredResult = t.Object(
  {
    ...revisionFields,
    config: DocsConfigBody,
    warnings: t.Array(Issue, { description: 'warnings of the accepted text (unknown properties)' }),
  },
  { title: 'DocsStored' },
)
