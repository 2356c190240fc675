/**
 * The relays of bench/responses-relay.ts in process (#26 §6), without the server, the sockets, the
 * ledger and the driver around them: the same `openai` provider over a fetch that answers from
 * memory with the bench mock's streams (64 pieces, one event per read, or all in one with
 * `--one-item`), each way's stream read to its end, ways interleaved in rounds, timed by this process's CPU time
 * (all its threads: the collector's too). What each way's own
 * work costs per stream, with less noise than a whole server on a shared machine, to compare
 * changes to it quickly; the ratios are larger than the benchmark's, which add the same fixed
 * costs to every way.
 * - `chat`: `streamEvents` of a chat request (the chat relay);
 * - `translated`: `translatedEvents` through `streamTranslated` (the translated Responses stream);
 * - `native`: the native Responses relay's `streamEvents`;
 * - `parsed`: `responseEvents` of the provider's parsed chunks (the translated stream before #26 §6).
 *
 *   bun bench/responses-translate.ts [--streams 5000] [--rounds 5] [--one-item] [--only translated [--alone]]
 */
import { openaiProvider } from '../src/chat/providers/openai/openai'
import type { StreamReport } from '../src/chat/providers/provider'
import { responseEvents, type StreamEnd, translatedEvents } from '../src/chat/responses/events'
import type { ResponsesRequest } from '../src/chat/responses/model'
import { PROVIDER_DEFAULTS } from '../src/config/chat'
import { eventsOf } from '../tests/chat/mock-upstream'
import { responsesEvents } from './mock-upstream'
import { argument, median } from './relay-driver'

const STREAMS = Number(argument('streams', '5000'))
const ROUNDS = Number(argument('rounds', '5'))
const ONE_ITEM = Bun.argv.includes('--one-item')
const ONLY = argument('only', '')
/** With `--only`, leave the chat relay out too (for a profile of one way). */
const ALONE = Bun.argv.includes('--alone')

const encoder = new TextEncoder()
const chatEvents = (includeUsage: boolean) => [
  ...eventsOf({ chunks: 64 }, { model: 'mock-model', stream_options: { include_usage: includeUsage } }).map((event) =>
    encoder.encode(`data: ${JSON.stringify(event)}\n\n`),
  ),
  encoder.encode('data: [DONE]\n\n'),
]
const bodies = {
  chat: chatEvents(true),
  responses: responsesEvents(64, 'mock-model'),
}

/** An upstream answering from memory: the stream the request asks for, one event per read (or all in one). */
const fetch = async (url: string | URL | Request) => {
  const events = String(url).endsWith('/responses') ? bodies.responses : bodies.chat
  let next = 0
  return new Response(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (ONE_ITEM) {
          for (const event of events) controller.enqueue(event)
          return controller.close()
        }
        controller.enqueue(events[next++]!)
        if (next === events.length) controller.close()
      },
    }),
    { headers: { 'content-type': 'text/event-stream' } },
  )
}
const options = { ...PROVIDER_DEFAULTS, baseUrl: 'http://upstream.invalid/v1', fetch }
const relay = openaiProvider({ ...options, name: 'mock' })
const native = openaiProvider({ ...options, name: 'native', responses: 'native' }).responses!

const signal = new AbortController().signal
const chatRequest = { model: 'mock-model', messages: [{ role: 'user', content: 'Say something.' }], stream: true }
// As the translation asks: usage always.
const translatedRequest = { ...chatRequest, stream_options: { include_usage: true } }
const responsesRequest = { model: 'mock-model', input: 'Say something.', stream: true, store: false }
const end: StreamEnd = {
  fields: {
    id: 'resp_bench',
    createdAt: 1_700_000_000,
    model: 'bench',
    request: responsesRequest as ResponsesRequest,
    store: false,
  },
  namespaced: new Map(),
  param: () => undefined,
}
const report = (): StreamReport => ({ events: 0 })

async function drain(events: AsyncIterable<Uint8Array>): Promise<number> {
  let bytes = 0
  for await (const each of events) bytes += each.length
  return bytes
}

const ways: Record<string, () => Promise<number>> = {
  chat: () => drain(relay.streamEvents(chatRequest, signal, report())),
  translated: () =>
    drain(
      translatedEvents(
        { through: (translator) => relay.streamTranslated(translatedRequest, signal, translator) },
        end,
        { next: 0 },
        report(),
        1 << 20,
      ),
    ),
  native: () => drain(native.streamEvents(responsesRequest, signal, report())),
  parsed: () => drain(responseEvents(relay.stream(translatedRequest, signal), end, { next: 0 }, report(), 1 << 20)),
}

const times = new Map<string, number[]>(Object.keys(ways).map((name) => [name, []]))
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(ways)) {
    if (ONLY && name !== ONLY && (name !== 'chat' || ALONE)) continue
    // CPU time, not wall time: on a shared machine this process is not always running.
    const started = process.cpuUsage()
    for (let i = 0; i < STREAMS; i++) await run()
    const used = process.cpuUsage(started)
    times.get(name)!.push((used.user + used.system) / STREAMS)
  }
  console.log(
    `round ${round + 1}: ${[...times]
      .filter(([, each]) => each.length > round)
      .map(([name, each]) => `${name} ${each[round]!.toFixed(1)} µs`)
      .join(', ')}`,
  )
}
const chat = times.get('chat')!
for (const [name, each] of times) {
  if (name === 'chat' || each.length === 0 || chat.length === 0) continue
  const ratios = each.map((value, i) => value / chat[i]!)
  console.log(
    `${name} ÷ chat: ${median(ratios).toFixed(2)} (rounds ${ratios.map((r) => r.toFixed(2)).join(', ')}); ${name} − chat ${median(each.map((v, i) => v - chat[i]!)).toFixed(1)} µs per stream`,
  )
}
