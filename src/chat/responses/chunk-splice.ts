import { CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from '../../json/grammar'
import {
  bytesAt,
  bytesEqualAt,
  hasBackslash,
  NULL,
  scanCanonicalString,
  scanLiteral,
  scanNumber,
  scanString,
} from '../providers/json-bytes'

/*
 * The translated stream's fast way for its most frequent event. Nearly every chunk of an answer is
 * one piece of text, `{…,"choices":[{"index":0,"delta":{"content":"…"},"logprobs":null,
 * "finish_reason":null}]}`, and the Responses event it becomes differs from the last one only in
 * that string and its sequence number. Parsing the chunk and serialising the event cost more than
 * relaying the chunk itself (BENCHMARKS.md, "Responses relays"), so a chunk that says nothing but
 * text is read on its bytes ({@link scanTextChunk}), and its string is copied, as bytes, between
 * the event's pre-encoded head and tail (as the Anthropic relay's delta splice does). Only strings
 * already written as `JSON.stringify` writes them are copied (scanCanonicalString), so the bytes
 * equal what the parsed way would send; a chunk that carries anything else (but a role, which the
 * translation ignores), a spelling the scan does not prove, or JSON the scan cannot follow, takes
 * the parsed way.
 */

/** Where {@link scanTextChunk} found choice 0's text: each string's opening quote and the index after its closing one. */
export class TextChunk {
  /** `delta.content`'s string, or -1 when it is null or absent. */
  content = -1
  contentEnd = -1
  /** `delta.reasoning_content`'s string, or -1. */
  reasoning = -1
  reasoningEnd = -1
}

/**
 * What the text chunks of one stream share, for {@link scanTextChunk}: the bytes of a chunk from
 * its `{` to the value of its first text member (`"content":` or `"reasoning_content":` in the
 * delta), already proven, and the scan's state there. For an OpenAI stream that is everything but
 * the piece and what follows it (`id`, `object`, `created`, `model`, `system_fingerprint`, the
 * choice's `index`, the delta's key), the same in every text chunk: a chunk that starts with
 * exactly those bytes resumes the scan after them, in the state a scan of them ends in, so the
 * result is the same as scanning it whole.
 */
export class TextChunkMemo {
  prefix: Uint8Array | undefined
  /** The keys seen before the value, and the key whose value it is. */
  seen = 0
  key = 0
}

/** Where the scan is: in the chunk, in choice 0, or in its delta. */
const TOP = 0
const CHOICE = 1
const DELTA = 2

/** The keys the scan knows, each a bit of the keys seen (a key twice is the parsed way's). */
const OTHER = 0
const CHOICES = 1
const USAGE = 2
const INDEX = 4
const DELTA_KEY = 8
const FINISH_REASON = 16
const CONTENT = 32
const REASONING_CONTENT = 64
const ROLE = 128
const REFUSAL = 256

const ascii = (text: string) => Array.from(text, (c) => c.charCodeAt(0))
/** The keys, written with their quotes. */
const CHOICES_KEY = ascii('"choices"')
const USAGE_KEY = ascii('"usage"')
const INDEX_KEY = ascii('"index"')
const DELTA_KEY_BYTES = ascii('"delta"')
const FINISH_REASON_KEY = ascii('"finish_reason"')
const CONTENT_KEY = ascii('"content"')
const REASONING_CONTENT_KEY = ascii('"reasoning_content"')
const ROLE_KEY = ascii('"role"')
const REFUSAL_KEY = ascii('"refusal"')
const ZERO = 0x30
const NOT_TEXT = -1
/** 1 for the bytes a key holds as they are: printable ASCII but `"` and `\\`. */
const PLAIN = new Uint8Array(256)
for (let c = 0x20; c < 0x80; c++) PLAIN[c] = c === QUOTE || c === 0x5c ? 0 : 1

/**
 * Whether the JSON `bytes[start, end)` is a chat chunk that says only text: a top-level object whose
 * `choices` is one object with `index` 0 (or none), `finish_reason` null (or none) and a `delta`
 * of only `content` and `reasoning_content` (each a canonical string or null), `role` (ignored by
 * the translation) and `refusal: null`; `usage`, if any, null; any other members scalars. What the
 * parsed way would read of such a chunk is exactly what `found` says; every member is checked as
 * JSON (strings, numbers and literals; no whitespace, no escaped key, no key twice where it matters).
 * False for anything else (`found` then means nothing). With `memo`, a prefix an earlier chunk
 * proved is not checked again (see {@link TextChunkMemo}).
 */
export function scanTextChunk(
  bytes: Uint8Array,
  start: number,
  end: number,
  found: TextChunk,
  memo?: TextChunkMemo,
): boolean {
  found.content = found.reasoning = -1
  let level = TOP
  let seen = 0
  let key = OTHER
  let i = start + 1
  let resumed = false
  const prefix = memo?.prefix
  if (prefix !== undefined && start + prefix.length < end && bytesEqualAt(bytes, start, prefix)) {
    level = DELTA
    seen = memo!.seen
    key = memo!.key
    i = start + prefix.length
    resumed = true
  } else if (bytes[start] !== OPEN_OBJECT) return false
  /** Where to remember this chunk's prefix: not when it was the remembered one. */
  const remember = resumed ? undefined : memo
  for (;;) {
    if (!resumed) {
      // A member's key.
      if (bytes[i] !== QUOTE) return false
      const value = keyEnd(bytes, i, end)
      if (value < 0) return false
      key = keyOf(level, bytes, i, value - 1)
      i = value
    }
    resumed = false
    if (key !== OTHER) {
      if (seen & key) return false
      if ((key === CONTENT || key === REASONING_CONTENT) && remember && !(seen & (CONTENT | REASONING_CONTENT))) {
        // The first text member: everything before its value is what the stream's text chunks share.
        remember.prefix = bytes.slice(start, i)
        remember.seen = seen
        remember.key = key
      }
      seen |= key
    }
    // Its value.
    let next: number
    switch (key) {
      case CHOICES:
        if (bytes[i] !== OPEN_ARRAY || bytes[i + 1] !== OPEN_OBJECT) return false
        level = CHOICE
        i += 2
        continue
      case DELTA_KEY:
        if (bytes[i] !== OPEN_OBJECT) return false
        if (bytes[i + 1] !== CLOSE_OBJECT) {
          level = DELTA
          i++
          continue
        }
        next = i + 2
        break
      case INDEX:
        next = bytes[i] === ZERO ? i + 1 : NOT_TEXT
        break
      case USAGE:
      case FINISH_REASON:
      case REFUSAL:
        next = nullAt(bytes, i, end)
        break
      case CONTENT:
        next = textAt(bytes, i, end)
        if (next >= 0 && bytes[i] === QUOTE) {
          found.content = i
          found.contentEnd = next
        }
        break
      case REASONING_CONTENT:
        next = textAt(bytes, i, end)
        if (next >= 0 && bytes[i] === QUOTE) {
          found.reasoning = i
          found.reasoningEnd = next
        }
        break
      default:
        // Any other member of the delta is something the translation reads.
        if (level === DELTA && key !== ROLE) return false
        next = scalarEnd(bytes, i, end)
    }
    if (next < 0) return false
    i = next
    // A comma, or the end of the delta, the choice (and the list: a second choice is not this way's), or the chunk.
    for (;;) {
      const c = bytes[i]
      if (c === COMMA) {
        i++
        break
      }
      if (c !== CLOSE_OBJECT) return false
      if (level === TOP) return i + 1 === end && (seen & CHOICES) !== 0
      if (level === DELTA) {
        level = CHOICE
        i++
        continue
      }
      if (bytes[i + 1] !== CLOSE_ARRAY || !(seen & DELTA_KEY)) return false
      level = TOP
      i += 2
    }
  }
}

/** The key at `i` (its opening quote), written without escapes and followed by `:`: the index of its value, or -1. */
function keyEnd(bytes: Uint8Array, i: number, end: number): number {
  let k = i + 1
  while (k < end && PLAIN[bytes[k]!] === 1) k++
  if (k < end && bytes[k] === QUOTE) return k + 1 < end && bytes[k + 1] === COLON ? k + 2 : NOT_TEXT
  // Not ASCII, or a control character or escape: proven (or refused) the long way.
  const after = scanString(bytes, i, end)
  if (after < 0 || bytes[after] !== COLON || hasBackslash(bytes, i + 1, after - 1)) return NOT_TEXT
  return after + 1
}

/** Which of `level`'s keys `bytes[start, end)` (quotes included) is, or OTHER. */
function keyOf(level: number, bytes: Uint8Array, start: number, end: number): number {
  const length = end - start
  if (level === TOP) {
    if (length === 9) return bytesAt(bytes, start, CHOICES_KEY) ? CHOICES : OTHER
    return length === 7 && bytesAt(bytes, start, USAGE_KEY) ? USAGE : OTHER
  }
  if (level === CHOICE) {
    if (length === 7) {
      if (bytesAt(bytes, start, INDEX_KEY)) return INDEX
      return bytesAt(bytes, start, DELTA_KEY_BYTES) ? DELTA_KEY : OTHER
    }
    return length === 15 && bytesAt(bytes, start, FINISH_REASON_KEY) ? FINISH_REASON : OTHER
  }
  if (length === 9) {
    if (bytesAt(bytes, start, CONTENT_KEY)) return CONTENT
    return bytesAt(bytes, start, REFUSAL_KEY) ? REFUSAL : OTHER
  }
  if (length === 19) return bytesAt(bytes, start, REASONING_CONTENT_KEY) ? REASONING_CONTENT : OTHER
  return length === 6 && bytesAt(bytes, start, ROLE_KEY) ? ROLE : OTHER
}

/** `null` at `i`: the index after it, or -1. */
function nullAt(bytes: Uint8Array, i: number, end: number): number {
  return i + NULL.length <= end && bytesAt(bytes, i, NULL) ? i + NULL.length : NOT_TEXT
}

/** A string spelled as JSON.stringify spells it, or `null`, at `i`: the index after it, or -1. */
function textAt(bytes: Uint8Array, i: number, end: number): number {
  return bytes[i] === QUOTE ? scanCanonicalString(bytes, i, end) : nullAt(bytes, i, end)
}

/** A string, number or literal at `i`: the index after it, or -1 (for an object or array too). */
function scalarEnd(bytes: Uint8Array, i: number, end: number): number {
  const c = bytes[i]
  if (c === QUOTE) return scanString(bytes, i, end)
  if (c === undefined || i >= end) return NOT_TEXT
  if (c === 0x2d || (c >= ZERO && c <= 0x39)) return scanNumber(bytes, i, end)
  if (c === 0x74 || c === 0x66 || c === 0x6e) return scanLiteral(bytes, i, end)
  return NOT_TEXT
}
