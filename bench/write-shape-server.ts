/**
 * One way of writing a relayed stream's response, for bench/relay-write-shapes.ts (not part of the product): the
 * upstream is fetched as the floor does (bench/relay-floor.ts), and `SHAPE` chooses how its body reaches the client.
 * - `native`: `new Response(upstream.body)`, the floor's way: Bun moves the bytes with no JavaScript step per read;
 * - `pull`: a default ReadableStream whose `pull` reads the upstream and enqueues each read (Trellis's writer's way);
 * - `direct`: Bun's `type: 'direct'` stream, writing and flushing each read from one loop;
 * - `generator`: an async generator as the body;
 * - `first`: the first read awaited, then `new Response(bytes)` (a whole body with a length) when it ends the stream.
 * No checks, no accounting: only the cost of the shape. Prints the URL it serves on as its first line.
 */
const upstreamUrl = `${process.env.FLOOR_UPSTREAM}/chat/completions`
const shape = process.env.SHAPE ?? 'native'
const headers = { 'content-type': 'text/event-stream' }

/** Whether a read ends with `data: [DONE]\n\n`. */
const endsDone = (bytes: Uint8Array) =>
  bytes.length >= 14 && bytes[bytes.length - 3] === 0x5d && bytes[bytes.length - 8] === 0x5b

function body(reader: ReadableStreamDefaultReader<Uint8Array>): BodyInit {
  if (shape === 'pull')
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        const read = await reader.read()
        if (read.done) return controller.close()
        controller.enqueue(read.value)
        if (endsDone(read.value)) controller.close()
      },
    })
  if (shape === 'direct')
    return new ReadableStream({
      type: 'direct',
      async pull(controller: { write(bytes: Uint8Array): void; flush(): void; close(): void }) {
        for (;;) {
          const read = await reader.read()
          if (read.done) break
          controller.write(read.value)
          if (endsDone(read.value)) break
          controller.flush()
        }
        controller.close()
      },
    } as unknown as UnderlyingDefaultSource<Uint8Array>)
  if (shape === 'generator')
    return (async function* () {
      for (;;) {
        const read = await reader.read()
        if (read.done) return
        yield read.value
        if (endsDone(read.value)) return
      }
    })() as unknown as BodyInit
  throw new Error(`unknown SHAPE ${shape}`)
}

const shapeServer = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  idleTimeout: 0,
  async fetch(request) {
    const json = (await request.json()) as Record<string, unknown>
    json.model = 'mock-model'
    const answer = await fetch(upstreamUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(json),
    })
    if (shape === 'native') return new Response(answer.body, { headers })
    const reader = answer.body!.getReader()
    if (shape === 'first') {
      const read = await reader.read()
      if (read.done || !endsDone(read.value)) throw new Error('`first` needs the whole stream in one read (--one-pull)')
      reader.cancel().catch(() => {})
      return new Response(read.value, { headers })
    }
    return new Response(body(reader), { headers })
  },
})
console.log(shapeServer.url.toString().replace(/\/$/, ''))
process.on('SIGTERM', () => process.exit(0))
