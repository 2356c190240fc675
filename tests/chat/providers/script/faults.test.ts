import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../../../helpers/app'
import { eventsOf, readAll } from '../../chat-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * The script provider's matching, timing and faults, through the real routes (`app.handle`): which rule answers
 * (turn, regular expression, the searched length), the fallback to echo, cuts at an exact byte, stalls ended by the
 * provider's idle timeout, deadlines, and what a whole (non-streamed) answer makes of each fault.
 */

const SCENARIO = {
  rules: [
    { match: { last_user: '/^second turn$/', turn: 2 }, reply: [{ text: 'second answer' }] },
    { match: { last_user: '/needle$/i' }, reply: [{ text: 'found' }] },
    { match: { last_user: 'cut bytes' }, reply: [{ text: 'abcdefgh' }, { disconnect_after_bytes: 300 }] },
    { match: { last_user: 'stall' }, reply: [{ text: 'then nothing' }, { stall: true }] },
    { match: { last_user: 'slow start' }, reply: [{ ttft_ms: 5_000 }, { text: 'late' }] },
    { match: { last_user: 'deadline' }, reply: [{ gap_ms: 40 }, { text: 'a b c d e f g h' }, { deadline_ms: 150 }] },
    { match: { last_user: 'cut at once' }, reply: [{ text: 'x' }, { disconnect_after_events: 0 }] },
    { match: { last_user: 'refuse' }, reply: [{ refusal: 'No.' }, { finish_reason: 'content_filter' }] },
    {
      match: { last_user: 'own body' },
      reply: [{ error: { status: 503, body: { custom: true }, headers: { 'x-scripted': 'yes' } } }],
    },
    { match: { last_user: 'retry elsewhere' }, reply: [{ error: { status: 503, retryable: true } }] },
    {
      match: { last_user: 'two tools' },
      reply: [{ tool_call: { name: 'a', arguments: '{"x":1}', id: 'call_a' } }, { tool_call: { name: 'b' } }],
    },
  ],
  fallback: 'echo',
}

