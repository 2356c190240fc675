/**
 * The bytes of a translated `/v1/messages` stream, as Anthropic's SDKs parse them: `event: <type>`
 * and `data: <json>` lines per event, `ping` events while waiting (never OpenAI's `: keep-alive`),
 * an `error` event on a failure after the first byte, and nothing after `message_stop`.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createEchoProvider } from '../../../src/chat/providers/echo/echo'
import { ProviderError, type ChatCompletionChunk, type ChatProvider } from '../../../src/chat/providers/provider'
import { SETUP_TIMEOUT } from '../../helpers/app'
import { makeChatApp, readAll, registryOf } from '../chat-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const chunk = (
  delta: Record<string, unknown>,
  finish: string | null = null,
  usage?: Record<string, unknown>,
): ChatCompletionChunk => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'up',
  choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }],
  ...(usage ? { usage } : {}),
})

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts, as a provider must. */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true })
  })

/** A provider that streams `script`: chunks, waits (a number of ms), and a failure to throw. */
function scripted(name: string, script: (ChatCompletionChunk | number | Error)[]): ChatProvider {
  return {
    name,
    complete: async () => {
      throw new Error('not used')
    },
    stream: async function* (_request, signal) {
      for (const step of script) {
        if (typeof step === 'number') await sleep(step, signal)
        else if (step instanceof Error) throw step
        else yield step
      }
    },
  }
}

const shutdown = new AbortController()
let t: Awaited<ReturnType<typeof makeChatApp>>
beforeAll(async () => {
  const registry = registryOf({
    echo: createEchoProvider(),
    slow: scripted('slow', [300, chunk({ role: 'assistant', content: 'late' }), chunk({}, 'stop')]),
    breaks: scripted('breaks', [
      chunk({ role: 'assistant', content: 'partial' }),
      new ProviderError(502, 'upstream went away'),
    ]),
    'fails-after-ping': scripted('fails-after-ping', [
      300,
      new ProviderError(503, 'upstream is down', { retryAfter: 5 }),
    ]),
    // An upstream answering in OpenAI's form: reasoning, text, two tool calls, usage only in a last chunk.
    mixed: scripted('mixed', [
      chunk({ role: 'assistant', reasoning_content: 'hm' }),
      chunk({ content: 'ok' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"x":1}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
      chunk({}, null, {
        prompt_tokens: 30,
        completion_tokens: 9,
        total_tokens: 39,
        prompt_tokens_details: { cached_tokens: 10 },
      }),
    ]),
    held: scripted('held', [chunk({ role: 'assistant', content: 'a' }), 5_000, chunk({}, 'stop')]),
  })
  t = await makeChatApp({ chat: { registry, keepAliveMs: 50 }, deps: { shutdownSignal: shutdown.signal } })
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const stream = (body: Record<string, unknown>, signal?: AbortSignal) =>
  t.app.handle(
    new Request('http://localhost/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.token}` },
      body: JSON.stringify({
        max_tokens: 64,
        stream: true,
        messages: [{ role: 'user', content: 'Hi there' }],
        ...body,
      }),
      signal,
    }),
  )

const event = (data: { type: string; [key: string]: unknown }) =>
  `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`

/** The usage fields the SDK's `Usage` always has and a translated answer knows nothing of. */
const UNKNOWN_USAGE = {
  cache_creation: null,
  server_tool_use: null,
  service_tier: null,
  inference_geo: null,
  speed: null,
}

describe('the event stream, byte for byte', () => {
  test('echo: message_start, one text block, message_delta with the whole usage, message_stop; then the end', async () => {
    const response = await stream({ model: 'echo' })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    expect(response.headers.get('request-id')).toBe(response.headers.get('x-request-id'))
    const body = await readAll(response)
    const id = /"id":"(msg_[0-9a-f]{24})"/.exec(body)?.[1]
    expect(id).toBeDefined()
    const zero = {
      input_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 0,
      output_tokens_details: null,
      ...UNKNOWN_USAGE,
    }
    expect(body).toBe(
      event({
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: 'echo',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          stop_details: null,
          container: null,
          diagnostics: null,
          usage: zero,
        },
      }) +
        event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: null } }) +
        event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }) +
        event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' there' } }) +
        event({ type: 'content_block_stop', index: 0 }) +
        event({
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null, stop_details: null, container: null },
          usage: {
            input_tokens: 3,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
            output_tokens: 2,
            output_tokens_details: { thinking_tokens: 0 },
            server_tool_use: null,
          },
        }) +
        event({ type: 'message_stop' }),
    )
  })

  test('an OpenAI-form upstream: thinking, text and each tool call get blocks of their own; usage arrives with message_delta', async () => {
    const body = await readAll(await stream({ model: 'mixed', thinking: { type: 'adaptive' } }))
    const events = body
      .split('\n\n')
      .filter(Boolean)
      .map((text) => JSON.parse(text.split('\ndata: ')[1]!))
    expect(events.slice(1)).toEqual([
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hm' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '', citations: null } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'ok' } },
      { type: 'content_block_stop', index: 1 },
      {
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: 'call_a', name: 'f', input: {}, caller: { type: 'direct' } },
      },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"x":1}' } },
      { type: 'content_block_stop', index: 2 },
      {
        type: 'content_block_start',
        index: 3,
        content_block: { type: 'tool_use', id: 'call_b', name: 'g', input: {}, caller: { type: 'direct' } },
      },
      { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{}' } },
      { type: 'content_block_stop', index: 3 },
      {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null, stop_details: null, container: null },
        usage: {
          input_tokens: 20,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 10,
          output_tokens: 9,
          output_tokens_details: null,
          server_tool_use: null,
        },
      },
      { type: 'message_stop' },
    ])
  })

  test('without thinking asked for, the reasoning of an OpenAI-form upstream is left out', async () => {
    const body = await readAll(await stream({ model: 'mixed' }))
    expect(body).not.toContain('thinking')
    expect(body).toContain(
      event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: null } }),
    )
  })
})

