/**
 * The translated Responses stream alone, in process (#26 §6): the bench mock's 64-piece chat stream (the chunk bytes
 * bench/mock-upstream.ts sends, as the `openai` relay hands them over) translated by `translatedEvents`, and the same
 * chunks parsed through `responseEvents`, timed per stream. No server, no sockets: what the translation itself costs,
 * to compare changes to it quickly. Items are one event each (as with one event per upstream read) or, with
 * `--one-item`, the whole stream at once.
 *
 *   bun bench/responses-translate.ts [--streams 20000] [--rounds 5] [--one-item] [--only bytes|parsed]
 */
import type { ChatCompletionChunk, StreamReport } from '../src/chat/providers/provider'
import { responseEvents, type StreamEnd, translatedEvents } from '../src/chat/responses/events'
import type { ResponsesRequest } from '../src/chat/responses/model'
import { eventsOf } from '../tests/chat/mock-upstream'
import { argument } from './relay-driver'

const STREAMS = Number(argument('streams', '20000'))
const ROUNDS = Number(argument('rounds', '5'))
const ONE_ITEM = Bun.argv.includes('--one-item')
const ONLY = argument('only', '')

const encoder = new TextEncoder()
const chunks = eventsOf({ chunks: 64 }, { model: 'mock-model', stream_options: { include_usage: true } })
const texts = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
const items = ONE_ITEM
  ? [encoder.encode(`${texts.join('')}data: [DONE]\n\n`)]
  : texts.map((text) => encoder.encode(text))
if (!ONE_ITEM) items.push(encoder.encode('data: [DONE]\n\n'))
const request = { model: 'bench', input: 'Say something.', stream: true, store: false } as ResponsesRequest
const end: StreamEnd = {
  fields: { id: 'resp_bench', createdAt: 1_700_000_000, model: 'bench', request, store: false },
  namespaced: new Map(),
  param: () => undefined,
}

/** A source that hands its items over as a provider's event stream does: one promise each. */
function source<T>(list: T[]): AsyncIterator<T> & AsyncIterable<T> {
  let at = 0
  const iterator = {
    next: () =>
      Promise.resolve(
        at < list.length ? { done: false as const, value: list[at++]! } : { done: true as const, value: undefined },
      ),
    return: () => Promise.resolve({ done: true as const, value: undefined }),
    [Symbol.asyncIterator]: () => iterator,
  }
  return iterator
}

async function drain(events: AsyncIterable<Uint8Array>): Promise<number> {
  let bytes = 0
  for await (const each of events) bytes += each.length
  return bytes
}

const ways = {
  bytes: () =>
    drain(translatedEvents({ events: source(items) }, end, { next: 0 }, { events: 0 } as StreamReport, 1 << 20)),
  parsed: () => drain(responseEvents(parsedChunks(), end, { next: 0 }, { events: 0 } as StreamReport, 1 << 20)),
}

/** The chunks as the old way had them: each item decoded and parsed, one generator step per chunk. */
async function* parsedChunks(): AsyncGenerator<ChatCompletionChunk> {
  const utf8 = new TextDecoder()
  for (const item of items) {
    for (const event of utf8.decode(item).split('\n\n')) {
      const data = event.slice(6)
      if (data === '' || data === '[DONE]') continue
      yield JSON.parse(data) as ChatCompletionChunk
    }
  }
}

for (let round = 0; round < ROUNDS; round++) {
  const line: string[] = []
  for (const [name, run] of Object.entries(ways)) {
    if (ONLY && name !== ONLY) continue
    const started = performance.now()
    for (let i = 0; i < STREAMS; i++) await run()
    line.push(`${name} ${(((performance.now() - started) * 1000) / STREAMS).toFixed(1)} µs`)
  }
  console.log(`round ${round + 1}: ${line.join(', ')} per stream`)
}