let t: TestApp
let token: string
beforeAll(async () => {
  t = await makeTestApp({
    env: {
      CHAT_PROVIDERS: JSON.stringify({
        script: {
          kind: 'script',
          scenario: SCENARIO,
          idleTimeoutMs: 200,
          firstTokenTimeoutMs: 300,
          requestTimeoutMs: 400,
        },
      }),
      CHAT_MODELS: JSON.stringify({
        scripted: [{ provider: 'script', model: 'scripted' }],
        'with-fallback': [
          { provider: 'script', model: 'scripted' },
          { provider: 'echo', model: 'echo' },
        ],
      }),
    },
  })
  token = await t.tokenFor('script-faults', ['chat'])
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const chat = (content: string | Record<string, unknown>[], stream = false) =>
  t.request('/v1/chat/completions', {
    method: 'POST',
    token,
    json: {
      model: 'scripted',
      stream,
      messages: typeof content === 'string' ? [{ role: 'user', content }] : content,
    },
  })
const answer = async (content: string | Record<string, unknown>[]) => (await (await chat(content)).json()).choices[0]

describe('which rule answers', () => {
  test('turn counts the assistant messages before: the same words on the first turn fall through to echo', async () => {
    expect((await answer('second turn')).message.content).toBe('second turn')
    const conversation = [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'second turn' },
    ]
    expect((await answer(conversation)).message.content).toBe('second answer')
  })

  test('a regular expression with flags; only the first 16384 characters are searched', async () => {
    expect((await answer('find the NEEDLE')).message.content).toBe('found')
    const far = `${'x'.repeat(16_384)} needle`
    expect((await answer(far)).message.content).toBe(far)
  })

  test('a refusal and a given finish reason; parallel tool calls with given and made ids', async () => {
    const refused = await answer('refuse')
    expect(refused.message).toMatchObject({ content: null, refusal: 'No.' })
    expect(refused.finish_reason).toBe('content_filter')
    const tools = await answer('two tools')
    expect(tools.finish_reason).toBe('tool_calls')
    expect(tools.message.tool_calls.map((call: { function: unknown }) => call.function)).toEqual([
      { name: 'a', arguments: '{"x":1}' },
      { name: 'b', arguments: '{}' },
    ])
    expect(tools.message.tool_calls[0].id).toBe('call_a')
    expect(tools.message.tool_calls[1].id).toStartWith('call_')
  })
})

describe('faults of a stream', () => {
  test('disconnect_after_bytes: exactly that many bytes of the body, then the connection breaks', async () => {
    const response = await chat('cut bytes', true)
    expect(response.status).toBe(200)
    const reader = response.body!.getReader()
    let bytes = 0
    const failure = await (async () => {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return undefined
        bytes += value.length
      }
    })().catch((error: unknown) => error ?? 'cut')
    expect(failure).toBeDefined()
    expect(bytes).toBe(300)
  })

  test('disconnect_after_events: 0: the headers, then a body that breaks at once', async () => {
    const response = await chat('cut at once', true)
    expect(response.status).toBe(200)
    let broke = false
    await readAll(response).catch(() => {
      broke = true
    })
    expect(broke).toBe(true)
  })

  test("a stall: no more events, until the provider's idle timeout ends the stream with a 504 error event", async () => {
    const started = performance.now()
    const body = await readAll(await chat('stall', true))
    expect(performance.now() - started).toBeGreaterThanOrEqual(190)
    const events = eventsOf(body) as unknown as Record<string, unknown>[]
    // The role, "then", " nothing": no finishing event.
    expect(events.filter((event) => event.choices).length).toBe(3)
    expect(events.at(-1)!.error).toMatchObject({ code: 'upstream_idle_timeout' })
    expect(body).not.toContain('[DONE]')
  })

  test('a first token later than firstTokenTimeoutMs: a 504 before the first byte', async () => {
    const response = await chat('slow start', true)
    expect(response.status).toBe(504)
    expect((await response.json()).error.code).toBe('upstream_first_token_timeout')
  })

  test('deadline_ms: the stream ends with a 504 error event when its time is up', async () => {
    const body = await readAll(await chat('deadline', true))
    expect(body).toContain('"code":"deadline_exceeded"')
    expect(body).not.toContain('[DONE]')
  })
})

describe('faults of a whole answer', () => {
  const WHOLE: [ask: string, status: number, code: string][] = [
    ['cut bytes', 502, 'scripted_disconnect'],
    ['stall', 504, 'upstream_request_timeout'],
    ['deadline', 504, 'deadline_exceeded'],
  ]
  test.each(WHOLE)('%s: %d %s', async (ask, status, code) => {
    const response = await chat(ask)
    expect(response.status).toBe(status)
    expect((await response.json()).error.code).toBe(code)
  })
})

describe('scripted errors', () => {
  test('body replaces the whole body, in every wire format; headers come as written', async () => {
    for (const [path, extra] of [
      ['/v1/chat/completions', {}],
      ['/v1/messages', { max_tokens: 16 }],
    ] as const) {
      const response = await t.request(path, {
        method: 'POST',
        token,
        json: { model: 'scripted', messages: [{ role: 'user', content: 'own body' }], ...extra },
      })
      expect(response.status).toBe(503)
      expect(response.headers.get('x-scripted')).toBe('yes')
      expect(await response.json()).toEqual({ custom: true })
    }
  })

  test('only an error that says retryable: true lets the gateway fall back to the next entry', async () => {
    const ask = async (model: string, content: string) =>
      t.request('/v1/chat/completions', {
        method: 'POST',
        token,
        json: { model, messages: [{ role: 'user', content }] },
      })
    const fellBack = await ask('with-fallback', 'retry elsewhere')
    expect(fellBack.status).toBe(200)
    expect((await fellBack.json()).choices[0].message.content).toBe('retry elsewhere')
    expect((await ask('with-fallback', 'own body')).status).toBe(503)
  })
})

describe('fallback: echo', () => {
  test('a request no rule matches gets echo’s answer, streamed or not', async () => {
    expect((await answer('nothing matches this')).message.content).toBe('nothing matches this')
    const streamed = eventsOf(await readAll(await chat('nor this', true)))
    expect(streamed.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('nor this')
  })
})
