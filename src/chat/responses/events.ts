import {
  type ChatCompletionChunk,
  type ChunkTranslator,
  isObject,
  type JsonObject,
  noteChunk,
  type StreamReport,
} from '../providers/provider'
import { SseDataDecoder } from '../sse/decoder'
import { endingOf, responseObject, type ResponseFields, unixSeconds, usageOf } from './answer'
import { scanTextChunk, TextChunk, TextChunkMemo } from './chunk-splice'
import { renamed } from './errors'
import { event, OutputWriter, type Sequence } from './output'
import type { NamespacedName } from './translate'

export type { Sequence } from './output'

/*
 * A chat chunk stream as the Responses API's events, made as the chunks arrive:
 * `response.created` and `response.in_progress` once the first chunk is in (so that a failure
 * before it can still be retried or fall back), then the output items' events (output.ts), and at
 * the end `response.completed` (or `response.incomplete`) with the whole output and the usage.
 *
 * A provider's chunks come either as the bytes of its events, read by read ({@link translatedEvents},
 * what every built-in provider gives), or as parsed chunks ({@link responseEvents}); both ways
 * translate each chunk alike ({@link Translation}).
 */

const utf8 = new TextDecoder()

/** What a stream's end needs from the route: storing the response before it is announced. */
export type StreamEnd = {
  fields: ResponseFields
  namespaced: ReadonlyMap<string, NamespacedName>
  /** The Responses name of a chat parameter that a provider's error names (see errors.ts `renamed`). */
  param: (chat: string) => string | undefined
  /** Kept before `response.completed` goes out, so that a client may continue from it at once. */
  store?: (response: JsonObject) => Promise<void>
}

/** One stream's translation, chunk by chunk, into its writer's scratch (see {@link OutputWriter.take}). */
class Translation {
  readonly writer: OutputWriter
  started = false
  /** The terminal event is written. */
  ended = false
  readonly #end: StreamEnd
  readonly #sequence: Sequence
  readonly #report: StreamReport

  constructor(end: StreamEnd, sequence: Sequence, report: StreamReport, maxHeld: number) {
    this.writer = new OutputWriter(sequence, end.namespaced, maxHeld)
    this.#end = end
    this.#sequence = sequence
    this.#report = report
  }

