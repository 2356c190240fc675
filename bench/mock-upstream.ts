/**
 * The benchmark's OpenAI-compatible upstream: `POST /v1/chat/completions` answers every
 * streaming request with the role chunk, `--chunks` content chunks (64 by default), the finish
 * chunk and `[DONE]`, one event per stream pull (with `--gap-ms`, a pause before each event after
 * the first, so that each arrives in its own read, as a model's tokens do), built exactly like the test mock's events
 * (tests/chat/mock-upstream.ts). Bun.serve rather than the test mock's raw socket, so the
 * upstream is never the bottleneck of a throughput run.
 *
 * With `--one-pull`, every event of a stream is written in the first pull instead, as the
 * performance issue's referee mock does: the relay then reads a whole stream in as few reads as
 * the sockets allow.
 *
 *   bun bench/mock-upstream.ts --port 0 --chunks 64 [--gap-ms 0 | --one-pull]    # prints its base URL, runs until killed
 */
import { eventsOf } from '../tests/chat/mock-upstream'

export type BenchUpstreamOptions = { port?: number; chunks?: number; gapMs?: number; onePull?: boolean }

const encoder = new TextEncoder()
const DONE = encoder.encode('data: [DONE]\n\n')

/** Starts the upstream; events are encoded once per model name and reused. */
export function serveBenchUpstream(options: BenchUpstreamOptions = {}) {
  const chunks = options.chunks ?? 64
  const gapMs = options.gapMs ?? 0
  const encoded = new Map<string, Uint8Array[]>()
  const eventsFor = (body: Record<string, unknown>) => {
    const key = `${body.model}|${JSON.stringify(body.stream_options ?? null)}`
    let events = encoded.get(key)
    if (!events) {
      events = [...eventsOf({ chunks }, body).map((event) => encoder.encode(`data: ${JSON.stringify(event)}\n\n`)), DONE]
      encoded.set(key, events)
    }
    return events
  }
  const server = Bun.serve({
    port: options.port ?? 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    async fetch(request) {
      if (request.method !== 'POST' || !new URL(request.url).pathname.endsWith('/chat/completions')) {
        return Response.json({ error: { message: 'not found', type: 'invalid_request_error', param: null, code: null } }, { status: 404 })
      }
      const body = (await request.json()) as Record<string, unknown>
      const events = eventsFor(body)
      let next = 0
      return new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (options.onePull) {
              for (const event of events) controller.enqueue(event)
              return controller.close()
            }
            const send = () => {
              controller.enqueue(events[next++])
              if (next === events.length) controller.close()
            }
            if (gapMs > 0 && next > 0) return Bun.sleep(gapMs).then(send)
            send()
          },
        }),
        { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } },
      )
    },
  })
  return { baseUrl: `http://127.0.0.1:${server.port}/v1`, stop: () => server.stop(true) }
}

if (import.meta.main) {
  const arg = (name: string, fallback: number) => {
    const at = Bun.argv.indexOf(`--${name}`)
    return at === -1 ? fallback : Number(Bun.argv[at + 1])
  }
  const upstream = serveBenchUpstream({ port: arg('port', 0), chunks: arg('chunks', 64), gapMs: arg('gap-ms', 0), onePull: Bun.argv.includes('--one-pull') })
  console.log(upstream.baseUrl)
}
