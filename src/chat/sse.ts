import { openAIErrorBody, toOpenAIError } from './openai-error'

/*
 * Server-sent events exactly as OpenAI clients parse them: every event is
 * `data: <one-line JSON>\n\n` (JSON.stringify never emits a raw newline), the stream
 * ends with `data: [DONE]\n\n`, and waiting is filled with `: keep-alive\n\n` comments.
 * Bytes are encoded here, because Deno rejects string chunks.
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

/** One event: `data: <json>\n\n` as bytes. */
export function encodeEvent(data: unknown): Uint8Array {
  return encoder.encode(`data: ${JSON.stringify(data)}\n\n`)
}

/** Several events as one write, byte for byte what {@link encodeEvent} gives for each in turn. */
export function encodeEvents(batch: readonly unknown[]): Uint8Array {
  if (batch.length === 1) return encodeEvent(batch[0])
  let text = ''
  for (const data of batch) text += `data: ${JSON.stringify(data)}\n\n`
  return encoder.encode(text)
}

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
 * Turns batches of provider chunks into an SSE `Response`, deciding first whether the response can
 * still be an HTTP error: it waits for the first chunk until the first keep-alive tick.
 * A failure in that window is thrown (the route answers with a JSON error and a status);
 * once the tick passes or a chunk arrives, the response is committed as a 200 stream and
 * later failures become a `data: {"error":…}` event followed by close, without `[DONE]`.
 *
 * Each batch (what one upstream read completed; see `ModelRegistry.streamBatches`) is one
 * write, its events in order. Batches are pulled, so a slow client slows the provider instead
 * of queueing chunks.
 * Keep-alives come from one timer per stream, checked every quarter interval, rather than
 * racing a fresh timer against every chunk (a timer and two promises per event, times
 * thousands of streams). So a silent stream sends one every 1 to 1.25 intervals.
 */
export async function openEventStream<T>(batches: AsyncIterable<readonly T[]>, options: EventStreamOptions): Promise<Response> {
  const { state, abort } = options
  const keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS
  const iterator = batches[Symbol.asyncIterator]()
  let closed = false
  let ticker: ReturnType<typeof setInterval> | undefined

  const close = () => {
    if (closed) return
    closed = true
    clearInterval(ticker)
    options.onClose?.()
  }
  const stop = () => {
    close()
    abort.abort()
    iterator.return?.().catch(() => {})
  }

  const pending = iterator.next()
  // A stream cancelled while a chunk is awaited would otherwise leave an unhandled rejection.
  pending.catch(() => {})
  let first: IteratorResult<readonly T[]> | undefined
  try {
    first = await beforeTimeout(pending, keepAliveMs)
  } catch (error) {
    abort.abort()
    close()
    throw error
  }
  state.committed = true

  let lastWriteAt = 0
  const write = (controller: ReadableStreamDefaultController<Uint8Array>, bytes: Uint8Array) => {
    controller.enqueue(bytes)
    lastWriteAt = performance.now()
  }
  /** Writes a batch of chunks, or `[DONE]` and the end of the stream. */
  const writeResult = (controller: ReadableStreamDefaultController<Uint8Array>, result: IteratorResult<readonly T[]>) => {
    if (!result.done) {
      if (result.value.length > 0) write(controller, encodeEvents(result.value))
      return
    }
    close()
    controller.enqueue(DONE)
    controller.close()
  }
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, error: unknown) => {
    if (closed) return
    options.onStreamError?.(error)
    controller.enqueue(encodeEvent(openAIErrorBody(toOpenAIError(error))))
    controller.close()
    stop()
  }

  let awaitingFirst = first === undefined
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      ticker = setInterval(() => {
        if (closed || performance.now() - lastWriteAt < keepAliveMs) return
        try {
          write(controller, KEEP_ALIVE)
        } catch {
          // The consumer went away without cancel() reaching us: stop like a cancel would.
          stop()
        }
      }, Math.max(1, keepAliveMs / 4))
      if (first) return writeResult(controller, first)
      write(controller, KEEP_ALIVE)
    },
    async pull(controller) {
      if (closed) return
      try {
        let result = awaitingFirst ? await pending : await iterator.next()
        awaitingFirst = false
        // A pull that enqueues nothing is not called again, so an empty batch must not end one.
        while (!closed && !result.done && result.value.length === 0) result = await iterator.next()
        if (!closed) writeResult(controller, result)
      } catch (error) {
        fail(controller, error)
      }
    },
    cancel() {
      stop()
    },
  })
  return new Response(body, { status: 200, headers: SSE_HEADERS })
}

/** The promise's result, or undefined once `ms` pass first; the promise keeps running. */
function beforeTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const tick = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms)
  })
  return Promise.race([promise, tick]).finally(() => clearTimeout(timer))
}