  /** The first two events, once the first chunk (or the end) is in. */
  begin(): void {
    this.started = true
    const started = `"response":${JSON.stringify(responseObject(this.#end.fields, { status: 'in_progress' }, []))}`
    this.writer.write(
      event(this.#sequence, 'response.created', started) + event(this.#sequence, 'response.in_progress', started),
    )
  }

  /** The events of one chunk (after the first two, for the first); a chunk that fails writes nothing. */
  chunk(chunk: ChatCompletionChunk): void {
    const mark = this.writer.mark()
    try {
      if (!this.started) this.begin()
      const report = this.#report
      const finishReason = report.finishReason
      noteChunk(report, chunk)
      const choice = firstChoice(chunk.choices)
      // Another choice's finish reason is not this response's.
      if (chunk.choices?.[0] !== choice) report.finishReason = finishReason
      if (choice) this.writer.chunk(choice)
    } catch (error) {
      this.writer.rollBack(mark)
      throw error
    }
  }

  /** The items' last events; what ends the Response, and the Response (without its output). */
  finish(): { type: string; response: JsonObject } {
    if (!this.started) this.begin()
    const ending = endingOf(this.#report.finishReason)
    this.writer.finish(ending.status === 'incomplete' ? 'incomplete' : 'completed')
    const response = responseObject(this.#end.fields, ending, [], usageOf(this.#report.usage), unixSeconds())
    const type = ending.status === 'incomplete' ? 'response.incomplete' : 'response.completed'
    return { type, response }
  }

  /** The end whole, when nothing is stored; a failure writes nothing. */
  endNow(): void {
    const mark = this.writer.mark()
    try {
      const { type, response } = this.finish()
      this.writer.completed(type, response)
      this.ended = true
    } catch (error) {
      this.writer.rollBack(mark)
      throw error
    }
  }
}

/**
 * The end of a stream: the items' last events, then (once the response is kept, when it is) the
 * terminal event. The items' last events go out first when storing, so that an error event for a
 * failed store is numbered after them.
 */
async function* ending(translation: Translation, end: StreamEnd): AsyncGenerator<Uint8Array> {
  const writer = translation.writer
  const { type, response } = translation.finish()
  if (end.store) {
    const items = writer.take()
    if (items.length > 0) yield items
    await end.store({ ...response, output: writer.output() })
  }
  writer.completed(type, response)
  yield writer.take()
}

/**
 * The events of `chunks`. Each yielded item is the events one chunk made. `maxHeld`: the most bytes
 * of tool-call arguments held back while a call waits for its name (the response's own cap).
 */
export async function* responseEvents(
  chunks: AsyncIterable<ChatCompletionChunk>,
  end: StreamEnd,
  sequence: Sequence,
  report: StreamReport,
  maxHeld: number,
): AsyncGenerator<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]()
  const translation = new Translation(end, sequence, report, maxHeld)
  try {
    let result = await iterator.next()
    while (!result.done) {
      translation.chunk(result.value)
      const bytes = translation.writer.take()
      if (bytes.length > 0) yield bytes
      result = await iterator.next()
    }
    yield* ending(translation, end)
  } catch (error) {
    throw renamed(error, end.param)
  } finally {
    await iterator.return?.()
  }
}

/** How a provider's chunk stream reaches {@link translatedEvents}: through a translator, or as event bytes. */
export type ChunkSource =
  | { through: (translator: ChunkTranslator) => AsyncIterable<Uint8Array> }
  | { events: AsyncIterable<Uint8Array> }

/**
 * The events of a provider's chunk events (`ChatProvider.streamEvents`: each item whole `data:
 * <one-line JSON>\n\n` events, what one upstream read completed), each read's chunks translated into
 * one item, sent as soon as the read is; a read that makes nothing sends nothing. A chunk that says
 * only text is translated on its bytes (chunk-splice.ts), any other is parsed; a relay that takes a
 * translator (`ChatProvider.streamTranslated`) lets it claim text chunks before its own check, so
 * that they are read once. The same events as {@link responseEvents} of the same chunks parsed,
 * byte for byte.
 */
export function translatedEvents(
  source: ChunkSource,
  end: StreamEnd,
  sequence: Sequence,
  report: StreamReport,
  maxHeld: number,
): AsyncIterableIterator<Uint8Array> {
  const translation = new Translation(end, sequence, report, maxHeld)
  const through = 'through' in source
  // Through a relay and with nothing to store, the end is made with the last read's events: after the first item, the
  // relay's items are the stream's, with nothing between.
  const direct = through && !end.store
  const translator = new ReadTranslator(translation, report, direct)
  const items = through ? source.through(translator) : source.events
  return new TranslatedEvents(items[Symbol.asyncIterator](), through ? undefined : translator, direct, translation, end)
}

const LF = 0x0a
const DATA_PREFIX = [0x64, 0x61, 0x74, 0x61, 0x3a, 0x20] // `data: `
const DONE = '[DONE]'
const found = new TextChunk()

/** One stream's chunks, read by read, into the bytes of their events (see {@link translatedEvents}). */
class ReadTranslator implements ChunkTranslator {
  failure: { error: unknown } | undefined
  readonly #translation: Translation
  readonly #report: StreamReport
  readonly #memo = new TextChunkMemo()
  /** Set once an item left the usual form: everything after it is decoded as any event stream is. */
  #decoder: SseDataDecoder | undefined
  #items = 0
  /** The end is made when the last event is in (see {@link finish}), not after the stream. */
  readonly #endAtLast: boolean

  constructor(translation: Translation, report: StreamReport, endAtLast: boolean) {
    this.#translation = translation
    this.#report = report
    this.#endAtLast = endAtLast
  }

