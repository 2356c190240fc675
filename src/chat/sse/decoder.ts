import { createParser, type EventSourceParser } from 'eventsource-parser'

/** Thrown by {@link SseDataDecoder.push} when an event grows past its limit before it ends. */
export class EventTooLarge extends Error {
  /** `completed`: the events the same read finished before the one that grew too large; they are still the client's. */
  constructor(
    readonly limit: number,
    readonly completed: string[] = [],
  ) {
    super(`an event grew past ${limit} characters before it ended`)
    this.name = 'EventTooLarge'
  }
}

/**
 * The data payloads of a server-sent event stream, decoded by `eventsource-parser` (the WHATWG
 * event-stream grammar: CRLF, LF or CR line ends, also split across reads; comments; several
 * `data:` lines joined with `\n`; other fields ignored), with UTF-8 split across reads
 * reassembled. What an unfinished event may hold back is capped at `maxEventChars`: past it,
 * `push` throws {@link EventTooLarge}, so an upstream cannot make the relay buffer without end.
 *
 * @example
 * const decoder = new SseDataDecoder({ maxEventChars: 1 << 20 })
 * for (const data of decoder.push(bytes)) if (data !== '[DONE]') handle(JSON.parse(data))
 */
export class SseDataDecoder {
  // The BOM is the parser's to strip: Bun's streaming TextDecoder keeps one that arrives split.
  readonly #text = new TextDecoder('utf-8', { ignoreBOM: true })
  readonly #parser: EventSourceParser
  readonly #limit: number
  #events: string[] = []
  #overflow = false

  /** With `midStream`, decoding starts at an event boundary inside a stream, where a BOM is an ordinary character. */
  constructor(options: { midStream?: boolean; maxEventChars?: number } = {}) {
    this.#limit = options.maxEventChars ?? Number.POSITIVE_INFINITY
    this.#parser = createParser({
      onEvent: (event) => void this.#events.push(event.data),
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') this.#overflow = true
      },
      maxBufferSize: Number.isFinite(this.#limit) ? this.#limit : undefined,
    })
    // A blank line ends the parser's look for a leading BOM and dispatches nothing.
    if (options.midStream) this.#parser.feed('\n')
  }

  /** Feeds one read; returns the data of every event it completes, in order. */
  push(bytes: Uint8Array): string[] {
    return this.#feed(this.#text.decode(bytes, { stream: true }))
  }

  /** Ends the stream. An event without its closing blank line is dropped, as the standard says. */
  end(): string[] {
    const events = this.#feed(this.#text.decode())
    this.#parser.reset()
    return events
  }

  #feed(text: string): string[] {
    if (text.length > 0) this.#parser.feed(text)
    const events = this.#events
    if (this.#overflow) {
      this.#events = []
      throw new EventTooLarge(this.#limit, events)
    }
    if (events.length > 0) this.#events = []
    return events
  }
}
