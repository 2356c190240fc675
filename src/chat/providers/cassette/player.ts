import type { UpstreamFetch } from '../upstream-fetch'
import type { Cassette, Exchange, RecordedResponse } from './format'
import type { ExchangeClock } from './recorder'
import { differences, distance, matchKey, normalised } from './match'

/** How replay paces what it serves: as recorded, at once, or every wait multiplied by `scale`. */
export type Timing = 'original' | 'none' | { scale: number }

/** What a player needs besides its cassette. */
export type Playback = {
  /** The cassette's file, as messages name it. */
  file: string
  /** The prefix the provider puts before each path; what follows it is matched against the recorded paths. */
  baseUrl: string
  ignored: readonly string[]
  timing: Timing
  /** Set to each exchange's recorded time as it is served: the provider's clock. */
  clock: ExchangeClock
}

type Recorded = { line: number; exchange: Exchange; body: unknown }

const utf8 = new TextEncoder()

/**
 * `fetch` that answers from a cassette instead of a network. A request matches a recorded one with the same method,
 * path and normalised body (see ./match.ts); the n-th request that matches a set of identical recorded requests gets
 * the n-th of them (a 429 recorded before its successful retry replays as a 429, then the success), the last one
 * again once they are used up. Its status, headers and body come back as recorded: a stream event by event, each at
 * its recorded time (scaled by `timing`), a broken body breaking at the same point, an unreachable upstream as a
 * failed fetch. A request that matches nothing gets a 400 naming the nearest recorded request and how it differs,
 * which the provider passes on as the client's `invalid_request_error`.
 */
export function replayFetch(cassette: Cassette, playback: Playback): UpstreamFetch {
  const recorded: Recorded[] = cassette.exchanges.map(({ line, exchange }) => ({
    line,
    exchange,
    body: normalised(exchange.request.body, playback.ignored),
  }))
  const byKey = new Map<string, Recorded[]>()
  for (const entry of recorded) {
    const key = matchKey(entry.exchange.request.method, entry.exchange.request.path, entry.body)
    byKey.set(key, [...(byKey.get(key) ?? []), entry])
  }
  const served = new Map<string, number>()
  const factor = playback.timing === 'original' ? 1 : playback.timing === 'none' ? 0 : playback.timing.scale
  return async (url, init) => {
    const started = performance.now()
    const path = url.startsWith(playback.baseUrl) ? url.slice(playback.baseUrl.length) : url
    const body = normalised(parse(init.body), playback.ignored)
    const key = matchKey(init.method, path, body)
    const entries = byKey.get(key)
    if (!entries) return miss(playback.file, recorded, init.method, path, body)
    const count = served.get(key) ?? 0
    served.set(key, count + 1)
    const { exchange } = entries[Math.min(count, entries.length - 1)]!
    playback.clock.set(new Date(exchange.at))
    const at = (ms: number) => waitUntil(started + ms * factor, init.signal)
    if (!exchange.response) {
      await at(exchange.unreachable?.ms ?? 0)
      throw new TypeError(`replayed from ${playback.file}: the upstream could not be reached when this was recorded`)
    }
    const response = exchange.response
    await at(response.ms)
    return new Response(replayedBody(response, at, playback.file), {
      status: response.status,
      headers: response.headers,
    })
  }
}

/** The recorded body as a stream that hands over each part at its time, and breaks where the recording broke. */
function replayedBody(
  response: RecordedResponse,
  at: (ms: number) => Promise<void>,
  file: string,
): ReadableStream<Uint8Array> {
  const parts =
    response.events ??
    (response.json !== undefined
      ? [{ ms: response.bodyMs ?? response.ms, data: JSON.stringify(response.json) }]
      : [{ ms: response.bodyMs ?? response.ms, data: response.text ?? '' }])
  let next = 0
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const part = parts[next++]
          if (part) {
            await at(part.ms)
            if (part.data !== '') controller.enqueue(utf8.encode(part.data))
            return
          }
          if (response.broken) {
            await at(response.broken.ms)
            controller.error(new TypeError(`replayed from ${file}: the connection broke here when this was recorded`))
          } else controller.close()
        } catch (error) {
          controller.error(error)
        }
      },
    },
    { highWaterMark: 0 },
  )
}

function parse(body: string | undefined): unknown {
  if (body === undefined) return null
  try {
    return JSON.parse(body)
  } catch {
    return body
  }
}

/**
 * The answer to a request the cassette does not hold: a 400 in the shape both OpenAI's and Anthropic's error mappers
 * read (`error.message`, `error.type`), naming the nearest recorded request (same method and path first, then the
 * fewest differing fields) and up to three of its differences.
 */
function miss(file: string, recorded: Recorded[], method: string, path: string, body: unknown): Response {
  const samePath = recorded.filter((entry) => entry.exchange.request.path === path)
  const pool = samePath.length > 0 ? samePath : recorded
  let nearest: Recorded | undefined
  let best = Number.POSITIVE_INFINITY
  for (const entry of pool) {
    const far = distance(entry.body, body)
    if (far < best) [nearest, best] = [entry, far]
  }
  let message = `No exchange recorded in ${file} matches this request (${method} ${path})`
  if (!nearest) message += '; the cassette holds none.'
  else if (samePath.length === 0)
    message +=
      `; none was recorded for ${path}` + ` (the nearest, line ${nearest.line}, is ${nearest.exchange.request.path}).`
  else message += `; the nearest, line ${nearest.line}, differs at ${differences(nearest.body, body).join('; ')}.`
  const error = { type: 'invalid_request_error', code: 'cassette_miss', param: null, message }
  return new Response(JSON.stringify({ type: 'error', error }), {
    status: 400,
    headers: { 'content-type': 'application/json' },
  })
}

/** Resolves at `deadline` (a `performance.now()` time), at once if it has passed; rejects when `signal` aborts. */
function waitUntil(deadline: number, signal: AbortSignal | undefined): Promise<void> {
  const ms = deadline - performance.now()
  if (signal?.aborted) return Promise.reject(signal.reason)
  if (ms <= 0) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
