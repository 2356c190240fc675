/**
 * The floor the chat relay is measured against (#31): the least a Bun program relaying an OpenAI stream must do.
 * `Bun.serve`, a bearer token looked up in a Map, `await req.json()`, `fetch` to the upstream with the model
 * swapped, and `new Response(upstream.body)`, so Bun moves the upstream's bytes to the client with no JavaScript
 * step per chunk. No checks, no accounting, no logging: nothing a gateway would be allowed to leave out.
 * Run by bench/chat-relay.ts; not part of the product.
 *
 *   FLOOR_UPSTREAM=http://127.0.0.1:P/v1 FLOOR_TOKEN=sk-… FLOOR_MODEL=mock-model bun bench/relay-floor.ts
 * prints the URL it serves on as its first line.
 */
const upstream = `${process.env.FLOOR_UPSTREAM}/chat/completions`
const model = process.env.FLOOR_MODEL ?? 'mock-model'
const tokens = new Map<string, { owner: string }>([[process.env.FLOOR_TOKEN ?? 'sk-floor', { owner: 'bench' }]])
const unauthorized = '{"error":{"message":"unauthorized","type":"invalid_request_error"}}'

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT ?? 0),
  idleTimeout: 0,
  async fetch(request) {
    const header = request.headers.get('authorization') ?? ''
    if (!tokens.has(header.slice(7))) return new Response(unauthorized, { status: 401 })
    const body = (await request.json()) as Record<string, unknown>
    body.model = model
    const answer = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
    })
    return new Response(answer.body, {
      status: answer.status,
      headers: { 'content-type': answer.headers.get('content-type') ?? 'text/event-stream' },
    })
  },
})
console.log(server.url.toString().replace(/\/$/, ''))
// An exit of its own on SIGTERM, so that `bun --cpu-prof` writes its profile (bench/profile-relay.ts --floor).
process.on('SIGTERM', () => process.exit(0))
