/**
 * A JSON scanner that keeps what `JSON.parse` throws away: where every key and value starts, and which keys
 * appear twice in one object. It also explains syntax errors (trailing comma, missing comma, unquoted key,
 * comment) with the offset of the offending character.
 *
 * It does not build values; the validator uses `JSON.parse` for that and only scans when it has something to
 * report, so the common case stays fast.
 */

import { BACKSLASH, MAX_DEPTH, QUOTE } from './grammar'
import { childrenOf, escapePointerToken } from './pointer'
import type { DuplicateKey, JsonScan, NodePosition } from './positions'
import { type LinesCrossed, skipValueCountingLines } from './skip'

/** Thrown to end a focused scan as soon as every focused node has been recorded. */
const FOCUS_FOUND = Symbol('every focused node found')

class SyntaxFailure {
  constructor(
    readonly offset: number,
    readonly message: string,
  ) {}
}

/** closeOrComma results; negative, so never a character code. */
const CLOSED = -1
const COMMA = -2
/** A backslash or a control character: the string must be read character by character. */
const NEEDS_CAREFUL_READING = /[\\\u0000-\u001f]/
const IDENTIFIER_START = /[A-Za-z_$]/
const WORD = /[A-Za-z0-9_$]+/y
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y

/**
 * Scans `text`, recording positions and duplicate keys, or reports the first syntax error.
 *
 * With `focus` (a set of JSON Pointers, which must include every ancestor of the nodes wanted), only those
 * nodes are recorded and everything else is skipped without building pointers; duplicate keys are then not
 * looked for. Focus is meant for text already known to be valid JSON.
 */
export function scanJson(text: string, focus?: ReadonlySet<string>): JsonScan {
  const scanner = new Scanner(text, focus)
  try {
    scanner.document()
    return { ok: true, positions: scanner.positions, duplicates: scanner.duplicates }
  } catch (failure) {
    if (failure === FOCUS_FOUND) return { ok: true, positions: scanner.positions, duplicates: [] }
    if (failure instanceof SyntaxFailure)
      return { ok: false, error: { offset: failure.offset, message: failure.message } }
    throw failure
  }
}

class Scanner {
  pos = 0
  /** The current line and the offset where it starts; whitespace is the only place a line break can be. */
  private line = 1
  private lineStart = 0
  /** What the last skip of a value crossed (see skip.ts). */
  private readonly crossed: LinesCrossed = { lines: 0, lineStart: 0 }
  private depth = 0
  readonly positions = new Map<string, NodePosition>()
  readonly duplicates: DuplicateKey[] = []
  /** Focused scans: for each focused pointer, the keys (or indices) of its focused children. */
  private readonly wanted: Map<string, Set<string>> | undefined

  constructor(
    private readonly text: string,
    private readonly focus?: ReadonlySet<string>,
  ) {
    // A byte-order mark is not JSON, but editors on Windows write one; tolerate it.
    if (text.charCodeAt(0) === 0xfeff) this.pos = 1
    if (focus !== undefined) this.wanted = childrenOf(focus)
  }

  document(): void {
    this.skipWhitespace()
    if (this.pos >= this.text.length) throw new SyntaxFailure(this.pos, 'the file is empty; expected a JSON object')
    this.value('', -1, 0, 0)
    this.skipWhitespace()
    if (this.pos < this.text.length) {
      this.rejectCommentOrConflict()
      throw new SyntaxFailure(this.pos, `unexpected ${this.describeHere()} after the end of the JSON value`)
    }
  }

  /** Reads the value at `pos`; `keyOffset` is -1 when it is not a property. */
  private value(pointer: string, keyOffset: number, keyLine: number, keyColumn: number): void {
    const start = this.pos
    const line = this.line
    const column = start - this.lineStart + 1
    this.positions.set(
      pointer,
      keyOffset === -1
        ? { value: start, line, column }
        : { value: start, line, column, key: keyOffset, keyLine, keyColumn },
    )
    // Descendants are recorded after their ancestors, so a full count means the focus is complete.
    if (this.focus !== undefined && this.positions.size === this.focus.size) throw FOCUS_FOUND
    const code = this.text.charCodeAt(this.pos)
    if (code === 123) return this.object(pointer)
    if (code === 91) return this.array(pointer)
    if (code === QUOTE) return void this.string()
    if (code === 45 || (code >= 48 && code <= 57)) return this.number()
    this.literalOrFail('a value')
  }

