/**
 * HTTP/1.1 chunked transfer coding (RFC 9112 §7.1), decoded incrementally: each socket read goes
 * in, the data it completes comes out. Chunk extensions are ignored and trailer fields dropped,
 * as the RFC allows a recipient to do.
 */
export class ChunkedDecoder {
  #state: 'size' | 'data' | 'data-end' | 'trailer' | 'done' = 'size'
  /** The current size or trailer line, which may span reads. */
  #line = ''
  /** Data bytes left in the current chunk. */
  #left = 0

  get done(): boolean {
    return this.#state === 'done'
  }

  /**
   * The body data in `read`, as views of it (no copy when the read holds one piece of data);
   * `rest` is whatever followed the end of the body, which a well-behaved server never sends.
   * Throws a `ChunkedEncodingError` on a malformed stream.
   */
  push(read: Uint8Array): { data: Uint8Array[]; rest: Uint8Array | undefined } {
    const data: Uint8Array[] = []
    let at = 0
    while (at < read.length) {
      switch (this.#state) {
        case 'data': {
          const take = Math.min(this.#left, read.length - at)
          data.push(read.subarray(at, at + take))
          at += take
          this.#left -= take
          if (this.#left === 0) this.#state = 'data-end'
          break
        }
        case 'size':
        case 'data-end':
        case 'trailer': {
          const lineEnd = read.indexOf(LF, at)
          const end = lineEnd === -1 ? read.length : lineEnd
          this.#line += latin1(read, at, end)
          if (this.#line.length > MAX_LINE) throw new ChunkedEncodingError('a chunk size or trailer line is too long')
          at = end
          if (lineEnd === -1) break
          at++
          this.#endLine(stripCr(this.#line))
          this.#line = ''
          break
        }
        case 'done':
          return { data, rest: read.subarray(at) }
      }
    }
    return { data, rest: undefined }
  }

  #endLine(line: string): void {
    if (this.#state === 'data-end') {
      if (line !== '') throw new ChunkedEncodingError('chunk data is longer than its size')
      this.#state = 'size'
    } else if (this.#state === 'trailer') {
      if (line === '') this.#state = 'done'
    } else {
      const size = parseChunkSize(line)
      this.#left = size
      this.#state = size === 0 ? 'trailer' : 'data'
    }
  }
}

export class ChunkedEncodingError extends Error {
  constructor(what: string) {
    super(`Malformed chunked response body: ${what}.`)
    this.name = 'ChunkedEncodingError'
  }
}

const LF = 0x0a
/** Longer lines than this are an attack or a broken server, not a chunk size. */
const MAX_LINE = 4096
/** Twelve hex digits: 256 TiB, far past any response, and exact in a double. */
const SIZE = /^([0-9a-fA-F]{1,12})[ \t]*(;.*)?$/

function parseChunkSize(line: string): number {
  const match = SIZE.exec(line)
  if (!match) throw new ChunkedEncodingError(`bad chunk size line ${JSON.stringify(line.slice(0, 40))}`)
  return Number.parseInt(match[1], 16)
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line
}

/** Size lines are ASCII; anything else fails the size pattern anyway. */
function latin1(bytes: Uint8Array, start: number, end: number): string {
  let text = ''
  for (let i = start; i < end; i++) text += String.fromCharCode(bytes[i])
  return text
}
