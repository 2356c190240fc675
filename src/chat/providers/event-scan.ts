import {
  CLOSE_ARRAY,
  COLON,
  COMMA,
  MAX_DEPTH,
  MINUS,
  NINE,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  SPACE,
  TAB,
  ZERO,
} from '../../json/grammar'
import { bytesAt, bytesEqualAt, hasBackslash, NULL, scanLiteral, scanNumber, scanString, skipSpace } from './json-bytes'

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
  /**
   * A top-level key the prefix stops before: for events whose member under it varies from one to
   * the next (a Responses delta's `delta`), so that what precedes it is shared.
   */
  constructor(readonly stopKey?: Uint8Array) {}
}

/**
 * Scans `bytes[start, end)`. Returns {@link NOT_PROVEN}, or the {@link HAS_ERROR} and
 * {@link HAS_CHOICES} flags of a valid object (0 when it has neither key). With `memo`, a prefix
 * the last event proved is not checked again (see {@link ScanMemo}); `usageNull` learns where a
 * `,"usage":null` member is.
 */
export function scanJsonObject(
  bytes: Uint8Array,
  start: number,
  end: number,
  memo?: ScanMemo,
  usageNull?: MemberRange,
): number {
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
          if (hasBackslash(bytes, i + 1, keyEnd - 1)) return NOT_PROVEN
          const flag = topLevelFlag(bytes, i + 1, keyEnd - 1)
          const stopKey = collecting ? memo!.stopKey : undefined
          if (stopKey && keyEnd - i - 2 === stopKey.length && bytesEqualAt(bytes, i + 1, stopKey)) collecting = false
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
          if ((pendingFlag === HAS_USAGE && c === OPEN_OBJECT) || (pendingFlag === HAS_FINISH && c === QUOTE))
            flags |= pendingFlag
          else if (
            pendingFlag === HAS_USAGE &&
            c === 0x6e /* n */ &&
            usageStart >= 0 &&
            bytesAt(bytes, i, NULL) &&
            i + NULL.length <= end
          ) {
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
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}
