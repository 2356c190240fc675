/**
 * The floor Trellis's held streams are measured against (#31): the least a Bun program does to hold a paced chat
 * stream open. A bare `Bun.serve` that reads each POST's JSON body and answers it with a `text/event-stream` whose
 * `ReadableStream` writes the events the `echo` provider writes, byte for byte but for the id and `created` (the
 * role chunk, one content chunk per token of the last message, the finish chunk, `data: [DONE]`), one every
 * `FLOOR_TOKEN_DELAY_MS` (50) from the start, on the same fixed schedule as echo's. No auth, no database, no
 * logging, no keep-alive, no ledger. Run by bench/chat-held-streams.ts; not part of the product.
 *
 * Like the benchmark's `--serve` child, it answers `gc` on stdin with its RSS and JS heap after a full GC.
 *
 *   PORT=P FLOOR_TOKEN_DELAY_MS=50 bun bench/held-floor.ts
 */
import { answerGcProbes } from './held-probe'

const delayMs = Number(process.env.FLOOR_TOKEN_DELAY_MS ?? 50)
const encoder = new TextEncoder()
const DONE = encoder.encode('data: [DONE]\n\n')
/** Echo's token rule for the plain words the benchmark sends: a run of non-space with the spaces before it. */
const TOKEN = /\s*\S+|\s+/y

type Body = { model: string; messages: { role: string; content: string }[] }

function events(body: Body): ReadableStream<Uint8Array> {
  const text = body.messages.at(-1)?.content ?? ''
  const id = `chatcmpl-${Buffer.from(crypto.getRandomValues(new Uint8Array(12))).toString('hex')}`
  const open =
    `data: {"id":"${id}","object":"chat.completion.chunk","created":${Math.floor(Date.now() / 1000)},` +
    `"model":${JSON.stringify(body.model)},"system_fingerprint":"fp_trellis_echo","choices":[{"index":0,"delta":`
  const event = (delta: string, finish = 'null') =>
    encoder.encode(`${open}${delta},"logprobs":null,"finish_reason":${finish}}]}\n\n`)
  let due = performance.now()
  let started = false
  let at = 0
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      due += delayMs
      const wait = due - performance.now()
      if (wait > 0) await Bun.sleep(wait)
      if (!started) {
        started = true
        return controller.enqueue(event('{"role":"assistant","content":"","refusal":null}'))
      }
      if (at < text.length) {
        TOKEN.lastIndex = at
        TOKEN.test(text)
        const token = text.slice(at, TOKEN.lastIndex)
        at = TOKEN.lastIndex
        return controller.enqueue(event(`{"content":${JSON.stringify(token)}}`))
      }
      controller.enqueue(event('{}', '"stop"'))
      controller.enqueue(DONE)
      controller.close()
    },
  })
}

Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT),
  idleTimeout: 0,
  async fetch(request) {
    if (request.method !== 'POST') return new Response('ok')
    return new Response(events((await request.json()) as Body), { headers: { 'content-type': 'text/event-stream' } })
  },
})

await answerGcProbes()
