import { PROVIDER_KINDS } from '../../src/chat/providers'
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { parseChatConfig } from '../../src/config/chat'
import { createEchoProvider } from '../../src/chat/providers/echo/echo'
import { ProviderError, type ChatRequest } from '../../src/chat/providers/provider'
import { makeChatApp, readAll, USER } from './chat-app'

// Each app starts on a fresh database; the first one in a process takes seconds.
setDefaultTimeout(30_000)

/*
 * Issue #11 (OWASP API4): one response is capped (`CHAT_MAX_RESPONSE_BYTES`, 8 MiB by default),
 * counted while it is made. Before, a 7.9 KB request with n=128 and top_logprobs=20 made a
 * 308 MB answer.
 */

const PROMPT = 'hello '.repeat(1_300) // 7.8 KB
const AMPLIFIED = { model: 'echo', messages: USER(PROMPT), n: 128, logprobs: true, top_logprobs: 20 }
const utf8 = (text: string) => new TextEncoder().encode(text).length

let app: Awaited<ReturnType<typeof makeChatApp>>
beforeAll(async () => {
  app = await makeChatApp()
})
afterAll(() => app.close())

describe('the default cap, 8 MiB', () => {
  test('a 7.9 KB request with n=128 and top_logprobs=20 is a 400 naming n, made without building the answer', async () => {
    expect(utf8(JSON.stringify(AMPLIFIED))).toBeLessThan(8_000)
    Bun.gc(true)
    const before = process.memoryUsage().rss
    const response = await app.chat(AMPLIFIED)
    const grown = process.memoryUsage().rss - before
    expect(response.status).toBe(400)
    const { error } = (await response.json()) as { error: Record<string, unknown> }
    expect(error).toMatchObject({ type: 'invalid_request_error', param: 'n', code: 'response_too_large' })
    expect(error.message).toContain('8388608 bytes')
    // The answer would be ~300 MB; refused, it never reaches even the cap.
    expect(grown).toBeLessThan(64 * 1024 * 1024)
  })

  test('streamed, it is refused the same way, before the stream starts', async () => {
    const response = await app.chat({ ...AMPLIFIED, stream: true })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: Record<string, unknown> }).error).toMatchObject({
      param: 'n',
      code: 'response_too_large',
    })
  })

  test("a stream that passes the cap although its answer whole would not stops there, with an error event in OpenAI's shape and no [DONE]", async () => {
    // 128 choices of 1,300 tokens: 1 MB whole, but 166,400 events of ~190 bytes streamed.
    const response = await app.chat({ model: 'echo', messages: USER(PROMPT), n: 128, stream: true })
    expect(response.status).toBe(200)
    const body = await readAll(response)
    const bytes = utf8(body)
    expect(bytes).toBeLessThanOrEqual(8 * 1024 * 1024 + 1024)
    expect(bytes).toBeGreaterThan(7 * 1024 * 1024)
    expect(body).not.toContain('data: [DONE]')
    const last = JSON.parse(body.trimEnd().split('\n\n').at(-1)!.slice('data: '.length))
    expect(last).toEqual({
      error: {
        message: expect.stringContaining('8388608 bytes'),
        type: 'invalid_request_error',
        param: null,
        code: 'response_too_large',
      },
    })
    // The request's doing, not a fault: a warning, without a stack.
    expect(app.logs.filter((line) => line.level === 'error')).toEqual([])
    expect(app.logs).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'chat stream cut at the response cap', limit: 8 * 1024 * 1024 }),
    )
  })

  test('the same request with n=1 fits and is answered whole', async () => {
    const response = await app.chat({ ...AMPLIFIED, n: 1 })
    expect(response.status).toBe(200)
    expect(utf8(await response.text())).toBeLessThan(8 * 1024 * 1024)
  })
})

