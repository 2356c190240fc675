/**
 * Moving past parts of a text already known to be valid JSON (it went through `JSON.parse`), without reading
 * values: strings are crossed with a native `indexOf`, everything else with one table load per character.
 */

const QUOTE = 34
const BACKSLASH = 92

export const OTHER = 0
export const STRING = 1
export const OPEN = 2
export const CLOSE = 3
export const DELIMITER = 4
export const NEWLINE = 5

/** Character classes for skipping: one table load per character instead of a chain of comparisons. */
export const SKIP_CLASS = (() => {
  const table = new Uint8Array(128)
  table[QUOTE] = STRING
  table[123] = OPEN
  table[91] = OPEN
  table[125] = CLOSE
  table[93] = CLOSE
  for (const code of [32, 9, 13, 44, 58]) table[code] = DELIMITER
  table[10] = NEWLINE
  return table
})()

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
  for (let code = text.charCodeAt(pos); code === 32 || code === 10 || code === 13 || code === 9; code = text.charCodeAt(++pos));
  return pos
}

/** The offset just past the value that starts at `pos`. */
export function skipValue(text: string, pos: number): number {
  const length = text.length
  const first = text.charCodeAt(pos)
  if (first === QUOTE) return endOfString(text, pos)
  if (first !== 123 && first !== 91) {
    // A number or a literal: it ends at the next delimiter.
    while (pos < length && (text.charCodeAt(pos) >= 128 || SKIP_CLASS[text.charCodeAt(pos)] === OTHER)) pos++
    return pos
  }
  let depth = 0
  while (pos < length) {
    const code = text.charCodeAt(pos)
    const kind = code < 128 ? SKIP_CLASS[code] : OTHER
    if (kind === STRING) pos = endOfString(text, pos)
    else if (kind === OPEN) {
      depth++
      pos++
    } else if (kind === CLOSE) {
      pos++
      if (--depth === 0) break
    } else pos++
  }
  return pos
}
