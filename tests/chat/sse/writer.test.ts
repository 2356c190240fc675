import { afterEach, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { ProviderError, type ChatCompletionChunk, type ChatProvider } from '../../../src/chat/providers/provider'
import { eventsOf, makeChatApp, readAll, registryOf, USER } from '../chat-app'

// Each app starts on a fresh database; the first one in a process takes seconds.
setDefaultTimeout(30_000)

/*
 * The streaming wire format, byte for byte as OpenAI clients parse it, read with
 * getReader() from app.handle like Elysia's own test/response/stream.test.ts.
 */

let close: (() => Promise<void>) | undefined
afterEach(async () => {
  await close?.()
  close = undefined
})

async function chatApp(options: Parameters<typeof makeChatApp>[0] = {}) {
  const app = await makeChatApp(options)
  close = app.close
  return app
}

const chunk = (content: string): ChatCompletionChunk => ({
  id: 'chatcmpl-test',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'scripted',
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
})

/**
 * A provider that streams `pieces` (`delay` ms apart), then throws `failure` if given.
 * `aborted` resolves when the signal it was handed fires.
 */
function scripted(pieces: string[], options: { failure?: Error; delayMs?: number; firstDelayMs?: number } = {}) {
  let onAbort: () => void = () => {}
  const aborted = new Promise<void>((resolve) => (onAbort = resolve))
  const wait = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, ms)
      signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true })
    })
  const provider: ChatProvider = {
    name: 'scripted',
    async complete(_request, signal) {
      signal.addEventListener('abort', onAbort, { once: true })
      await wait(options.delayMs ?? 0, signal)
      if (options.failure) throw options.failure
      return { id: 'chatcmpl-test', object: 'chat.completion', created: 1, model: 'scripted', choices: [] }
    },
    async *stream(_request, signal) {
      signal.addEventListener('abort', onAbort, { once: true })
      for (const [i, piece] of pieces.entries()) {
        await wait(i === 0 ? (options.firstDelayMs ?? options.delayMs ?? 0) : (options.delayMs ?? 0), signal)
        yield chunk(piece)
      }
      if (options.failure) throw options.failure
    },
  }
  return { provider, aborted }
}

const streamBody = (extra: Record<string, unknown> = {}) => ({
  model: 'echo',
  messages: USER('Hello,\nworld!'),
  stream: true,
  ...extra,
})

describe('framing', () => {
  test('headers, then every event exactly "data: <one-line JSON>\\n\\n", then "data: [DONE]\\n\\n" and close', async () => {
    const app = await chatApp()
    const response = await app.chat(streamBody())
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    expect(response.headers.get('cache-control')).toBe('no-cache')
    expect(response.headers.get('x-accel-buffering')).toBe('no')
    expect(response.headers.get('content-encoding')).toBeNull()

    const reader = response.body!.getReader()
    const pieces: Uint8Array[] = []
    for (let result = await reader.read(); !result.done; result = await reader.read()) {
      expect(result.value).toBeInstanceOf(Uint8Array)
      pieces.push(result.value)
    }
    const body = Buffer.concat(pieces).toString('utf8')
    expect(body.endsWith('data: [DONE]\n\n')).toBe(true)
    expect(body).toMatch(/^(data: [^\n]+\n\n)+$/)
    expect(body).not.toMatch(/^(event|id|retry):/m)

    const events = eventsOf(body)
    // role chunk, Hello , \nworld ! , finish chunk
    expect(events.map((event) => event.choices[0]!.delta.content ?? null)).toEqual([
      '',
      'Hello',
      ',',
      '\nworld',
      '!',
      null,
    ])
    // each event is exactly the JSON.stringify of a chunk: no pretty-printing, no extra fields
    expect(body).toBe(events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('') + 'data: [DONE]\n\n')
    expect(events.at(-1)!.choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' })
    expect(new Set(events.map((event) => `${event.id}|${event.created}|${event.model}`)).size).toBe(1)
  })

  test('include_usage: one more chunk with choices [] and usage, just before [DONE]', async () => {
    const app = await chatApp()
    const body = await readAll(await app.chat(streamBody({ stream_options: { include_usage: true } })))
    const events = eventsOf(body)
    const usage = events.at(-1)!
    expect(usage.choices).toEqual([])
    expect(usage.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 })
    expect(events.slice(0, -1).every((event) => event.choices.length === 1)).toBe(true)
    expect(body.endsWith(`data: ${JSON.stringify(usage)}\n\ndata: [DONE]\n\n`)).toBe(true)
  })

  test('without include_usage there is no usage chunk', async () => {
    const app = await chatApp()
    const events = eventsOf(await readAll(await app.chat(streamBody())))
    expect(events.every((event) => event.choices.length === 1 && !('usage' in event))).toBe(true)
  })
})