describe('CHAT_MAX_RESPONSE_BYTES', () => {
  let small: Awaited<ReturnType<typeof makeChatApp>>
  beforeAll(async () => {
    small = await makeChatApp({ env: { CHAT_MAX_RESPONSE_BYTES: '65536' } })
  })
  afterAll(() => small.close())

  // [case, request, param the 400 names]
  const TOO_LARGE: [string, Record<string, unknown>, string][] = [
    ['a long prompt echoed', { messages: USER('x'.repeat(70_000)) }, 'max_tokens'],
    [
      'a long prompt with max_completion_tokens too high',
      { messages: USER('word '.repeat(20_000)), max_completion_tokens: 20_000 },
      'max_completion_tokens',
    ],
    ['n copies of a modest answer', { messages: USER('y'.repeat(1_000)), n: 80 }, 'n'],
    [
      'top_logprobs on a modest answer',
      { messages: USER('word '.repeat(400)), logprobs: true, top_logprobs: 20 },
      'top_logprobs',
    ],
    ['logprobs alone on a longer answer', { messages: USER('word '.repeat(1_500)), logprobs: true }, 'logprobs'],
  ]

  test.each(TOO_LARGE)('%s: a 400 naming its param', async (_name, request, param) => {
    const response = await small.chat({ model: 'echo', ...request })
    expect(response.status).toBe(400)
    const { error } = (await response.json()) as { error: Record<string, unknown> }
    expect(error).toMatchObject({ param, code: 'response_too_large' })
    expect(error.message).toContain('65536 bytes')
  })

  test.each(TOO_LARGE)('%s, streamed: the same 400, before the stream starts', async (_name, request, param) => {
    const response = await small.chat({ model: 'echo', ...request, stream: true })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: Record<string, unknown> }).error).toMatchObject({
      param,
      code: 'response_too_large',
    })
  })

  // [case, request]: each answer fits whole, but its events (each repeating the envelope) do not.
  const STREAM_ONLY: [string, Record<string, unknown>][] = [
    ['a prompt of many short tokens', { messages: USER('word '.repeat(2_000)) }],
    ['n copies of a short answer', { messages: USER('word '.repeat(100)), n: 40 }],
    ['logprobs on each token', { messages: USER('word '.repeat(300)), logprobs: true, top_logprobs: 1 }],
  ]

  test.each(STREAM_ONLY)(
    '%s: whole it is answered; streamed it is cut at the cap with an error event',
    async (_name, request) => {
      const whole = await small.chat({ model: 'echo', ...request })
      expect(whole.status).toBe(200)
      expect(utf8(await whole.text())).toBeLessThan(65_536)
      const response = await small.chat({ model: 'echo', ...request, stream: true })
      expect(response.status).toBe(200)
      const body = await readAll(response)
      expect(utf8(body)).toBeLessThanOrEqual(65_536 + 1024)
      expect(body).not.toContain('data: [DONE]')
      expect(body.trimEnd().split('\n\n').at(-1)).toContain('"code":"response_too_large"')
    },
  )

  test('max_tokens brings the same prompt under the cap', async () => {
    const response = await small.chat({ model: 'echo', messages: USER('x '.repeat(35_000)), max_tokens: 1_000 })
    expect(response.status).toBe(200)
  })

  test('a stream under the cap ends with [DONE] as before', async () => {
    const body = await readAll(await small.chat({ model: 'echo', messages: USER('fine'), stream: true }))
    expect(body.endsWith('data: [DONE]\n\n')).toBe(true)
  })

  test.each(['100', '65535', 'lots', '-1'])('%p is refused at start with one line naming the variable', (value) => {
    expect(() => parseChatConfig({ CHAT_MAX_RESPONSE_BYTES: value }, PROVIDER_KINDS)).toThrow(
      /^CHAT_MAX_RESPONSE_BYTES must be (at least 65536|a whole number)/,
    )
  })
})

describe('the echo provider sizes a non-streamed answer before building it', () => {
  const request: ChatRequest = {
    model: 'echo',
    messages: USER('Héllo wörld, ça va? 🌱 '.repeat(300)),
    n: 3,
    logprobs: true,
    top_logprobs: 5,
  }
  const size = async (limit: number) =>
    utf8(
      JSON.stringify(
        await createEchoProvider({ maxResponseBytes: limit }).complete(request, new AbortController().signal),
      ),
    )

  test('its estimate is never below the real size, and at most 1 KB above it', async () => {
    const actual = await size(1 << 30)
    expect(await size(actual + 1024)).toBe(actual)
    const refused = createEchoProvider({ maxResponseBytes: actual - 1 }).complete(request, new AbortController().signal)
    expect(refused).rejects.toBeInstanceOf(ProviderError)
    await refused.catch(() => {})
  })
})

describe('the cap counts every byte of a stream, its [DONE] included', () => {
  // A stream of about 70 KB: measured once under the default cap, then served under caps set around its size.
  const request = { model: 'echo', messages: USER('word '.repeat(2_100)), stream: true }

  test('a cap of exactly the stream size lets it end with [DONE]; one byte less cuts it with an error event', async () => {
    const whole = await readAll(await app.chat(request))
    expect(whole.endsWith('data: [DONE]\n\n')).toBe(true)
    const size = utf8(whole)
    expect(size).toBeGreaterThan(65_536)
    const exact = await makeChatApp({ env: { CHAT_MAX_RESPONSE_BYTES: String(size) } })
    const short = await makeChatApp({ env: { CHAT_MAX_RESPONSE_BYTES: String(size - 1) } })
    try {
      const fits = await readAll(await exact.chat(request))
      expect(utf8(fits)).toBe(size)
      expect(fits.endsWith('data: [DONE]\n\n')).toBe(true)
      // Only the 14 bytes of [DONE] would pass the cap here: they count too.
      const cut = await readAll(await short.chat(request))
      expect(cut).not.toContain('data: [DONE]')
      expect(cut.trimEnd().split('\n\n').at(-1)).toContain('"code":"response_too_large"')
    } finally {
      await Promise.all([exact.close(), short.close()])
    }
  })
})