  private object(pointer: string): void {
    this.enter()
    this.pos++
    // Key → the line where it first appeared.
    const seen = new Map<string, number>()
    const wantedKeys = this.wantedChildren(pointer)
    this.skipWhitespace()
    if (this.peek() === 125) {
      this.pos++
      this.depth--
      return
    }
    for (;;) {
      this.skipWhitespace()
      const keyOffset = this.pos
      const keyLine = this.line
      const keyColumn = keyOffset - this.lineStart + 1
      if (this.peek() !== QUOTE) this.failExpectingKey()
      const key = this.string()
      // A focused scan builds pointers only for the keys it wants; everything else is skipped.
      const childPointer =
        wantedKeys === undefined || wantedKeys.has(key) ? `${pointer}/${escapePointerToken(key)}` : undefined
      if (this.focus === undefined) {
        const firstLine = seen.get(key)
        if (firstLine === undefined) seen.set(key, keyLine)
        else
          this.duplicates.push({
            pointer: childPointer as string,
            key,
            offset: keyOffset,
            line: keyLine,
            column: keyColumn,
            firstLine,
          })
      }
      this.skipWhitespace()
      if (this.peek() !== 58) {
        this.rejectCommentOrConflict()
        throw new SyntaxFailure(
          this.pos,
          `expected ":" after the property name "${key}" but found ${this.describeHere()}`,
        )
      }
      this.pos++
      this.skipWhitespace()
      if (childPointer === undefined) this.skipValue()
      else this.value(childPointer, keyOffset, keyLine, keyColumn)
      const next = this.closeOrComma(125, '}')
      if (next === CLOSED) return
      if (next === COMMA) continue
      if (next === QUOTE || next === 39 || IDENTIFIER_START.test(this.text[this.pos] ?? '')) {
        throw new SyntaxFailure(this.pos, 'missing comma between properties; add "," before this property')
      }
      throw new SyntaxFailure(this.pos, `expected "," or "}" after a property value but found ${this.describeHere()}`)
    }
  }

  /**
   * After an object member or array item: consumes the closing bracket (CLOSED) or a comma
   * not followed by the bracket (COMMA; a trailing comma is an error). Otherwise returns the
   * character found, with comments and conflict markers already reported, for the caller's
   * own "missing comma" or "expected" message.
   */
  private closeOrComma(close: number, closer: string): number {
    this.skipWhitespace()
    const next = this.peek()
    if (next === close) {
      this.pos++
      this.depth--
      return CLOSED
    }
    if (next === 44) {
      const comma = this.pos
      this.pos++
      this.skipWhitespace()
      if (this.peek() === close) throw new SyntaxFailure(comma, `trailing comma before "${closer}"; remove this comma`)
      return COMMA
    }
    this.rejectCommentOrConflict()
    return next
  }

  private array(pointer: string): void {
    this.enter()
    this.pos++
    this.skipWhitespace()
    if (this.peek() === 93) {
      this.pos++
      this.depth--
      return
    }
    const wantedIndices = this.wantedChildren(pointer)
    for (let index = 0; ; index++) {
      this.skipWhitespace()
      if (wantedIndices === undefined || wantedIndices.has(String(index))) this.value(`${pointer}/${index}`, -1, 0, 0)
      else this.skipValue()
      const next = this.closeOrComma(93, ']')
      if (next === CLOSED) return
      if (next === COMMA) continue
      if (next === QUOTE || next === 123 || next === 91 || next === 45 || (next >= 48 && next <= 57)) {
        throw new SyntaxFailure(this.pos, 'missing comma between array items; add "," before this item')
      }
      throw new SyntaxFailure(this.pos, `expected "," or "]" after an array item but found ${this.describeHere()}`)
    }
  }

