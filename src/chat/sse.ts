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

type Next<T> = IteratorResult<T> | { timedOut: true }

/**
 * Turns provider chunks into an SSE `Response`, deciding first whether the response can
 * still be an HTTP error: it waits for the first chunk until the first keep-alive tick.
 * A failure in that window is thrown (the route answers with a JSON error and a status);
 * once the tick passes or a chunk arrives, the response is committed as a 200 stream and
 * later failures become a `data: {"error":…}` event followed by close, without `[DONE]`.
 *
 * The stream is pull-driven, so a slow client slows the provider instead of queueing chunks.
 */
export async function openEventStream<T>(chunks: AsyncIterable<T>, options: EventStreamOptions): Promise<Response> {
  const { state, abort } = options
  const keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS
  const iterator = chunks[Symbol.asyncIterator]()
  let pending: Promise<IteratorResult<T>> | undefined
  let finished = false
  let closed = false

  const close = () => {
    finished = true
    if (closed) return
    closed = true
    options.onClose?.()
  }
  const stop = () => {
    close()
    abort.abort()
    iterator.return?.().catch(() => {})
  }
  const next = (): Promise<Next<T>> => {
    if (!pending) {
      pending = iterator.next()
      // A stream cancelled while a chunk is awaited would otherwise leave an unhandled rejection.
      pending.catch(() => {})
    }
    return withTimeout(pending, keepAliveMs)
  }

  let first: Next<T>
  try {
    first = await next()
  } catch (error) {
    abort.abort()
    close()
    throw error
  }
  state.committed = true

  const encodeResult = (result: Next<T>, controller: ReadableStreamDefaultController<Uint8Array>) => {
    if ('timedOut' in result) return controller.enqueue(KEEP_ALIVE)
    pending = undefined
    if (result.done) {
      close()
      controller.enqueue(DONE)
      return controller.close()
    }
    controller.enqueue(encodeEvent(result.value))
  }

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      encodeResult(first, controller)
    },
    async pull(controller) {
      if (finished) return
      try {
        encodeResult(await next(), controller)
      } catch (error) {
        if (finished) return
        options.onStreamError?.(error)
        controller.enqueue(encodeEvent(openAIErrorBody(toOpenAIError(error))))
        controller.close()
        stop()
      }
    },
    cancel() {
      stop()
    },
  })
  return new Response(body, { status: 200, headers: SSE_HEADERS })
}

/** Resolves with the promise's result, or `{timedOut: true}` after `ms`; the promise keeps running. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | { timedOut: true }> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const tick = new Promise<{ timedOut: true }>((resolve) => {
    timer = setTimeout(() => resolve({ timedOut: true }), ms)
  })
  return Promise.race([promise, tick]).finally(() => clearTimeout(timer))
}
