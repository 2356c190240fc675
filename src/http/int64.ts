import { Kind, TypeRegistry } from '@sinclair/typebox'
import { t } from 'elysia'

export const INT64_MIN = -(2n ** 63n)
export const INT64_MAX = 2n ** 63n - 1n
const int64Message = (field: string) => `${field} must be an integer from ${INT64_MIN} to ${INT64_MAX}`

const inRange = (value: bigint) => value >= INT64_MIN && value <= INT64_MAX

// A JSON number arrives as `number` when exact, as `bigint` beyond 2^53 (see parseJsonLossless).
TypeRegistry.Set('Int64', (_schema, value) =>
  typeof value === 'bigint' ? inRange(value) : typeof value === 'number' && Number.isSafeInteger(value),
)
// Path segments are strings; only canonical decimal integers are ids ("007" and "+7" are not).
TypeRegistry.Set('Int64String', (_schema, value) => typeof value === 'string' && /^(0|-?[1-9]\d{0,18})$/.test(value) && inRange(BigInt(value)))

/**
 * An int64 in a JSON body: validated exactly (no rounding above 2^53) and documented
 * in OpenAPI as `integer/int64`. Pair with a lossless body parser.
 */
export const Int64 = (field: string, options: { description?: string } = {}) =>
  t.Unsafe<number | bigint>({ [Kind]: 'Int64', type: 'integer', format: 'int64', error: int64Message(field), ...options })

/** An int64 in a path segment, kept as its decimal string until the service turns it into a bigint. */
export const Int64String = (field: string, options: { description?: string } = {}) =>
  t.Unsafe<string>({ [Kind]: 'Int64String', type: 'integer', format: 'int64', error: int64Message(field), ...options })

/** Code points, not UTF-16 units: an emoji is one character, as a person counts it. */
export const characterCount = (text: string) => [...text].length

TypeRegistry.Set('TrimmedText', (schema: { minLength?: number; maxLength?: number }, value) => {
  if (typeof value !== 'string') return false
  const length = characterCount(value.trim())
  return length >= (schema.minLength ?? 0) && length <= (schema.maxLength ?? Infinity)
})

/** A string whose length, counted in characters after trimming, lies within bounds. */
export const TrimmedText = (options: { minLength?: number; maxLength: number; description?: string; error: string }) =>
  t.Unsafe<string>({ [Kind]: 'TrimmedText', type: 'string', ...options })

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
export const IntegerString = (options: { minimum: number; maximum: number; default?: number; format?: 'int32'; description?: string; error: string }) =>
  t.Unsafe<string | number>({ [Kind]: 'IntegerString', type: 'integer', ...options })
