import { openAIErrorBody, toOpenAIError } from './openai-error'
import { encodeEvent } from './providers/sse-encode'
import { watchSilence } from './silence'

/*
 * Server-sent events exactly as OpenAI clients parse them: every event is
 * `data: <one-line JSON>\n\n` (see providers/sse-encode.ts), the stream ends with
 * `data: [DONE]\n\n`, and waiting is filled with `: keep-alive\n\n` comments.
 * Everything is written as bytes, because Deno rejects string chunks.
 *
 * Elysia's generator streaming is not used: an error thrown after its first yield never
 * reaches onError, and the protocol needs a different answer before and after the first byte.
 */

const encoder = new TextEncoder()
const KEEP_ALIVE = encoder.encode(': keep-alive\n\n')
const DONE = encoder.encode('data: [DONE]\n\n')

/** The headers of every event stream. Compression is never applied: it would hold bytes back. */
export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
}

/** Default pause, in ms, after which a waiting stream sends `: keep-alive`. */
export const KEEP_ALIVE_MS = 15_000

export type EventStreamOptions = {
  /** Set to true the moment the first byte is handed to the client; the registry stops retrying then. */
  state: { committed: boolean }
  /** Aborted when the client goes away, so the provider releases its upstream. */
  abort: AbortController
  keepAliveMs?: number
  /** Told about failures after the first byte, which the client only sees as an error event. */
  onStreamError?: (error: unknown) => void
  /** Called once when the stream ends, whether finished, failed or cancelled. */
  onClose?: () => void
}

/**
 * Turns a provider's events (see `ModelRegistry.streamEvents`) into an SSE `Response`, deciding
 * first whether the response can still be an HTTP error: it waits for the first item until the
 * first keep-alive is due. A failure in that window is thrown (the route answers with a JSON
 * error and a status); once a keep-alive or an item is sent, the response is committed as a
 * 200 stream and later failures become a `data: {"error":…}` event followed by close, without
 * `[DONE]`.
 *
 * Each item (one or more whole events, for a relay what one upstream read completed) is one
 * write. An item that ends with `data: [DONE]` ends the stream at once, so a relay that reads the
 * last events and the upstream's `[DONE]` together sends them and closes in one step; otherwise
 * `[DONE]` follows when the items run out. Items are pulled, so a slow client slows the provider
 * instead of queueing chunks. Keep-alives come from a shared sweep (`silence.ts`): a silent stream
 * sends one every 1 to 1.25 intervals.
 */
export async function openEventStream(events: AsyncIterable<Uint8Array>, options: EventStreamOptions): Promise<Response> {
  const { state, abort } = options
  const keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS
  const iterator = events[Symbol.asyncIterator]()
  let closed = false
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined
  /** Until the response is committed, silence means: commit with a keep-alive now. */
  let onSilence = () => {}
  const watched = { lastActiveAt: performance.now(), onSilence: () => onSilence() }
  const unwatch = watchSilence(keepAliveMs, watched)

  const close = () => {
    if (closed) return
    closed = true
    unwatch()
    options.onClose?.()
  }
  const stop = () => {
    close()
    abort.abort()
    iterator.return?.().catch(() => {})
  }

  const pending = iterator.next()
  // A stream cancelled while an item is awaited would otherwise leave an unhandled rejection.
  pending.catch(() => {})
  let first: IteratorResult<Uint8Array> | undefined
  try {
    first = await new Promise<IteratorResult<Uint8Array> | undefined>((resolve, reject) => {
      onSilence = () => resolve(undefined)
      pending.then(resolve, reject)
    })
  } catch (error) {
    abort.abort()
    close()
    throw error
  }
  state.committed = true

  const write = (bytes: Uint8Array) => {
    controller!.enqueue(bytes)
    watched.lastActiveAt = performance.now()
  }
  onSilence = () => {
    if (closed) return
    try {
      write(KEEP_ALIVE)
    } catch {
      // The consumer went away without cancel() reaching us: stop like a cancel would.
      stop()
    }
  }
  /** Writes an item, or `[DONE]` and the end of the stream. */
  const writeResult = (result: IteratorResult<Uint8Array>) => {
    if (!result.done) {
      if (result.value.length === 0) return
      write(result.value)
      if (!endsWithDone(result.value)) return
      close()
      controller!.close()
      // The provider has nothing more to say; let it release what it holds.
      iterator.return?.().catch(() => {})
      return
    }
    close()
    controller!.enqueue(DONE)
    controller!.close()
  }
  const fail = (error: unknown) => {
    if (closed) return
    options.onStreamError?.(error)
    controller!.enqueue(encodeEvent(openAIErrorBody(toOpenAIError(error))))
    controller!.close()
    stop()
  }

  let awaitingFirst = first === undefined
  const body = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController
      if (first) return writeResult(first)
      write(KEEP_ALIVE)
    },
    async pull() {
      if (closed) return
      try {
        let result = awaitingFirst ? await pending : await iterator.next()
        awaitingFirst = false
        // A pull that enqueues nothing is not called again, so an empty item must not end one.
        while (!closed && !result.done && result.value.length === 0) result = await iterator.next()
        if (!closed) writeResult(result)
      } catch (error) {
        fail(error)
      }
    },
    cancel() {
      stop()
    },
  })
  return new Response(body, { status: 200, headers: SSE_HEADERS })
}

/** Whether `bytes` end with the `data: [DONE]\n\n` event. */
function endsWithDone(bytes: Uint8Array): boolean {
  if (bytes.length < DONE.length) return false
  const offset = bytes.length - DONE.length
  for (let i = 0; i < DONE.length; i++) if (bytes[offset + i] !== DONE[i]) return false
  return true
}