describe('waiting, failing, ending', () => {
  test("a slow provider: Anthropic's ping events fill the wait, never OpenAI's keep-alive comments", async () => {
    const body = await readAll(await stream({ model: 'slow' }))
    const ping = 'event: ping\ndata: {"type": "ping"}\n\n'
    expect(body.startsWith(ping)).toBe(true)
    expect(body.indexOf('event: message_start')).toBeGreaterThan(body.lastIndexOf(ping))
    expect(body).not.toContain(': keep-alive')
    expect(body.endsWith(event({ type: 'message_stop' }))).toBe(true)
  })

  test("a failure after the first byte: an error event in Anthropic's shape ends the stream, without message_stop", async () => {
    const response = await stream({ model: 'breaks' })
    const requestId = response.headers.get('x-request-id')
    const body = await readAll(response)
    expect(body).toContain('"text":"partial"')
    expect(
      body.endsWith(
        event({
          type: 'error',
          error: { type: 'api_error', message: `upstream went away (request id ${requestId})` },
          request_id: requestId,
        }),
      ),
    ).toBe(true)
    expect(body).not.toContain('message_stop')
    const logged = t.logs.find(
      (line) => line.msg === 'chat stream failed after the first byte' && line.request_id === requestId,
    )
    expect(logged).toMatchObject({ error: 'upstream went away', path: '/v1/messages' })
  })

  test('a failure after a ping has committed the stream is an error event too (overloaded_error for a 503)', async () => {
    const body = await readAll(await stream({ model: 'fails-after-ping' }))
    expect(body.startsWith('event: ping\n')).toBe(true)
    expect(body).toContain(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"upstream is down',
    )
  })

  test("a failure before the first byte is an HTTP error in Anthropic's shape", async () => {
    const response = await stream({ model: 'echo', tools: [{ type: 'bash_20250124', name: 'bash' }] })
    expect(response.status).toBe(400)
    expect((await response.json()).error.message).toStartWith('tools.0.type: not supported')
  })

  test('a shutdown ends an open stream with an overloaded_error event', async () => {
    const response = await stream({ model: 'held' })
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    let body = decoder.decode((await reader.read()).value)
    shutdown.abort()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      body += decoder.decode(value)
    }
    expect(body).toContain(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"The server is shutting down; retry the request."}',
    )
  })
})
