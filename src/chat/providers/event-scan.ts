import { BACKSLASH, CLOSE_ARRAY, COLON, COMMA, DOT, MAX_DEPTH, MINUS, NINE, OPEN_ARRAY, OPEN_OBJECT, PLUS, QUOTE, SPACE, TAB, ZERO } from '../../json/grammar'

/**
 * A validating scan of one JSON object held in UTF-8 bytes, without building it.
 *
 * The relay uses it to forward an upstream event's bytes exactly as they came: once the scan
 * accepts them, they are one JSON object on one line, so `JSON.parse` + `JSON.stringify` would
 * only cost time and could change them (integers above 2^53 lose digits, `1.0` becomes `1`).
 *
 * The scan is strict and deliberately narrow. It accepts only what it can prove valid:
 * RFC 8259 JSON whose whitespace is spaces and tabs (a CR or LF is a line break in an event
 * stream), with well-formed UTF-8 in strings, nested at most {@link MAX_DEPTH} deep, whose
 * top-level keys are written without escapes. Everything else is {@link NOT_PROVEN}; the caller
 * then parses the text the slow way, which decides whether it is valid.
 */

/** The bytes are not provably one JSON object in the narrow form above. */
export const NOT_PROVEN = -1
/** Flag: the object has a top-level `error` key. */
export const HAS_ERROR = 1
/** Flag: the object has a top-level `choices` key. */
export const HAS_CHOICES = 2
/** Flag: the object has a top-level `usage` key whose value is an object (not `null`). */
export const HAS_USAGE = 4
/** Flag: a `finish_reason` key somewhere in the object has a string value (not `null`). */
export const HAS_FINISH = 8
/**
 * Flag: a top-level `"usage":null` member follows another member; the scan's {@link MemberRange}
 * says where it is, from the comma before it, so that it can be cut out of the bytes.
 */
export const HAS_USAGE_NULL = 16

/** Where a scan found the `,"usage":null` member (set when it returns {@link HAS_USAGE_NULL}); the caller owns it. */
export type MemberRange = { start: number; end: number }

const CLOSE_OBJECT = 0x7d

/** What the scanner expects next. */
const OBJECT_START = 0 // after `{`: a key or `}`
const KEY = 1 // after `,` in an object
const ARRAY_START = 2 // after `[`: a value or `]`
const VALUE = 3 // after `:` or `,` in an array
const AFTER_VALUE = 4 // `,` or the container's close

const IN_OBJECT = 0
const IN_ARRAY = 1

/** Scratch stack of open containers; the scan never re-enters, so one is enough. */
const containers = new Uint8Array(MAX_DEPTH)
/** Set by {@link scanString} when the string it scanned held an escape. */
let escaped = false
/** The flag the value after the key just scanned earns if it is an object (usage) or a string (finish_reason). */
let pendingFlag = 0
/** Where the comma before the key being scanned is, if the key follows another member. */
let lastComma = -1

/**
 * What the events of one stream share, for {@link scanJsonObject}: the bytes of an event's
 * opening members, already proven valid, from its `{` to the comma after the last top-level
 * member before the first top-level object or array, when none of them earned a flag. For an
 * OpenAI chunk that is `id`, `object`, `created`, `model` and `system_fingerprint`: the same in
 * every event of a stream, and half of each event's bytes. An event that starts with exactly
 * those bytes resumes the scan after them, in the state a scan of them ends in (inside the
 * top-level object, a key expected, no flags), so the result is the same as scanning it whole.
 */
export class ScanMemo {
  prefix: Uint8Array | undefined
}

/**
 * Scans `bytes[start, end)`. Returns {@link NOT_PROVEN}, or the {@link HAS_ERROR} and
 * {@link HAS_CHOICES} flags of a valid object (0 when it has neither key). With `memo`, a prefix
 * the last event proved is not checked again (see {@link ScanMemo}); `usageNull` learns where a
 * `,"usage":null` member is.
 */
