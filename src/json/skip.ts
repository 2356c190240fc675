import {
  BACKSLASH,
  CHARACTER_CLASS,
  DELIMITER,
  isWhitespace,
  NEWLINE,
  OPEN,
  OPEN_ARRAY,
  OPEN_OBJECT,
  OTHER,
  QUOTE,
  STRING,
} from './grammar'

/**
 * Moving past parts of a text already known to be valid JSON (it went through `JSON.parse`), without reading
 * values: strings are crossed with a native `indexOf`, everything else with one table load per character.
 */

/** The offset just past the string that opens at `start`. */
export function endOfString(text: string, start: number): number {
  let quote = text.indexOf('"', start + 1)
  for (;;) {
    if (quote === -1) return text.length
    let backslashes = 0
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return quote + 1
    quote = text.indexOf('"', quote + 1)
  }
}

/** The offset of the first character at or after `pos` that is not JSON whitespace. */
export function skipWhitespace(text: string, pos: number): number {
  while (isWhitespace(text.charCodeAt(pos))) pos++
  return pos
}

/** The offset just past the value that starts at `pos`. */
export function skipValue(text: string, pos: number): number {
  return skipValueCountingLines(text, pos)
}

/** The newlines a skip crossed, and where the last line it entered starts; the reader that asks owns it. */
export type LinesCrossed = { lines: number; lineStart: number }

/** {@link skipValue} for a reader that tracks lines: the newlines it crosses are counted in `crossed`. */
export function skipValueCountingLines(text: string, pos: number, crossed?: LinesCrossed): number {
  if (crossed) crossed.lines = 0
  const length = text.length
  const first = text.charCodeAt(pos)
  if (first === QUOTE) return endOfString(text, pos)
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    // A number or a literal: it ends at the next delimiter, and holds no newline.
    while (pos < length && (text.charCodeAt(pos) >= 128 || CHARACTER_CLASS[text.charCodeAt(pos)] === OTHER)) pos++
    return pos
  }
  let depth = 0
  while (pos < length) {
    const code = text.charCodeAt(pos)
    const kind = code < 128 ? CHARACTER_CLASS[code] : OTHER
    if (kind === OTHER || kind === DELIMITER) pos++
    else if (kind === NEWLINE) {
      pos++
      if (crossed) {
        crossed.lines++
        crossed.lineStart = pos
      }
    } else if (kind === STRING) pos = endOfString(text, pos)
    else if (kind === OPEN) {
      depth++
      pos++
    } else {
      pos++
      if (--depth === 0) break
    }
  }
  return pos
}
