import { BACKSLASH, MINUS, NINE, PLUS, QUOTE, SPACE, TAB, ZERO, DOT } from '../../json/grammar'

/*
 * The pieces of a JSON value as UTF-8 bytes, for the relay's event scan (event-scan.ts): each
 * `scan…` takes the index of a value's first byte and returns the index after it, or -1 when the
 * bytes are not that value in the narrow form the scan proves.
 */

export function skipSpace(bytes: Uint8Array, i: number, end: number): number {
  while (i < end && (bytes[i] === SPACE || bytes[i] === TAB)) i++
  return i
}

/** 1 for the bytes a string holds as they are: printable ASCII but `"` and `\\`. */
const PLAIN = new Uint8Array(256)
for (let c = SPACE; c < 0x80; c++) PLAIN[c] = c === QUOTE || c === BACKSLASH ? 0 : 1

/** `bytes[i]` is the opening quote; returns the index after the closing quote, or -1. */
export function scanString(bytes: Uint8Array, i: number, end: number): number {
  i++
  for (;;) {
    // Most of a chat chunk's strings are plain ASCII: one table lookup per byte.
    while (i < end && PLAIN[bytes[i]] === 1) i++
    if (i >= end) return -1
    const c = bytes[i]
    if (c === QUOTE) return i + 1
    if (c === BACKSLASH) {
      if (i + 1 >= end) return -1
      const e = bytes[i + 1]
      if (e === 0x75 /* u */) {
        if (i + 6 > end) return -1
        for (let k = i + 2; k < i + 6; k++) if (!isHex(bytes[k])) return -1
        i += 6
      } else if (
        e === QUOTE ||
        e === BACKSLASH ||
        e === 0x2f ||
        e === 0x62 ||
        e === 0x66 ||
        e === 0x6e ||
        e === 0x72 ||
        e === 0x74
      ) {
        i += 2
      } else {
        return -1
      }
    } else if (c < SPACE) {
      return -1
    } else {
      i = scanUtf8(bytes, i, end)
      if (i < 0) return -1
    }
  }
}

/**
 * `bytes[i]` is a string's opening quote: the index after its closing quote when the string is
 * written exactly as `JSON.stringify` writes its value (well-formed UTF-8 as it is, `"` `\\` and
 * \b \f \n \r \t escaped short, other control characters as lowercase `\u00xx`), else -1. Bytes
 * that pass can be spliced into output that must equal `JSON.stringify`'s, without decoding them.
 */
export function scanCanonicalString(bytes: Uint8Array, i: number, end: number): number {
  i++
  for (;;) {
    while (i < end && PLAIN[bytes[i]] === 1) i++
    if (i >= end) return -1
    const c = bytes[i]
    if (c === QUOTE) return i + 1
    if (c === BACKSLASH) {
      if (i + 1 >= end) return -1
      const e = bytes[i + 1]
      if (e === QUOTE || e === BACKSLASH || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) i += 2
      else if (e === 0x75 && isShortControlEscape(bytes, i + 2, end)) i += 6
      else return -1
    } else if (c < SPACE) {
      return -1
    } else {
      i = scanUtf8(bytes, i, end)
      if (i < 0) return -1
    }
  }
}

/** `00xx` (lowercase hex) of a control character that has no short escape: how JSON.stringify writes it. */
function isShortControlEscape(bytes: Uint8Array, i: number, end: number): boolean {
  if (i + 4 > end || bytes[i] !== ZERO || bytes[i + 1] !== ZERO) return false
  const high = bytes[i + 2]
  const low = bytes[i + 3]
  const lowValue = low >= ZERO && low <= NINE ? low - ZERO : low >= 0x61 && low <= 0x66 ? low - 0x61 + 10 : -1
  if (lowValue < 0 || (high !== ZERO && high !== ZERO + 1)) return false
  const code = (high - ZERO) * 16 + lowValue
  return code !== 0x08 && code !== 0x09 && code !== 0x0a && code !== 0x0c && code !== 0x0d
}

/**
 * One multi-byte UTF-8 sequence starting at `i`, checked against the well-formed byte
 * sequences of the Unicode Standard (table 3-7): no overlong forms, no surrogates, nothing
 * above U+10FFFF. Returns the index after it, or -1.
 */
function scanUtf8(bytes: Uint8Array, i: number, end: number): number {
  const lead = bytes[i]
  let length: number
  let low = 0x80
  let high = 0xbf
  if (lead >= 0xc2 && lead <= 0xdf) length = 2
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3
    if (lead === 0xe0) low = 0xa0
    else if (lead === 0xed) high = 0x9f
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4
    if (lead === 0xf0) low = 0x90
    else if (lead === 0xf4) high = 0x8f
  } else return -1
  if (i + length > end) return -1
  const second = bytes[i + 1]
  if (second < low || second > high) return -1
  for (let k = i + 2; k < i + length; k++) if ((bytes[k] & 0xc0) !== 0x80) return -1
  return i + length
}

export function scanNumber(bytes: Uint8Array, i: number, end: number): number {
  if (bytes[i] === MINUS) i++
  if (i >= end) return -1
  if (bytes[i] === ZERO) i++
  else if (bytes[i] >= 0x31 && bytes[i] <= NINE) i = digits(bytes, i, end)
  else return -1
  if (i < end && bytes[i] === DOT) {
    const after = digits(bytes, i + 1, end)
    if (after === i + 1) return -1
    i = after
  }
  if (i < end && (bytes[i] === 0x65 || bytes[i] === 0x45)) {
    i++
    if (i < end && (bytes[i] === PLUS || bytes[i] === MINUS)) i++
    const after = digits(bytes, i, end)
    if (after === i) return -1
    i = after
  }
  return i
}

function digits(bytes: Uint8Array, i: number, end: number): number {
  while (i < end && bytes[i] >= ZERO && bytes[i] <= NINE) i++
  return i
}

const TRUE = [0x74, 0x72, 0x75, 0x65]
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65]
export const NULL = [0x6e, 0x75, 0x6c, 0x6c]

export function scanLiteral(bytes: Uint8Array, i: number, end: number): number {
  const c = bytes[i]
  const literal = c === 0x74 ? TRUE : c === 0x66 ? FALSE : c === 0x6e ? NULL : undefined
  if (!literal || i + literal.length > end || !bytesAt(bytes, i, literal)) return -1
  return i + literal.length
}

function isHex(c: number): boolean {
  return (c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
}

/**
 * {@link bytesAt} for an expected `Uint8Array`. Kept apart, not one function over both kinds of
 * array: the scan memo's check ran twice as slow when a shared function saw both (bench/json-scan.ts).
 */
export function bytesEqualAt(bytes: Uint8Array, at: number, expected: Uint8Array): boolean {
  if (at + expected.length > bytes.length) return false
  for (let k = 0; k < expected.length; k++) if (bytes[at + k] !== expected[k]) return false
  return true
}

/** Whether `bytes` hold `expected` at `at` (false when they end first). */
export function bytesAt(bytes: Uint8Array, at: number, expected: readonly number[]): boolean {
  if (at + expected.length > bytes.length) return false
  for (let k = 0; k < expected.length; k++) if (bytes[at + k] !== expected[k]) return false
  return true
}

/** Whether `bytes[start, end)` holds a backslash: a string written with escapes. */
export function hasBackslash(bytes: Uint8Array, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (bytes[k] === BACKSLASH) return true
  return false
}
