/**
 * HTTP/1.1 chunked transfer coding (RFC 9112 §7.1), decoded incrementally: each socket read goes
 * in, the data it completes comes out. Chunk extensions are ignored and trailer fields dropped,
 * as the RFC allows a recipient to do.
 *
 * The data is compacted in place: the framing is cut out of the read by moving the data bytes
 * forward, so a read that holds many chunks (a burst of events) costs no allocation. The read
 * must therefore belong to the decoder; Bun hands every socket read over as a fresh buffer.
 */
export class ChunkedDecoder {
  #state: 'size' | 'data' | 'data-end' | 'trailer' | 'done' = 'size'
  /** A size or trailer line that a read boundary cut, kept until its end arrives. */
  #line = ''
  /** Data bytes left in the current chunk. */
  #left = 0
  /** The CR of the line break after a chunk's data was seen. */
  #sawCr = false

  get done(): boolean {
    return this.#state === 'done'
  }

  /**
   * The body data in `read` (a view of `read`, whose bytes it overwrites), and `rest`: whatever
   * followed the end of the body, which a well-behaved server never sends. Throws a
   * `ChunkedEncodingError` on a malformed stream.
   */
  push(read: Uint8Array): { data: Uint8Array; rest: Uint8Array | undefined } {
    let out = 0
    let at = 0
    while (at < read.length) {
      switch (this.#state) {
        case 'data': {
          const take = Math.min(this.#left, read.length - at)
          if (out !== at) read.copyWithin(out, at, at + take)
          out += take
          at += take
          this.#left -= take
          if (this.#left === 0) this.#state = 'data-end'
          break
        }
        case 'data-end': {
          const byte = read[at++]
          if (byte === CR && !this.#sawCr) this.#sawCr = true
          else if (byte === LF) {
            this.#sawCr = false
            this.#state = 'size'
          } else throw new ChunkedEncodingError('chunk data is longer than its size')
          break
        }
        case 'size':
        case 'trailer':
          at = this.#line === '' && this.#state === 'size' ? this.#sizeLine(read, at) : this.#slowLine(read, at)
          break
        case 'done':
          return { data: read.subarray(0, out), rest: read.subarray(at) }
      }
    }
    return { data: read.subarray(0, out), rest: undefined }
  }

  /** A size line that starts in this read, parsed from its bytes; the usual case. */
  #sizeLine(read: Uint8Array, at: number): number {
    const lineEnd = read.indexOf(LF, at)
    if (lineEnd === -1) return this.#slowLine(read, at)
    const end = lineEnd > at && read[lineEnd - 1] === CR ? lineEnd - 1 : lineEnd
    let size = 0
    let i = at
    for (; i < end; i++) {
      const digit = HEX[read[i]]
      if (digit === 255) break
      size = size * 16 + digit
    }
    const digits = i - at
    while (i < end && (read[i] === SPACE || read[i] === TAB)) i++
    if (digits === 0 || digits > MAX_SIZE_DIGITS || (i < end && read[i] !== SEMICOLON)) {
      throw badSize(latin1(read, at, end))
    }
    this.#startChunk(size)
    return lineEnd + 1
  }

  /** A line cut by a read boundary, or a trailer line: gathered as text, then handled whole. */
  #slowLine(read: Uint8Array, at: number): number {
    const lineEnd = read.indexOf(LF, at)
    const end = lineEnd === -1 ? read.length : lineEnd
    this.#line += latin1(read, at, end)
    if (this.#line.length > MAX_LINE) throw new ChunkedEncodingError('a chunk size or trailer line is too long')
    if (lineEnd === -1) return end
    const line = this.#line.endsWith('\r') ? this.#line.slice(0, -1) : this.#line
    this.#line = ''
    if (this.#state === 'trailer') {
      if (line === '') this.#state = 'done'
    } else {
      const match = SIZE.exec(line)
      if (!match) throw badSize(line)
      this.#startChunk(Number.parseInt(match[1], 16))
    }
    return lineEnd + 1
  }

  #startChunk(size: number): void {
    this.#left = size
    this.#state = size === 0 ? 'trailer' : 'data'
  }
}

export class ChunkedEncodingError extends Error {
  constructor(what: string) {
    super(`Malformed chunked response body: ${what}.`)
    this.name = 'ChunkedEncodingError'
  }
}

const LF = 0x0a
const CR = 0x0d
const SPACE = 0x20
const TAB = 0x09
const SEMICOLON = 0x3b
/** Longer lines than this are an attack or a broken server, not a chunk size. */
const MAX_LINE = 4096
/** Twelve hex digits: 256 TiB, far past any response, and exact in a double. */
const MAX_SIZE_DIGITS = 12
const SIZE = /^([0-9a-fA-F]{1,12})[ \t]*(;.*)?$/
/** Each byte's hex digit value, or 255. */
const HEX = new Uint8Array(256).fill(255)
for (let digit = 0; digit < 16; digit++) {
  HEX['0123456789abcdef'.charCodeAt(digit)] = digit
  HEX['0123456789ABCDEF'.charCodeAt(digit)] = digit
}

const badSize = (line: string) => new ChunkedEncodingError(`bad chunk size line ${JSON.stringify(line.slice(0, 40))}`)

/** Size and trailer lines are ASCII; anything else fails the size pattern anyway. */
function latin1(bytes: Uint8Array, start: number, end: number): string {
  let text = ''
  for (let i = start; i < end; i++) text += String.fromCharCode(bytes[i])
  return text
}