describe('failures', () => {
  test('before the first byte: a normal HTTP error with the JSON body and Retry-After', async () => {
    const { provider } = scripted([], { failure: new ProviderError(503, 'upstream overloaded', { retryAfter: 7 }) })
    const app = await chatApp({ chat: { registry: registryOf({ scripted: provider }), keepAliveMs: 5_000 } })
    const response = await app.chat({ ...streamBody(), model: 'scripted' })
    expect(response.status).toBe(503)
    expect(response.headers.get('content-type')).toBe('application/json')
    expect(response.headers.get('retry-after')).toBe('7')
    // The log line about it carries the same request id, which the message names.
    const id = response.headers.get('x-request-id')
    expect(await response.json()).toEqual({
      error: {
        message: `upstream overloaded (request id ${id})`,
        type: 'server_error',
        param: null,
        code: 'service_unavailable',
      },
    })
  })

  test('after the first byte: data: {"error":…}, then close, with no [DONE]', async () => {
    const { provider } = scripted(['one', 'two'], {
      failure: new ProviderError(502, 'upstream connection reset', { code: 'upstream_error' }),
    })
    const app = await chatApp({ chat: { registry: registryOf({ scripted: provider }), keepAliveMs: 5_000 } })
    const response = await app.chat({ ...streamBody(), model: 'scripted' })
    expect(response.status).toBe(200)
    const body = await readAll(response)
    expect(body).toBe(
      `data: ${JSON.stringify(chunk('one'))}\n\n` +
        `data: ${JSON.stringify(chunk('two'))}\n\n` +
        `data: ${JSON.stringify({ error: { message: `upstream connection reset (request id ${response.headers.get('x-request-id')})`, type: 'server_error', param: null, code: 'upstream_error' } })}\n\n`,
    )
  })

  test('an unexpected error after the first byte does not leak its message', async () => {
    const { provider } = scripted(['one'], { failure: new Error('secret internals') })
    const app = await chatApp({ chat: { registry: registryOf({ scripted: provider }), keepAliveMs: 5_000 } })
    const body = await readAll(await app.chat({ ...streamBody(), model: 'scripted' }))
    expect(body).not.toContain('secret internals')
    expect(body).toContain('"type":"server_error"')
    expect(app.logs.some((line) => String(line.error).includes('secret internals'))).toBe(true)
  })

  test('non-streaming: a provider 429 is a 429 with Retry-After', async () => {
    const { provider } = scripted([], { failure: new ProviderError(429, 'slow down', { retryAfter: 2.5 }) })
    const app = await chatApp({ chat: { registry: registryOf({ scripted: provider }), keepAliveMs: 5_000 } })
    const response = await app.chat({ model: 'scripted', messages: USER('hi') })
    expect(response.status).toBe(429)
    expect(response.headers.get('retry-after')).toBe('3')
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe('rate_limit_error')
  })
})

