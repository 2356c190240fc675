import { Kind, TypeRegistry } from '@sinclair/typebox'
import { t } from 'elysia'
import { storable } from '../db/storable-text'

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const int64Message = (field: string) => `${field} must be an integer from ${INT64_MIN} to ${INT64_MAX}`

const inRange = (value: bigint) => value >= INT64_MIN && value <= INT64_MAX

// A JSON number arrives as `number` when exact, as `bigint` beyond 2^53 (see parseJsonLossless).
TypeRegistry.Set('Int64', (_schema, value) =>
  typeof value === 'bigint' ? inRange(value) : typeof value === 'number' && Number.isSafeInteger(value),
)
// Path segments are strings; only canonical decimal integers are ids ("007" and "+7" are not).
const INT64_DECIMAL = /^(0|-?[1-9][0-9]{0,18})$/
TypeRegistry.Set(
  'Int64String',
  (_schema, value) => typeof value === 'string' && INT64_DECIMAL.test(value) && inRange(BigInt(value)),
)

/**
 * An int64 in a JSON body: validated exactly (no rounding above 2^53) and documented
 * in OpenAPI as `integer/int64`. Pair with a lossless body parser.
 */
export const Int64 = (field: string, options: { description?: string } = {}) =>
  t.Unsafe<number | bigint>({
    [Kind]: 'Int64',
    type: 'integer',
    format: 'int64',
    error: int64Message(field),
    ...options,
  })

/**
 * An int64 in a path segment, kept as its decimal string until the service turns it into a bigint.
 * Documented as a string with a pattern: a generated client would type an `integer` path
 * parameter as a JavaScript number, which rounds above 2^53 and names the wrong plant.
 */
export const Int64String = (field: string, options: { description?: string } = {}) =>
  t.Unsafe<string>({
    [Kind]: 'Int64String',
    type: 'string',
    pattern: INT64_DECIMAL.source,
    error: int64Message(field),
    ...options,
    description: `${options.description ?? field} (a 64-bit integer in decimal; a string, because a JavaScript number rounds above 2^53)`,
  })

// A cursor is a row's position: digits that fit an int64 (a longer one would fail in the database).
TypeRegistry.Set(
  'CursorString',
  (_schema, value) => typeof value === 'string' && /^\d{1,19}$/.test(value) && BigInt(value) <= INT64_MAX,
)

/** An opaque pagination cursor: a non-negative int64 in decimal, as the service hands it out. */
export const CursorString = (options: { description?: string; error: string }) =>
  t.Unsafe<string>({ [Kind]: 'CursorString', type: 'string', pattern: '^[0-9]{1,19}$', ...options })

/** Code points, not UTF-16 units: an emoji is one character, as a person counts it. */
export const characterCount = (text: string) => [...text].length

TypeRegistry.Set('StoredText', (schema: { minLength?: number; maxLength?: number; trimmed?: boolean }, value) => {
  if (typeof value !== 'string' || !storable(value)) return false
  const length = characterCount(schema.trimmed ? value.trim() : value)
  return length >= (schema.minLength ?? 0) && length <= (schema.maxLength ?? Infinity)
})

/**
 * A string stored in a text column: its length counted in characters (after trimming, with
 * `trimmed`), and nothing PostgreSQL cannot store (NUL, lone surrogates; see text.ts).
 */
export const StoredText = (options: {
  minLength?: number
  maxLength: number
  trimmed?: boolean
  description?: string
  error: string
}) => {
  const { trimmed, ...documented } = options
  // `trimmed` is read by the check only; the OpenAPI document shows a plain bounded string.
  return t.Unsafe<string>({ [Kind]: 'StoredText', type: 'string', ...documented, ...(trimmed ? { trimmed } : {}) })
}

// Numbers pass too: Elysia fills in the schema's `default` as a number.
TypeRegistry.Set('IntegerString', (schema: { minimum: number; maximum: number }, value) => {
  if (typeof value === 'string' ? !/^-?\d{1,10}$/.test(value) : !Number.isInteger(value)) return false
  const n = Number(value)
  return n >= schema.minimum && n <= schema.maximum
})

/**
 * A bounded integer in a query string. Kept as text until the handler reads it, and
 * documented as a plain `integer` (Elysia's own coercion would document `string | integer`).
 */
export const IntegerString = (options: {
  minimum: number
  maximum: number
  default?: number
  format?: 'int32'
  description?: string
  error: string
}) => t.Unsafe<string | number>({ [Kind]: 'IntegerString', type: 'integer', ...options })
