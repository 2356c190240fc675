import { ZERO } from '../../json/grammar'

/*
 * Bytes a translated stream writes: its events, read by read ({@link ReadBytes}), and each text part
 * as its JSON spelling ({@link JsonText}).
 */

const encoder = new TextEncoder()
const utf8 = new TextDecoder()

/**
 * A string's JSON spelling without its quotes, as UTF-8, built piece by piece: spliced pieces are
 * copied in as they came, others spelled by `JSON.stringify`. Pieces written that way parse, joined,
 * to the pieces joined, so {@link value} is the whole text, without a string made per piece.
 */
export class JsonText {
  #bytes = new Uint8Array(256)
  #length = 0
  /**
   * The spelling is exactly `JSON.stringify` of the text (without quotes). Pieces spelled by it, and
   * spliced ones, join into the text's own spelling, unless a piece ends or starts with half a
   * surrogate pair (spelled `\ud83c`, where the pair whole is written as it is): such a piece (or a
   * `\\ud…` that only looks like one) marks the spelling as not the text's.
   */
  canonical = true

  /** Adds the spelling `bytes[start, end)` (canonical, without quotes). */
  appendSpelled(bytes: Uint8Array, start: number, end: number): void {
    this.#reserve(end - start)
    this.#length = copy(bytes, start, end, this.#bytes, this.#length)
  }

  /** Adds `spelled`, a string's `JSON.stringify` with its quotes. */
  appendQuoted(spelled: string): void {
    if (spelled.includes('\\ud')) this.canonical = false
    this.#reserve(spelled.length * 3)
    this.#length += encoder.encodeInto(spelled.slice(1, -1), this.#bytes.subarray(this.#length)).written
  }

  /** Writes the spelling. */
  writeTo(out: ReadBytes): void {
    out.piece(this.#bytes, 0, this.#length)
  }

  /** The text. */
  value(): string {
    if (this.#length === 0) return ''
    return JSON.parse(`"${utf8.decode(this.#bytes.subarray(0, this.#length))}"`) as string
  }

  #reserve(size: number): void {
    if (this.#length + size <= this.#bytes.length) return
    const grown = new Uint8Array(Math.max(this.#bytes.length * 2, this.#length + size))
    grown.set(this.#bytes.subarray(0, this.#length))
    this.#bytes = grown
  }
}

/**
 * The bytes one read's events make, written into one growing scratch array (the read's work is
 * synchronous, so one serves every stream) and copied out once: text through `encodeInto`, spliced
 * pieces as they are, sequence numbers as digits.
 */
/** Strings up to this long are written by a loop while they are ASCII. */
const SHORT_TEXT = 256
const CLOSE = 0x7d
const LF = 0x0a

export class ReadBytes {
  #bytes = new Uint8Array(16_384)
  length = 0

  text(text: string): void {
    const length = text.length
    this.#reserve(length * 3)
    const bytes = this.#bytes
    let at = this.length
    if (length <= SHORT_TEXT) {
      // Most of what is written is short and ASCII: a loop, no view, no call out.
      let k = 0
      for (; k < length; k++) {
        const code = text.charCodeAt(k)
        if (code >= 0x80) break
        bytes[at++] = code
      }
      if (k === length) {
        this.length = at
        return
      }
      text = text.slice(k)
    }
    this.length = at + encoder.encodeInto(text, bytes.subarray(at)).written
  }

  /**
   * A spliced delta event in one go: `head`, the string `bytes[start, end)` (quotes included), `tail`,
   * the sequence number and the event's `}\n\n`.
   */
  delta(head: Uint8Array, bytes: Uint8Array, start: number, end: number, tail: Uint8Array, sequence: number): void {
    this.#reserve(head.length + (end - start) + tail.length + 19)
    const to = this.#bytes
    to.set(head, this.length)
    let at = copy(bytes, start, end, to, this.length + head.length)
    for (let k = 0; k < tail.length; k++) to[at++] = tail[k]!
    this.length = at
    this.integer(sequence)
    at = this.length
    to[at++] = CLOSE
    to[at++] = LF
    to[at++] = LF
    this.length = at
  }

  /** Bytes of its own, whole. */
  bytes(bytes: Uint8Array): void {
    this.#reserve(bytes.length)
    this.#bytes.set(bytes, this.length)
    this.length += bytes.length
  }

  /** `bytes[start, end)`, a piece of a read. */
  piece(bytes: Uint8Array, start: number, end: number): void {
    this.#reserve(end - start)
    this.length = copy(bytes, start, end, this.#bytes, this.length)
  }

  /** A non-negative integer's digits. */
  integer(value: number): void {
    this.#reserve(16)
    let digits = 1
    for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++
    const bytes = this.#bytes
    let at = this.length + digits
    this.length = at
    do {
      const next = Math.floor(value / 10)
      bytes[--at] = ZERO + value - next * 10
      value = next
    } while (value > 0)
  }

  /** What was written since the last take, as a new array; the scratch is emptied. */
  take(): Uint8Array {
    const out = this.#bytes.slice(0, this.length)
    this.length = 0
    return out
  }

  #reserve(size: number): void {
    if (this.length + size <= this.#bytes.length) return
    const grown = new Uint8Array(Math.max(this.#bytes.length * 2, this.length + size))
    grown.set(this.#bytes.subarray(0, this.length))
    this.#bytes = grown
  }
}

/** Copies `from[start, end)` to `to` at `at`; returns the index after it. A loop for the few bytes of a piece, no view. */
function copy(from: Uint8Array, start: number, end: number, to: Uint8Array, at: number): number {
  if (end - start > 64) {
    to.set(from.subarray(start, end), at)
    return at + end - start
  }
  for (let k = start; k < end; k++) to[at++] = from[k]!
  return at
}

/** A JSON string literal's value, for a piece that is not spliced. */
export function stringAt(bytes: Uint8Array, start: number, end: number): string {
  return JSON.parse(utf8.decode(bytes.subarray(start, end))) as string
}
