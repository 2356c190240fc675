import { HttpError } from '../http/errors'
import { isWhitespace, MAX_DEPTH } from './grammar'

/** An int64 has 20 characters; a longer literal is either a mistake or an attempt at slow BigInt work. */
const MAX_NUMBER_LENGTH = 400

/**
 * Parses JSON without losing integer precision: an integer literal beyond
 * Number.MAX_SAFE_INTEGER becomes a `bigint` (JSON.parse would silently round it, and
 * int64 ids must survive exactly). Every other number is a plain `number`.
 * Malformed input throws a 400 HttpError that says where: line, column and what was expected; so
 * does a property name given twice in one object, and a number that would be read as another.
 */
export function parseJsonLossless(text: string): unknown {
  return new LosslessParser(text).parseDocument()
}

class LosslessParser {
  private at = 0
  constructor(private readonly text: string) {}

  parseDocument(): unknown {
    this.skipSpace()
    if (this.at >= this.text.length) this.fail('the body is empty; expected a JSON value')
    const value = this.value(0)
    this.skipSpace()
    if (this.at < this.text.length) this.fail(`unexpected ${this.describe()} after the JSON value`)
    return value
  }

  private value(depth: number): unknown {
    if (depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH} levels`)
    const c = this.text[this.at]
    if (c === '{') return this.object(depth)
    if (c === '[') return this.array(depth)
    if (c === '"') return this.string()
    if (c === '-' || (c >= '0' && c <= '9')) return this.number()
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const)
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length
        return value
      }
    return this.fail(`unexpected ${this.describe()}; expected a JSON value`)
  }

  private object(depth: number): Record<string, unknown> {
    const result: Record<string, unknown> = Object.create(null)
    this.at++
    this.skipSpace()
    if (this.text[this.at] === '}') {
      this.at++
      return { ...result }
    }
    for (;;) {
      this.skipSpace()
      if (this.text[this.at] !== '"')
        this.fail(`unexpected ${this.describe()}; expected a property name in double quotes`)
      const keyAt = this.at
      const key = this.string()
      // JSON.parse keeps the last of two equal keys silently; which one a server reads is a classic
      // source of disagreement between a proxy that checks a body and the service that uses it.
      if (Object.hasOwn(result, key)) {
        this.at = keyAt
        this.fail(`the property name ${JSON.stringify(key)} appears twice in one object`)
      }
      this.skipSpace()
      if (this.text[this.at] !== ':')
        this.fail(`unexpected ${this.describe()}; expected ':' after property name "${key}"`)
      this.at++
      this.skipSpace()
      result[key] = this.value(depth + 1)
      this.skipSpace()
      const next = this.text[this.at]
      if (next === ',') {
        this.at++
        continue
      }
      if (next === '}') {
        this.at++
        return { ...result }
      }
      this.fail(`unexpected ${this.describe()}; expected ',' or '}' in object`)
    }
  }

  private array(depth: number): unknown[] {
    const result: unknown[] = []
    this.at++
    this.skipSpace()
    if (this.text[this.at] === ']') {
      this.at++
      return result
    }
    for (;;) {
      this.skipSpace()
      result.push(this.value(depth + 1))
      this.skipSpace()
      const next = this.text[this.at]
      if (next === ',') {
        this.at++
        continue
      }
      if (next === ']') {
        this.at++
        return result
      }
      this.fail(`unexpected ${this.describe()}; expected ',' or ']' in array`)
    }
  }

  private string(): string {
    const start = this.at
    const end = this.stringEnd(start)
    const raw = this.text.slice(start, end + 1)
    this.at = end + 1
    try {
      return JSON.parse(raw) as string
    } catch {
      this.at = start
      return this.fail('invalid string: bad escape or raw control character')
    }
  }

  private stringEnd(start: number): number {
    for (let i = start + 1; i < this.text.length; i++) {
      const c = this.text[i]
      if (c === '\\') i++
      else if (c === '"') return i
    }
    this.at = start
    return this.fail('unterminated string')
  }

  private number(): number | bigint {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(
      this.text.slice(this.at, this.at + MAX_NUMBER_LENGTH + 1),
    )
    if (!match) return this.fail(`invalid number starting with ${this.describe()}`)
    if (match[0].length > MAX_NUMBER_LENGTH) return this.fail(`a number longer than ${MAX_NUMBER_LENGTH} characters`)
    const literal = match[0]
    const value = Number(literal)
    if (!match[2] && !match[3]) {
      this.at += literal.length
      return Number.isSafeInteger(value) ? value : BigInt(literal)
    }
    // A fraction or exponent that rounds to an integer (4503599627370496.5, 1e-400) would pass an
    // integer field as a number it is not: refused, where an integer field could be fooled.
    if (Number.isInteger(value) && misread(literal, value)) {
      return this.fail(
        `the number ${literal.length > 40 ? `${literal.slice(0, 40)}…` : literal} cannot be carried exactly; write integers without a fraction or exponent`,
      )
    }
    this.at += literal.length
    return value
  }

  private skipSpace() {
    while (this.at < this.text.length) {
      const c = this.text.charCodeAt(this.at)
      if (!isWhitespace(c)) return
      this.at++
    }
  }

  private describe(): string {
    if (this.at >= this.text.length) return 'end of input'
    return `character ${JSON.stringify(this.text[this.at])}`
  }

  private fail(reason: string): never {
    const before = this.text.slice(0, this.at)
    const line = before.split('\n').length
    const column = this.at - before.lastIndexOf('\n')
    throw new HttpError(400, `malformed JSON at line ${line}, column ${column}: ${reason}`)
  }
}

/**
 * Whether the decimal `literal` (with a fraction or exponent), which JavaScript reads as the
 * integer `value`, says something else within int64's range: a fraction lost (1e-400,
 * 4503599627370496.5) or an integer rounded (9007199254740993.0). Beyond int64 (1e300) a number
 * is no id anyway, and stays as read.
 */
function misread(literal: string, value: number): boolean {
  const [, sign, whole, fraction = '', exponent = '0'] = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal)!
  const digits = BigInt(whole + fraction)
  if (digits === 0n) return false
  // literal = ±digits × 10^-scale
  const scale = fraction.length - Number(exponent)
  if (scale > MAX_NUMBER_LENGTH) return true
  if (scale < -MAX_NUMBER_LENGTH || Math.abs(value) >= 2 ** 63) return false
  const divisor = 10n ** BigInt(Math.max(0, scale))
  if (digits % divisor !== 0n) return true
  const exact = (digits / divisor) * 10n ** BigInt(Math.max(0, -scale))
  return (sign ? -exact : exact) !== BigInt(value)
}