describe('keep-alive', () => {
  test('a slow upstream gets ": keep-alive" comments, the first one committing the 200', async () => {
    const app = await chatApp({ env: { CHAT_KEEPALIVE_MS: '40', ECHO_TOKEN_DELAY_MS: '150' } })
    const response = await app.chat(streamBody({ messages: USER('slow words') }))
    expect(response.status).toBe(200)
    const body = await readAll(response)
    expect(body.startsWith(': keep-alive\n\n')).toBe(true)
    expect(body).toMatch(/^((: keep-alive|data: [^\n]+)\n\n)+$/)
    // every 150 ms wait for a chunk holds at least one keep-alive (none is due between the finish chunk and [DONE])
    const between = body.split(/data: [^\n]+\n\n/).slice(1, -2)
    expect(between.length).toBeGreaterThan(2)
    expect(between.every((gap) => gap.includes(': keep-alive\n\n'))).toBe(true)
    expect(
      eventsOf(body)
        .map((event) => event.choices[0]!.delta.content ?? '')
        .join(''),
    ).toBe('slow words')
    expect(body.endsWith('data: [DONE]\n\n')).toBe(true)
  })

  test('once a keep-alive is out, a failure can only be an error event', async () => {
    const { provider } = scripted(['late'], { firstDelayMs: 100, failure: new ProviderError(500, 'broke late') })
    const app = await chatApp({ chat: { registry: registryOf({ scripted: provider }), keepAliveMs: 30 } })
    const response = await app.chat({ ...streamBody(), model: 'scripted' })
    expect(response.status).toBe(200)
    const body = await readAll(response)
    expect(body.startsWith(': keep-alive\n\n')).toBe(true)
    const message = `broke late (request id ${response.headers.get('x-request-id')})`
    expect(
      body.endsWith(
        `data: ${JSON.stringify({ error: { message, type: 'server_error', param: null, code: null } })}\n\n`,
      ),
    ).toBe(true)
    expect(body).not.toContain('[DONE]')
  })

  test('a fast upstream sends none', async () => {
    const app = await chatApp({ env: { CHAT_KEEPALIVE_MS: '1000' } })
    expect(await readAll(await app.chat(streamBody()))).not.toContain('keep-alive')
  })
})

describe('disconnects abort the provider', () => {
  test('cancelling the body (the client went away) aborts the provider signal', async () => {
    const { provider, aborted } = scripted(['a', 'b', 'c'], { delayMs: 60_000, firstDelayMs: 0 })
    const app = await chatApp({ chat: { registry: registryOf({ scripted: provider }), keepAliveMs: 5_000 } })
    const response = await app.chat({ ...streamBody(), model: 'scripted' })
    const reader = response.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('"content":"a"')
    await reader.cancel()
    await aborted
  })

  test.each([true, false])("aborting the request's signal aborts the provider (stream: %p)", async (stream) => {
    const { provider, aborted } = scripted(['a', 'b'], { delayMs: 60_000, firstDelayMs: 0 })
    const app = await chatApp({ chat: { registry: registryOf({ scripted: provider }), keepAliveMs: 5_000 } })
    const client = new AbortController()
    const pending = app.chat({ ...streamBody({ stream }), model: 'scripted' }, { signal: client.signal })
    setTimeout(() => client.abort(), 20)
    // The provider's own signal must fire: its next token is a minute away, so only the abort can end it.
    const outcome = await Promise.race([
      aborted.then(() => 'provider aborted'),
      Bun.sleep(3_000).then(() => 'provider still running'),
    ])
    expect(outcome).toBe('provider aborted')
    const response = await pending.catch(() => undefined)
    await response?.body?.cancel()
  })

  test('server shutdown ends open streams with a 503 error event', async () => {
    const shutdown = new AbortController()
    const { provider } = scripted(['a', 'b'], { delayMs: 60_000, firstDelayMs: 0 })
    const app = await chatApp({
      chat: { registry: registryOf({ scripted: provider }), keepAliveMs: 5_000 },
      deps: { shutdownSignal: shutdown.signal },
    })
    const response = await app.chat({ ...streamBody(), model: 'scripted' })
    setTimeout(() => shutdown.abort(), 20)
    const body = await readAll(response)
    expect(body).toContain('"content":"a"')
    expect(body).toEndWith(
      `data: ${JSON.stringify({ error: { message: 'The server is shutting down; retry the request.', type: 'server_error', param: null, code: 'service_unavailable' } })}\n\n`,
    )
  })
})
