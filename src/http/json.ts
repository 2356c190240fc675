import { HttpError } from './errors'

const MAX_DEPTH = 128

/**
 * Parses JSON without losing integer precision: an integer literal beyond
 * Number.MAX_SAFE_INTEGER becomes a `bigint` (JSON.parse would silently round it, and
 * int64 ids must survive exactly). Every other number is a plain `number`.
 * Malformed input throws a 400 HttpError that says where: line, column and what was expected.
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
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const)
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
      if (this.text[this.at] !== '"') this.fail(`unexpected ${this.describe()}; expected a property name in double quotes`)
      const key = this.string()
      this.skipSpace()
      if (this.text[this.at] !== ':') this.fail(`unexpected ${this.describe()}; expected ':' after property name "${key}"`)
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
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.at, this.at + 400))
    if (!match) return this.fail(`invalid number starting with ${this.describe()}`)
    this.at += match[0].length
    const literal = match[0]
    const value = Number(literal)
    if (!match[2] && !match[3] && !Number.isSafeInteger(value)) return BigInt(literal)
    return value
  }

  private skipSpace() {
    while (this.at < this.text.length) {
      const c = this.text.charCodeAt(this.at)
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return
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
