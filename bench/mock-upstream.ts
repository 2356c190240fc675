/**
 * The benchmark's upstream, in two wire formats. `POST /v1/chat/completions` answers every
 * streaming request with the role chunk, `--chunks` content chunks (64 by default), the finish
 * chunk and `[DONE]`, one event per stream pull (with `--gap-ms`, a pause before each event after
 * the first, so that each arrives in its own read, as a model's tokens do), built exactly like the test mock's events
 * (tests/chat/mock-upstream.ts). `POST /v1/messages` answers in Anthropic's Messages form with the
 * same pieces as text deltas, between message_start/content_block_start and content_block_stop/
 * message_delta/message_stop (bench/anthropic-relay.ts). `POST /v1/responses` answers in the Responses API's form: the
 * same pieces as `response.output_text.delta` events of one message, between the lifecycle events, ending with
 * `response.completed` and its usage (bench/responses-relay.ts). Bun.serve rather than the test mock's raw socket, so
 * the upstream is never the bottleneck of a throughput run.
 *
 * With `--one-pull`, every event of a stream is written in the first pull instead, as the
 * performance issue's referee mock does: the relay then reads a whole stream in as few reads as
 * the sockets allow.
 *
 *   bun bench/mock-upstream.ts --port 0 --chunks 64 [--gap-ms 0 | --one-pull]    # prints its base URL, runs until
 *   killed
 */
import { eventsOf, piece } from '../tests/chat/mock-upstream'

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
      events = [
        ...eventsOf({ chunks }, body).map((event) => encoder.encode(`data: ${JSON.stringify(event)}\n\n`)),
        DONE,
      ]
      encoded.set(key, events)
    }
    return events
  }
  let messages: Uint8Array[] | undefined
  const messagesFor = (body: Record<string, unknown>) => (messages ??= messagesEvents(chunks, String(body.model)))
  let responses: Uint8Array[] | undefined
  const responsesFor = (body: Record<string, unknown>) => (responses ??= responsesEvents(chunks, String(body.model)))
  const server = Bun.serve({
    port: options.port ?? 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname
      const anthropic = path.endsWith('/messages')
      const responsesApi = path.endsWith('/responses')
      if (request.method !== 'POST' || !(anthropic || responsesApi || path.endsWith('/chat/completions'))) {
        return Response.json(
          { error: { message: 'not found', type: 'invalid_request_error', param: null, code: null } },
          { status: 404 },
        )
      }
      const body = (await request.json()) as Record<string, unknown>
      const events = anthropic ? messagesFor(body) : responsesApi ? responsesFor(body) : eventsFor(body)
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

/** A Messages stream of `chunks` text deltas, each event `event: <type>\ndata: <json>\n\n` as Anthropic writes it. */
function messagesEvents(chunks: number, model: string): Uint8Array[] {
  const event = (data: { type: string; [key: string]: unknown }) =>
    encoder.encode(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`)
  const usage = { input_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 }
  return [
    event({
      type: 'message_start',
      message: {
        id: 'msg_mock',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
    }),
    event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    ...Array.from({ length: chunks }, (_, i) =>
      event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece(i) } }),
    ),
    event({ type: 'content_block_stop', index: 0 }),
    event({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: chunks },
    }),
    event({ type: 'message_stop' }),
  ]
}

/** A Responses stream of `chunks` text deltas in one message, each event `event: <type>\ndata: <json>\n\n` as OpenAI writes it. */
export function responsesEvents(chunks: number, model: string): Uint8Array[] {
  let sequence = 0
  const event = (data: { type: string; [key: string]: unknown }) =>
    encoder.encode(`event: ${data.type}\ndata: ${JSON.stringify({ ...data, sequence_number: sequence++ })}\n\n`)
  const text = Array.from({ length: chunks }, (_, i) => piece(i)).join('')
  const part = { type: 'output_text', text: '', annotations: [], logprobs: [] }
  const item = { id: 'msg_mock', type: 'message', status: 'in_progress', role: 'assistant', content: [] as unknown[] }
  const done = { ...item, status: 'completed', content: [{ ...part, text }] }
  const response = (status: string, output: unknown[], usage: unknown) => ({
    id: 'resp_mock',
    object: 'response',
    created_at: 1_764_000_000,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage,
    user: null,
    metadata: {},
  })
  const usage = {
    input_tokens: 5,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: chunks,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 5 + chunks,
  }
  const at = { item_id: 'msg_mock', output_index: 0, content_index: 0 }
  return [
    event({ type: 'response.created', response: response('in_progress', [], null) }),
    event({ type: 'response.in_progress', response: response('in_progress', [], null) }),
    event({ type: 'response.output_item.added', output_index: 0, item }),
    event({ type: 'response.content_part.added', ...at, part }),
    ...Array.from({ length: chunks }, (_, i) =>
      event({ type: 'response.output_text.delta', ...at, delta: piece(i), logprobs: [] }),
    ),
    event({ type: 'response.output_text.done', ...at, text, logprobs: [] }),
    event({ type: 'response.content_part.done', ...at, part: { ...part, text } }),
    event({ type: 'response.output_item.done', output_index: 0, item: done }),
    event({ type: 'response.completed', response: response('completed', [done], usage) }),
  ]
}

if (import.meta.main) {
  const arg = (name: string, fallback: number) => {
    const at = Bun.argv.indexOf(`--${name}`)
    return at === -1 ? fallback : Number(Bun.argv[at + 1])
  }
  const upstream = serveBenchUpstream({
    port: arg('port', 0),
    chunks: arg('chunks', 64),
    gapMs: arg('gap-ms', 0),
    onePull: Bun.argv.includes('--one-pull'),
  })
  console.log(upstream.baseUrl)
}
