import { DEFAULT_MAX_RESPONSE_BYTES } from '../../../config/chat'
import { utf8Length } from '../../../utf8'

/*
 * Example values for JSON Schemas: how the echo provider fills tool arguments and
 * `json_schema` answers with something that validates, without a language model.
 */

/**
 * Thrown by {@link exampleFor} when the example's JSON would pass its byte budget. `minItems`
 * and `minLength` are followed, and nested arrays multiply (a 290-byte schema once made 56 MB),
 * so the size is counted while the example is made, before anything that large is allocated.
 */
export class ExampleTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`an example of this schema would be larger than ${maxBytes} bytes`)
    this.name = 'ExampleTooLarge'
  }
}

/**
 * A value valid for a JSON Schema, for the subset tools use: `const`, `enum` (first value),
 * `anyOf`/`oneOf`/`allOf` (first branch), objects (every listed property), arrays
 * (`minItems` items, at least one unless `maxItems` is 0), strings (the user text, padded
 * or cut to `minLength`/`maxLength`; fixed values for common `format`s), numbers (0 moved
 * into the bounds), booleans (`true`) and `null`. `pattern` and `$ref` are not honoured.
 *
 * Its JSON is at most `maxBytes` long, or {@link ExampleTooLarge} is thrown. The items of an
 * array are one shared value, so the work is proportional to the schema, not to the example.
 */
export function exampleFor(schema: unknown, text: string, maxBytes = DEFAULT_MAX_RESPONSE_BYTES): unknown {
  return new ExampleBuilder(text, maxBytes).build(schema, 0).value
}

/** A value and the length of its JSON in UTF-8 bytes. */
type Sized = { value: unknown; bytes: number }

class ExampleBuilder {
  readonly #text: string
  readonly #maxBytes: number
  #textBytes: number | undefined

  constructor(text: string, maxBytes: number) {
    this.#text = text
    this.#maxBytes = maxBytes
  }

  build(schema: unknown, depth: number): Sized {
    if (typeof schema !== 'object' || schema === null || depth > 16) return this.#string(this.#text)
    const s = schema as Record<string, unknown>
    if ('const' in s) return this.#json(s.const)
    if (Array.isArray(s.enum) && s.enum.length) return this.#json(s.enum[0])
    for (const key of ['anyOf', 'oneOf', 'allOf']) {
      const branches = s[key]
      if (Array.isArray(branches) && branches.length) return this.build(branches[0], depth + 1)
    }
    const type = Array.isArray(s.type) ? (s.type.find((name) => name !== 'null') ?? 'null') : s.type
    if (type === 'object' || (type === undefined && typeof s.properties === 'object')) {
      const properties = (s.properties ?? {}) as Record<string, unknown>
      const members: [string, unknown][] = []
      // `{`, then each member with its `:` and the `,` or `}` after it.
      let bytes = 1
      for (const [key, property] of Object.entries(properties)) {
        const member = this.build(property, depth + 1)
        bytes = this.#within(bytes + utf8Length(JSON.stringify(key)) + 2 + member.bytes)
        members.push([key, member.value])
      }
      return { value: Object.fromEntries(members), bytes: Math.max(bytes, 2) }
    }
    if (type === 'array') {
      const count = typeof s.minItems === 'number' ? Math.max(0, Math.floor(s.minItems)) : s.maxItems === 0 ? 0 : 1
      if (count === 0) return { value: [], bytes: 2 }
      // At least one byte per item, checked before the item is made: minItems may be huge.
      this.#within(1 + 2 * count)
      const item = this.build(s.items, depth + 1)
      const bytes = this.#within(1 + count * (item.bytes + 1))
      return { value: new Array<unknown>(count).fill(item.value), bytes }
    }
    if (type === 'integer' || type === 'number') return this.#json(numberWithin(s, type === 'integer'))
    if (type === 'boolean') return { value: true, bytes: 4 }
    if (type === 'null') return { value: null, bytes: 4 }
    return this.#stringFor(s)
  }

  #stringFor(schema: Record<string, unknown>): Sized {
    if (typeof schema.format === 'string' && FORMAT_EXAMPLES[schema.format])
      return this.#json(FORMAT_EXAMPLES[schema.format]!)
    let value = this.#text
    // JSON Schema counts lengths in code points: cutting by UTF-16 units could split a surrogate pair.
    if (typeof schema.minLength === 'number' && value.length < schema.minLength * 2) {
      const short = schema.minLength - codePoints(value)
      if (short > 0) {
        // Padding is ASCII: checked before the string is made.
        this.#within(utf8Length(value) + short + 2)
        value += '.'.repeat(short)
      }
    }
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength)
      value = value.slice(0, unitsOf(value, schema.maxLength))
    return this.#string(value)
  }

  #string(value: string): Sized {
    if (value !== this.#text) return this.#json(value)
    // The user text is the usual value of every string: sized once.
    this.#textBytes ??= this.#within(utf8Length(JSON.stringify(value)))
    return { value, bytes: this.#textBytes }
  }

  #json(value: unknown): Sized {
    return { value, bytes: this.#within(utf8Length(JSON.stringify(value) ?? 'null')) }
  }

  #within(bytes: number): number {
    if (bytes > this.#maxBytes) throw new ExampleTooLarge(this.#maxBytes)
    return bytes
  }
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

function numberWithin(schema: Record<string, unknown>, integer: boolean): number {
  let value = 0
  const step = integer ? 1 : 0.5
  if (typeof schema.minimum === 'number' && value < schema.minimum)
    value = integer ? Math.ceil(schema.minimum) : schema.minimum
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
    value = (integer ? Math.floor(schema.exclusiveMinimum) : schema.exclusiveMinimum) + step
  if (typeof schema.maximum === 'number' && value > schema.maximum)
    value = integer ? Math.floor(schema.maximum) : schema.maximum
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum)
    value = (integer ? Math.ceil(schema.exclusiveMaximum) : schema.exclusiveMaximum) - step
  return value
}

/** Code points in `text`: a surrogate pair is one. */
function codePoints(text: string): number {
  let count = 0
  for (let i = 0; i < text.length; i++, count++) if (isHighSurrogateAt(text, i)) i++
  return count
}

/** UTF-16 units that the first `count` code points of `text` take. */
function unitsOf(text: string, count: number): number {
  let i = 0
  for (let taken = 0; taken < count && i < text.length; taken++) i += isHighSurrogateAt(text, i) ? 2 : 1
  return i
}

const isHighSurrogateAt = (text: string, i: number) => {
  const unit = text.charCodeAt(i)
  return unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00
}