  claim(bytes: Uint8Array, start: number, end: number): boolean {
    if (this.failure) return true
    if (!scanTextChunk(bytes, start, end, found, this.#memo)) return false
    const translation = this.#translation
    if (!translation.started) translation.begin()
    // What noteChunk learns of it: one more content event, nothing else.
    this.#report.events++
    translation.writer.spliced(bytes, found)
    return true
  }

  events(bytes: Uint8Array): void {
    if (bytes.length === 0 || this.failure) return
    const first = this.#items++ === 0
    if (this.#decoder) return this.#decoded(this.#decoder.push(bytes))
    let at = 0
    while (at < bytes.length && !this.failure) {
      const dataStart = at + DATA_PREFIX.length
      const lineEnd = isDataLine(bytes, at) ? bytes.indexOf(LF, dataStart) : -1
      if (lineEnd === -1 || bytes[lineEnd + 1] !== LF) {
        this.#decoder = new SseDataDecoder({ midStream: !first || at > 0 })
        return this.#decoded(this.#decoder.push(bytes.subarray(at)))
      }
      at = lineEnd + 2
      if (!this.claim(bytes, dataStart, lineEnd)) this.#parsed(utf8.decode(bytes.subarray(dataStart, lineEnd)))
    }
  }

  finish(): void {
    if (this.failure || !this.#endAtLast) return
    try {
      this.#translation.endNow()
    } catch (error) {
      this.failure = { error }
    }
  }

  take(): Uint8Array {
    return this.#translation.writer.take()
  }

  #decoded(events: string[]): void {
    for (const data of events) {
      if (this.failure) return
      this.#parsed(data)
    }
  }

  /** A chunk the parsed way; a failure (which wrote nothing) is kept. */
  #parsed(data: string): void {
    if (data === DONE) return
    try {
      this.#translation.chunk(JSON.parse(data) as ChatCompletionChunk)
    } catch (error) {
      this.failure = { error }
    }
  }
}

/**
 * {@link translatedEvents}, as a plain iterator: one `then` per read, no generator frame on the
 * way of each. Items come translated (`translator` undefined) or as event bytes for `translator`. A
 * failure ends the stream after the events its read made before it, as one item a chunk would.
 * With `direct`, items after the first are the source's own, handed on without a step of this
 * iterator's (the source's last item holds the end; a failure after the first byte names no
 * parameter, so nothing is renamed).
 */
class TranslatedEvents implements AsyncIterableIterator<Uint8Array> {
  readonly #source: AsyncIterator<Uint8Array>
  readonly #translator: ReadTranslator | undefined
  readonly #direct: boolean
  /** The first item is in: with {@link #direct}, the source's items are handed on as they are. */
  #opened = false
  readonly #translation: Translation
  readonly #end: StreamEnd
  /** A failure to throw once the events before it are out. */
  #failure: { error: unknown } | undefined
  #ending: AsyncGenerator<Uint8Array> | undefined
  #stopped = false

  constructor(
    source: AsyncIterator<Uint8Array>,
    translator: ReadTranslator | undefined,
    direct: boolean,
    translation: Translation,
    end: StreamEnd,
  ) {
    this.#source = source
    this.#translator = translator
    this.#direct = direct
    this.#translation = translation
    this.#end = end
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    if (this.#opened) return this.#source.next()
    if (this.#ending) return this.#ending.next().catch(this.#onError)
    if (this.#failure) return this.#fail(this.#failure.error)
    if (this.#stopped) return Promise.resolve({ done: true, value: undefined })
    return this.#source.next().then(this.#onRead, this.#onError)
  }

  readonly #onRead = (
    result: IteratorResult<Uint8Array>,
  ): IteratorResult<Uint8Array> | Promise<IteratorResult<Uint8Array>> => {
    if (result.done) {
      if (this.#translation.ended) return result
      this.#ending = ending(this.#translation, this.#end)
      return this.#ending.next().catch(this.#onError)
    }
    const translator = this.#translator
    if (!translator) {
      this.#opened = this.#direct
      return result
    }
    translator.events(result.value)
    const bytes = translator.take()
    this.#failure = translator.failure
    if (bytes.length === 0) return this.#failure ? this.#fail(this.#failure.error) : this.next()
    return { done: false, value: bytes }
  }

  readonly #onError = (error: unknown): Promise<never> => this.#fail(error)

  /** Releases the provider's stream, then throws `error` as the route must see it. */
  async #fail(error: unknown): Promise<never> {
    this.#failure = undefined
    this.#stopped = true
    this.#ending = undefined
    await this.#source.return?.()
    throw renamed(error, this.#end.param)
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    this.#stopped = true
    this.#failure = undefined
    const ending = this.#ending
    this.#ending = undefined
    await ending?.return(undefined)
    await this.#source.return?.()
    return { done: true, value: undefined }
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Uint8Array> {
    return this
  }
}

function isDataLine(bytes: Uint8Array, at: number): boolean {
  for (let k = 0; k < DATA_PREFIX.length; k++) if (bytes[at + k] !== DATA_PREFIX[k]) return false
  return true
}

/** Choice 0 (an upstream asked for one choice may still send others, whose text must not run into it). */
function firstChoice(choices: unknown): JsonObject | undefined {
  if (!Array.isArray(choices)) return undefined
  // Almost always the first and only one: looked at before any search.
  const first: unknown = choices[0]
  if (isObject(first) && (first.index === 0 || first.index === undefined)) return first
  const choice: unknown = choices.find(
    (candidate) => isObject(candidate) && (candidate.index === 0 || candidate.index === undefined),
  )
  return isObject(choice) ? choice : undefined
}