export function scanJsonObject(bytes: Uint8Array, start: number, end: number, memo?: ScanMemo, usageNull?: MemberRange): number {
  let i = skipSpace(bytes, start, end)
  let usageStart = -1
  if (i >= end || bytes[i] !== OPEN_OBJECT) return NOT_PROVEN
  const open = i
  let depth = 1
  containers[0] = IN_OBJECT
  let state = OBJECT_START
  let flags = 0
  /** The top-level comma that ends the prefix to remember, while `collecting` (until a top-level container or flag). */
  let memoComma = -1
  let collecting = memo !== undefined
  const prefix = memo?.prefix
  if (prefix !== undefined && open + prefix.length < end && bytesEqualAt(bytes, open, prefix)) {
    i = open + prefix.length
    lastComma = i - 1
    state = KEY
    collecting = false
  } else i++
  while (i < end) {
    let c = bytes[i]
    if (c === SPACE || c === TAB) {
      i = skipSpace(bytes, i, end)
      if (i >= end) return NOT_PROVEN
      c = bytes[i]
    }
    switch (state) {
      case AFTER_VALUE: {
        const container = containers[depth - 1]
        if (c === COMMA) {
          state = container === IN_OBJECT ? KEY : VALUE
          lastComma = i
          if (depth === 1 && collecting) {
            if (flags === 0) memoComma = i
            else collecting = false
          }
          i++
          continue
        }
        if (c !== (container === IN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)) return NOT_PROVEN
        i++
        if (--depth === 0) {
          if (skipSpace(bytes, i, end) !== end) return NOT_PROVEN
          if (memoComma >= 0) memo!.prefix = bytes.slice(open, memoComma + 1)
          return flags
        }
        continue
      }
      case OBJECT_START:
      case KEY: {
        if (c !== QUOTE) {
          if (state === KEY || c !== CLOSE_OBJECT) return NOT_PROVEN
          i++
          if (--depth === 0) return skipSpace(bytes, i, end) === end ? flags : NOT_PROVEN
          state = AFTER_VALUE
          continue
        }
        const keyEnd = scanString(bytes, i, end)
        if (keyEnd < 0) return NOT_PROVEN
        pendingFlag = 0
        if (depth === 1) {
          // A top-level key spelled with escapes could be `error` in disguise; let JSON.parse decide.
          if (escaped) return NOT_PROVEN
          const flag = topLevelFlag(bytes, i + 1, keyEnd - 1)
          if (flag === HAS_USAGE) {
            pendingFlag = HAS_USAGE
            usageStart = state === KEY ? lastComma : -1
          } else flags |= flag
        } else if (keyEnd - i - 2 === FINISH_REASON_KEY.length && bytesAt(bytes, i + 1, FINISH_REASON_KEY)) {
          // Escaped spellings of it are missed, and only cost the ledger its finish reason.
          pendingFlag = HAS_FINISH
        }
        i = keyEnd
        if (i < end && bytes[i] !== COLON) i = skipSpace(bytes, i, end)
        if (i >= end || bytes[i] !== COLON) return NOT_PROVEN
        i++
        state = VALUE
        continue
      }
      default: {
        // VALUE, or ARRAY_START, where `]` may close an empty array.
        if (pendingFlag !== 0) {
          if ((pendingFlag === HAS_USAGE && c === OPEN_OBJECT) || (pendingFlag === HAS_FINISH && c === QUOTE)) flags |= pendingFlag
          else if (pendingFlag === HAS_USAGE && c === 0x6e /* n */ && usageStart >= 0 && bytesAt(bytes, i, NULL) && i + NULL.length <= end) {
            flags |= HAS_USAGE_NULL
            if (usageNull) {
              usageNull.start = usageStart
              usageNull.end = i + NULL.length
            }
          }
          pendingFlag = 0
        }
        if (c === QUOTE) {
          i = scanString(bytes, i, end)
        } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
          if (depth === MAX_DEPTH) return NOT_PROVEN
          // The prefix ends before the first top-level container: what follows it varies.
          if (depth === 1) collecting = false
          containers[depth++] = c === OPEN_OBJECT ? IN_OBJECT : IN_ARRAY
          state = c === OPEN_OBJECT ? OBJECT_START : ARRAY_START
          i++
          continue
        } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
          i = scanNumber(bytes, i, end)
        } else if (c === CLOSE_ARRAY && state === ARRAY_START) {
          i++
          depth--
        } else {
          i = scanLiteral(bytes, i, end)
        }
        if (i < 0) return NOT_PROVEN
        state = AFTER_VALUE
      }
    }
  }
  return NOT_PROVEN
}

