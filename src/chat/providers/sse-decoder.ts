/**
 * Incremental decoder of a server-sent event stream, reduced to what chat relays need: the data
 * payload of each event. Follows the WHATWG event-stream grammar: lines end in CRLF, LF or CR
 * (also when a CRLF is split across reads), `:` lines are comments, several `data:` lines join
 * with `\n`, a blank line dispatches, and other fields (`event:`, `id:`, `retry:`) are ignored.
 * UTF-8 sequences split across reads are reassembled.
 *
 * @example
 * const decoder = new SseDataDecoder()
 * for (const data of decoder.push(bytes)) if (data !== '[DONE]') handle(JSON.parse(data))
 */
export class SseDataDecoder {
  // The BOM is stripped by hand: Bun's streaming TextDecoder keeps it when it arrives split across reads.
  readonly #text = new TextDecoder('utf-8', { ignoreBOM: true })
  #started = false
  #pending = ''
  #data: string[] = []
  /** The previous read ended in CR, so an LF opening the next read ends no further line. */
  #afterCr = false

  /** With `midStream`, decoding starts at an event boundary inside a stream, where a BOM is not special. */
  constructor(options: { midStream?: boolean } = {}) {
    this.#started = options.midStream === true
  }

  /** Feeds one read; returns the data of every event it completes, in order. */
  push(bytes: Uint8Array): string[] {
    let text = this.#text.decode(bytes, { stream: true })
    if (text.length === 0) return []
    if (!this.#started) {
      this.#started = true
      if (text.charCodeAt(0) === BOM) text = text.slice(1)
    }
    if (this.#afterCr && text.charCodeAt(0) === LF) text = text.slice(1)
    this.#afterCr = false
    return this.#lines(this.#pending.length === 0 ? text : this.#pending + text)
  }

  /** Ends the stream. An event without its closing blank line is dropped, as the standard says. */
  end(): string[] {
    const rest = this.#text.decode()
    const events = rest.length === 0 ? [] : this.#lines(this.#pending + rest)
    this.#pending = ''
    this.#data = []
    return events
  }

  #lines(buffer: string): string[] {
    const events: string[] = []
    let start = 0
    let cr = buffer.indexOf('\r')
    let lf = buffer.indexOf('\n')
    while (cr !== -1 || lf !== -1) {
      const lineStart = start
      let end: number
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        end = cr
        if (cr + 1 === buffer.length) this.#afterCr = true
        start = buffer.charCodeAt(cr + 1) === LF ? cr + 2 : cr + 1
      } else {
        end = lf
        start = lf + 1
      }
      this.#line(buffer.slice(lineStart, end), events)
      if (cr !== -1 && cr < start) cr = buffer.indexOf('\r', start)
      if (lf !== -1 && lf < start) lf = buffer.indexOf('\n', start)
    }
    this.#pending = buffer.slice(start)
    return events
  }

  #line(line: string, events: string[]): void {
    if (line.length === 0) {
      if (this.#data.length > 0) {
        events.push(this.#data.length === 1 ? this.#data[0] : this.#data.join('\n'))
        this.#data = []
      }
      return
    }
    if (line.charCodeAt(0) === COLON) return
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    if (field !== 'data') return
    if (colon === -1) {
      this.#data.push('')
      return
    }
    const valueStart = line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1
    this.#data.push(line.slice(valueStart))
  }
}

const LF = 10
const BOM = 0xfeff
const SPACE = 32
const COLON = 58
