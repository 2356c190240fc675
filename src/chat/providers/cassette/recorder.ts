import type { UpstreamFetch } from '../upstream-fetch'
import type { Exchange, RecordedResponse } from './format'
import type { CassetteWriter, Redaction } from './writer'

/** Response headers that describe how the original body travelled, not the body a replay hands over. */
const TRANSFER_HEADERS = new Set([
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
])

/**
 * Where one recording writes, and what it keeps out. `clock` is the time the last exchange began, as the wrapped
 * provider reads it (see `Exchange.at`); `now` the time that stamps it.
 */
export type Recording = {
  baseUrl: string
  writer: CassetteWriter
  redaction: Redaction
  clock: ExchangeClock
  now: () => Date
}

/**
 * The time of the exchange being served, for the provider's clock: the same reading while recording and replaying.
 * Exchanges served at once share it (the last one begun sets it); a provider stamps its answers in whole seconds.
 */
export class ExchangeClock {
  #at: Date | undefined
  set(at: Date): void {
    this.#at = at
  }
  readonly read = (): Date => this.#at ?? new Date()
}

/**
 * `fetch` that records every exchange it carries to a cassette: the request as the provider sent it (its path after
 * `baseUrl`, redacted headers, the JSON body), the status and redacted headers, and the body as the provider reads
 * it, with when each part arrived. Nothing is held back or changed on the way: the provider reads the same bytes at
 * the same moments as without it. The exchange is written once its body has ended (the provider read it to the end
 * or stopped after its format's last event) or broke; an exchange the caller abandoned (a client that went away, a
 * timeout) is not written, since its end was never seen.
 */
export function recordingFetch(fetch: UpstreamFetch, recording: Recording): UpstreamFetch {
  return async (url, init) => {
    const started = performance.now()
    const since = () => Math.round(performance.now() - started)
    const at = recording.now()
    recording.clock.set(at)
    const request: Exchange['request'] = {
      method: init.method,
      path: url.startsWith(recording.baseUrl) ? url.slice(recording.baseUrl.length) : url,
      headers: recording.redaction.headers(Object.entries(init.headers)),
      body: bodyOf(init.body),
    }
    const write = (exchange: Exchange) => {
      if (!init.signal?.aborted) recording.writer.write(exchange, recording.redaction)
    }
    let response: Response
    try {
      response = await fetch(url, init)
    } catch (error) {
      write({ at: at.toISOString(), request, unreachable: { ms: since() } })
      throw error
    }
    const headers = recording.redaction.headers(
      [...response.headers].filter(([name]) => !TRANSFER_HEADERS.has(name.toLowerCase())),
    )
    const recorded: RecordedResponse = { status: response.status, ms: since(), headers }
    const stream = response.headers.get('content-type')?.includes('text/event-stream') === true
    if (!response.body) {
      write({ at: at.toISOString(), request, response: { ...recorded, text: '', bodyMs: recorded.ms } })
      return response
    }
    const body = tapped(response.body, stream, since, recording.writer, (parts, broken) => {
      const whole = stream ? { events: parts.events } : bodyParts(parts.text, parts.endMs)
      const response = { ...recorded, ...whole, ...(broken === undefined ? {} : { broken }) }
      write({ at: at.toISOString(), request, response })
    })
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
  }
}

/** A request body as recorded: the JSON value it holds (readable), or its text if it is not JSON. */
function bodyOf(body: string | undefined): unknown {
  if (body === undefined) return null
  try {
    return JSON.parse(body)
  } catch {
    return body
  }
}

/** A whole body: as `json` when that value's compact text is exactly the body (replay writes it back), else `text`. */
function bodyParts(text: string, endMs: number): Partial<RecordedResponse> {
  try {
    const json: unknown = JSON.parse(text)
    if (JSON.stringify(json) === text) return { json, bodyMs: endMs }
  } catch {}
  return { text, bodyMs: endMs }
}

type Parts = { events: { ms: number; data: string }[]; text: string; endMs: number }

/** The end of an SSE event: a blank line, in any of the line endings the format allows. */
const EVENT_END = /\r\n\r\n|\n\n|\r\r/

/**
 * `source` read on demand (nothing is read ahead of the provider), its parts collected as they pass: whole events of
 * a stream, each with when it was complete, or the whole text of any other body. `done` is called once, when the
 * body ended, was cancelled by its reader (the provider's "that was the last event"), or broke (`broken`). Parts
 * past the cassette's room are not kept, and the exchange is then not written.
 */
function tapped(
  source: ReadableStream<Uint8Array>,
  stream: boolean,
  since: () => number,
  writer: CassetteWriter,
  done: (parts: Parts, broken?: { ms: number }) => void,
): ReadableStream<Uint8Array> {
  const reader = source.getReader()
  const decoder = new TextDecoder()
  const parts: Parts = { events: [], text: '', endMs: 0 }
  let pending = ''
  let kept = 0
  const room = writer.room()
  let finished = false
  const take = (text: string) => {
    kept += text.length
    if (!stream) parts.text += text
    else {
      pending += text
      for (let end = EVENT_END.exec(pending); end; end = EVENT_END.exec(pending)) {
        const length = end.index + end[0].length
        parts.events.push({ ms: since(), data: pending.slice(0, length) })
        pending = pending.slice(length)
      }
    }
  }
  const finish = (broken?: { ms: number }) => {
    if (finished) return
    finished = true
    take(decoder.decode())
    // What was read of an event the stream never finished is kept as it came: a replay breaks off at the same byte.
    if (pending !== '') parts.events.push({ ms: since(), data: pending })
    parts.endMs = since()
    if (kept > room) writer.full()
    else done(parts, broken)
  }
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let read: Awaited<ReturnType<typeof reader.read>>
        try {
          read = await reader.read()
        } catch (error) {
          finish({ ms: since() })
          controller.error(error)
          return
        }
        if (read.done) {
          finish()
          controller.close()
          return
        }
        if (kept <= room) take(decoder.decode(read.value, { stream: true }))
        controller.enqueue(read.value)
      },
      cancel(reason) {
        finish()
        return reader.cancel(reason)
      },
    },
    { highWaterMark: 0 },
  )
}
