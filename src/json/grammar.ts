/**
 * What every JSON reader here shares (the lossless body parser, the relay's byte scan, the
 * docs.json positional scanner and the skip helpers): one depth policy and one set of
 * character codes, so no two of them disagree on what JSON is or how deep it may go.
 */

/**
 * The deepest nesting of objects and arrays any reader accepts. Real bodies nest a few levels
 * (chat chunks about five, docs.json navigation groups a handful); the readers and the walks
 * over what they read recurse, so absurd depth is refused (or, by the relay's scan, left to
 * `JSON.parse`) up front. One limit, where there were three (64, 128 and 256).
 */
export const MAX_DEPTH = 128

export const TAB = 0x09
const LINE_FEED = 0x0a
const CARRIAGE_RETURN = 0x0d
export const SPACE = 0x20
export const QUOTE = 0x22
export const PLUS = 0x2b
export const COMMA = 0x2c
export const MINUS = 0x2d
export const DOT = 0x2e
export const ZERO = 0x30
export const NINE = 0x39
export const COLON = 0x3a
export const OPEN_ARRAY = 0x5b
export const BACKSLASH = 0x5c
export const CLOSE_ARRAY = 0x5d
export const OPEN_OBJECT = 0x7b
export const CLOSE_OBJECT = 0x7d

/** JSON's four whitespace characters (RFC 8259 §2), and nothing else. */
export function isWhitespace(code: number): boolean {
  return code === SPACE || code === LINE_FEED || code === CARRIAGE_RETURN || code === TAB
}

/** Classes of the ASCII characters that matter to a reader moving past values it does not read. */
export const OTHER = 0
export const STRING = 1
export const OPEN = 2
const CLOSE = 3
export const DELIMITER = 4
export const NEWLINE = 5

/** The class of each ASCII character: one table load per character instead of a chain of comparisons. */
export const CHARACTER_CLASS = (() => {
  const table = new Uint8Array(128)
  table[QUOTE] = STRING
  table[OPEN_OBJECT] = OPEN
  table[OPEN_ARRAY] = OPEN
  table[CLOSE_OBJECT] = CLOSE
  table[CLOSE_ARRAY] = CLOSE
  for (const code of [SPACE, TAB, CARRIAGE_RETURN, COMMA, COLON]) table[code] = DELIMITER
  table[LINE_FEED] = NEWLINE
  return table
})()