  /** Reads a string starting at the opening quote and returns its decoded content. */
  private string(): string {
    const start = this.pos
    // Most strings have no escapes and no control characters: find the closing quote natively.
    const close = this.text.indexOf('"', start + 1)
    if (close !== -1) {
      const raw = this.text.slice(start + 1, close)
      if (!NEEDS_CAREFUL_READING.test(raw)) {
        this.pos = close + 1
        return raw
      }
    }
    let hasEscape = false
    this.pos++
    for (;;) {
      if (this.pos >= this.text.length) throw new SyntaxFailure(start, 'unterminated string; add the closing "')
      const code = this.text.charCodeAt(this.pos)
      if (code === QUOTE) break
      if (code === BACKSLASH) {
        hasEscape = true
        const escaped = this.text[this.pos + 1] ?? ''
        if (escaped === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.pos + 2, this.pos + 6))) {
            throw new SyntaxFailure(this.pos, 'invalid \\u escape in string; use four hex digits such as \\u00e9')
          }
          this.pos += 6
          continue
        }
        if (!'"\\/bfnrt'.includes(escaped) || escaped === '') {
          throw new SyntaxFailure(this.pos, `invalid escape "\\${escaped}" in string`)
        }
        this.pos += 2
        continue
      }
      if (code < 0x20) {
        throw new SyntaxFailure(
          this.pos,
          code === 10 || code === 13
            ? 'line break inside a string; the closing " is probably missing'
            : 'control character inside a string; escape it',
        )
      }
      this.pos++
    }
    this.pos++
    const raw = this.text.slice(start + 1, this.pos - 1)
    return hasEscape ? (JSON.parse(this.text.slice(start, this.pos)) as string) : raw
  }

  private number(): void {
    NUMBER.lastIndex = this.pos
    const match = NUMBER.exec(this.text)
    const end = match ? this.pos + match[0].length : this.pos
    const after = this.text[end] ?? ''
    if (!match || match[0] === '-' || /[0-9.eE+\-xXA-Za-z]/.test(after)) {
      throw new SyntaxFailure(this.pos, 'invalid number; JSON numbers have no leading zeros, "+", hex or trailing "."')
    }
    this.pos = end
  }

  private literalOrFail(expected: string): void {
    for (const literal of ['true', 'false', 'null']) {
      if (this.text.startsWith(literal, this.pos)) {
        const after = this.text[this.pos + literal.length] ?? ''
        if (!/[A-Za-z0-9_$]/.test(after)) {
          this.pos += literal.length
          return
        }
      }
    }
    this.rejectCommentOrConflict()
    if (this.pos >= this.text.length) throw this.endOfInput()
    const code = this.text.charCodeAt(this.pos)
    if (code === 39) throw new SyntaxFailure(this.pos, 'strings must use double quotes, not single quotes')
    if (code === 44 || code === 125 || code === 93) {
      throw new SyntaxFailure(this.pos, `expected ${expected} but found ${this.describeHere()}`)
    }
    if (IDENTIFIER_START.test(this.text[this.pos])) {
      WORD.lastIndex = this.pos
      const word = WORD.exec(this.text)?.[0] ?? ''
      throw new SyntaxFailure(this.pos, `unexpected word "${word}"; strings must be in double quotes`)
    }
    throw new SyntaxFailure(this.pos, `expected ${expected} but found ${this.describeHere()}`)
  }

  /** Undefined in a full scan (every child is read); in a focused one, the children to read. */
  private wantedChildren(pointer: string): ReadonlySet<string> | undefined {
    if (this.wanted === undefined) return undefined
    return this.wanted.get(pointer) ?? NOTHING
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) {
      throw new SyntaxFailure(
        this.pos,
        `objects and arrays nest more than ${MAX_DEPTH} levels deep here; flatten the file`,
      )
    }
  }

  private failExpectingKey(): never {
    this.rejectCommentOrConflict()
    if (this.pos >= this.text.length) throw this.endOfInput()
    const code = this.text.charCodeAt(this.pos)
    if (code === 39) throw new SyntaxFailure(this.pos, 'property names must use double quotes, not single quotes')
    if (IDENTIFIER_START.test(this.text[this.pos])) {
      WORD.lastIndex = this.pos
      const word = WORD.exec(this.text)?.[0] ?? ''
      throw new SyntaxFailure(this.pos, `unquoted property name ${word}; write it as "${word}"`)
    }
    throw new SyntaxFailure(this.pos, `expected a property name in double quotes but found ${this.describeHere()}`)
  }

  private rejectCommentOrConflict(): void {
    const marker = this.text.slice(this.pos, this.pos + 7)
    if (marker === '<<<<<<<' || marker === '=======' || marker === '>>>>>>>') {
      throw new SyntaxFailure(
        this.pos,
        `unresolved merge conflict marker ${marker}; resolve the conflict and remove the markers`,
      )
    }
    if (this.text.charCodeAt(this.pos) !== 47) return
    const next = this.text.charCodeAt(this.pos + 1)
    if (next === 47 || next === 42) throw new SyntaxFailure(this.pos, 'comments are not allowed in JSON; remove it')
  }

  private endOfInput(): SyntaxFailure {
    let end = this.text.length
    while (end > 0 && /\s/.test(this.text[end - 1])) end--
    return new SyntaxFailure(end, 'unexpected end of the file; a closing "}" or "]" is probably missing')
  }

  private describeHere(): string {
    if (this.pos >= this.text.length) return 'the end of the file'
    return JSON.stringify(this.text[this.pos])
  }

  private peek(): number {
    if (this.pos >= this.text.length) throw this.endOfInput()
    return this.text.charCodeAt(this.pos)
  }

  /** Moves past one value of text known to be valid JSON, without recording anything but the lines it crosses. */
  private skipValue(): void {
    const crossed = this.crossed
    this.pos = skipValueCountingLines(this.text, this.pos, crossed)
    if (crossed.lines > 0) {
      this.line += crossed.lines
      this.lineStart = crossed.lineStart
    }
  }

  private skipWhitespace(): void {
    const text = this.text
    let pos = this.pos
    for (;;) {
      const code = text.charCodeAt(pos)
      if (code === 32 || code === 13 || code === 9) pos++
      else if (code === 10) {
        this.line++
        this.lineStart = ++pos
      } else break
    }
    this.pos = pos
  }
}

const NOTHING: ReadonlySet<string> = new Set()