function skipSpace(bytes: Uint8Array, i: number, end: number): number {
  while (i < end && (bytes[i] === SPACE || bytes[i] === TAB)) i++
  return i
}

/** 1 for the bytes a string holds as they are: printable ASCII but `"` and `\\`. */
const PLAIN = new Uint8Array(256)
for (let c = SPACE; c < 0x80; c++) PLAIN[c] = c === QUOTE || c === BACKSLASH ? 0 : 1

/** `bytes[i]` is the opening quote; returns the index after the closing quote, or -1. */
function scanString(bytes: Uint8Array, i: number, end: number): number {
  escaped = false
  i++
  for (;;) {
    // Most of a chat chunk's strings are plain ASCII: one table lookup per byte.
    while (i < end && PLAIN[bytes[i]] === 1) i++
    if (i >= end) return -1
    const c = bytes[i]
    if (c === QUOTE) return i + 1
    if (c === BACKSLASH) {
      escaped = true
      if (i + 1 >= end) return -1
      const e = bytes[i + 1]
      if (e === 0x75 /* u */) {
        if (i + 6 > end) return -1
        for (let k = i + 2; k < i + 6; k++) if (!isHex(bytes[k])) return -1
        i += 6
      } else if (e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
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

function scanNumber(bytes: Uint8Array, i: number, end: number): number {
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
const NULL = [0x6e, 0x75, 0x6c, 0x6c]

function scanLiteral(bytes: Uint8Array, i: number, end: number): number {
  const c = bytes[i]
  const literal = c === 0x74 ? TRUE : c === 0x66 ? FALSE : c === 0x6e ? NULL : undefined
  if (!literal || i + literal.length > end || !bytesAt(bytes, i, literal)) return -1
  return i + literal.length
}

function isHex(c: number): boolean {
  return (c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
}

const ERROR_KEY = [0x65, 0x72, 0x72, 0x6f, 0x72]
const CHOICES_KEY = [0x63, 0x68, 0x6f, 0x69, 0x63, 0x65, 0x73]
const USAGE_KEY = [0x75, 0x73, 0x61, 0x67, 0x65]
const FINISH_REASON_KEY = [...'finish_reason'].map((c) => c.charCodeAt(0))

/** The flag for a top-level key whose unescaped text is `bytes[start, end)`. */
function topLevelFlag(bytes: Uint8Array, start: number, end: number): number {
  const length = end - start
  if (length === ERROR_KEY.length) {
    if (bytesAt(bytes, start, ERROR_KEY)) return HAS_ERROR
    if (bytesAt(bytes, start, USAGE_KEY)) return HAS_USAGE
    return 0
  }
  if (length === CHOICES_KEY.length && bytesAt(bytes, start, CHOICES_KEY)) return HAS_CHOICES
  return 0
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

/**
 * Whether a parsed upstream object reports a failure in band, as OpenRouter and others do inside
 * a 200: an `error` and no `choices`. (The scan's {@link HAS_ERROR} and {@link HAS_CHOICES} flags
 * tell the same of bytes.)
 */
export function reportsError(object: Record<string, unknown>): boolean {
  return object.error !== undefined && object.choices === undefined
}

/** The slow path: `text` parsed, if it is a JSON object (not an array, not a scalar); else undefined. */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}
