/*
 * Example values for JSON Schemas: how the echo provider fills tool arguments and
 * `json_schema` answers with something that validates, without a language model.
 */

/**
 * A value valid for a JSON Schema, for the subset tools use: `const`, `enum` (first value),
 * `anyOf`/`oneOf`/`allOf` (first branch), objects (every listed property), arrays
 * (`minItems` items, at least one unless `maxItems` is 0), strings (the user text, padded
 * or cut to `minLength`/`maxLength`; fixed values for common `format`s), numbers (0 moved
 * into the bounds), booleans (`true`) and `null`. `pattern` and `$ref` are not honoured.
 */
export function exampleFor(schema: unknown, text: string, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 16) return text
  const s = schema as Record<string, unknown>
  if ('const' in s) return s.const
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0]
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const branches = s[key]
    if (Array.isArray(branches) && branches.length) return exampleFor(branches[0], text, depth + 1)
  }
  const type = Array.isArray(s.type) ? (s.type.find((name) => name !== 'null') ?? 'null') : s.type
  if (type === 'object' || (type === undefined && typeof s.properties === 'object')) {
    const properties = (s.properties ?? {}) as Record<string, unknown>
    return Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, exampleFor(value, text, depth + 1)]))
  }
  if (type === 'array') {
    const count = typeof s.minItems === 'number' ? s.minItems : s.maxItems === 0 ? 0 : 1
    return Array.from({ length: count }, () => exampleFor(s.items, text, depth + 1))
  }
  if (type === 'integer' || type === 'number') return numberWithin(s, type === 'integer')
  if (type === 'boolean') return true
  if (type === 'null') return null
  return stringFor(s, text)
}

const FORMAT_EXAMPLES: Record<string, string> = {
  'date-time': '1970-01-01T00:00:00Z',
  date: '1970-01-01',
  time: '00:00:00Z',
  email: 'echo@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
}

function stringFor(schema: Record<string, unknown>, text: string): string {
  if (typeof schema.format === 'string' && FORMAT_EXAMPLES[schema.format]) return FORMAT_EXAMPLES[schema.format]!
  let value = text
  if (typeof schema.minLength === 'number' && value.length < schema.minLength) value = value.padEnd(schema.minLength, '.')
  if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) value = value.slice(0, schema.maxLength)
  return value
}

function numberWithin(schema: Record<string, unknown>, integer: boolean): number {
  let value = 0
  const step = integer ? 1 : 0.5
  if (typeof schema.minimum === 'number' && value < schema.minimum) value = integer ? Math.ceil(schema.minimum) : schema.minimum
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) value = (integer ? Math.floor(schema.exclusiveMinimum) : schema.exclusiveMinimum) + step
  if (typeof schema.maximum === 'number' && value > schema.maximum) value = integer ? Math.floor(schema.maximum) : schema.maximum
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) value = (integer ? Math.ceil(schema.exclusiveMaximum) : schema.exclusiveMaximum) - step
  return value
}
