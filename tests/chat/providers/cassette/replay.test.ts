/**
 * `kind: replay` from cassettes written by hand, as a reviewer would read them: which requests match (key order and
 * the ignored fields do not count), what a miss says (the nearest recorded request and how it differs), and the
 * three timing modes.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { cassettePath, replayingSide, type Side } from './apps'

setDefaultTimeout(30_000)

const HEADER = { trellis_cassette: 1, provider: 'up', kind: 'openai', settings: {} }

/** A chunk event of OpenAI's stream, as an upstream sends it. */
const event = (delta: Record<string, unknown>, finish: string | null) => {
  const choices = [{ index: 0, delta, finish_reason: finish }]
  const data = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'upstream-model', choices }
  return `data: ${JSON.stringify(data)}\n\n`
}
const chunk = (content: string) => event({ content }, null)
const STOP = event({}, 'stop')

/** The request body the openai provider sends upstream for a streamed `messages`. */
const streamed = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'upstream-model',
  messages: [{ role: 'user', content }],
  stream: true,
  stream_options: { include_usage: true },
  ...extra,
})

/** An exchange whose stream sends `pieces` at `every` ms apart, the headers at 0. */
function exchange(body: Record<string, unknown>, pieces: string[], every = 0) {
  const events = [...pieces.map(chunk), STOP, 'data: [DONE]\n\n'].map((data, i) => ({ ms: i * every, data }))
  return {
    at: '2026-11-27T03:00:00.000Z',
    request: { method: 'POST', path: '/chat/completions', headers: {}, body },
    response: { status: 200, ms: 0, headers: { 'content-type': 'text/event-stream' }, events },
  }
}

function cassetteOf(...exchanges: unknown[]): string {
  const path = cassettePath()
  writeFileSync(path, [HEADER, ...exchanges].map((line) => `${JSON.stringify(line)}\n`).join(''))
  return path
}

const ask = (side: Side, content: string, extra: Record<string, unknown> = {}) =>
  side.post('/v1/chat/completions', { model: 'm', stream: true, messages: [{ role: 'user', content }], ...extra })

describe('matching', () => {
  let side: Side
  beforeAll(async () => {
    side = await replayingSide(
      cassetteOf(
        exchange(streamed('weather in Paris', { temperature: 0.5, user: 'alice' }), ['Sunny']),
        exchange(streamed('weather in Rome', { temperature: 0.5 }), ['Warm']),
        exchange(streamed('tools', { metadata: { user_id: 'u1', run: 'a' } }), ['Tool']),
      ),
    )
  })
  afterAll(() => side.close())

  test('the same request matches, whoever asks (user) and in any key order', async () => {
    const response = await side.post('/v1/chat/completions', {
      temperature: 0.5,
      user: 'bob',
      messages: [{ content: 'weather in Paris', role: 'user' }],
      stream: true,
      model: 'm',
    })
    expect(response.status).toBe(200)
    expect(await response.text()).toBe(`${chunk('Sunny')}${STOP}data: [DONE]\n\n`)
  })

  test('metadata is ignored by default', async () => {
    const response = await ask(side, 'tools', { metadata: { user_id: 'u2', run: 'b' } })
    expect(await response.text()).toContain('Tool')
  })

  test.each([
    [
      'a different message',
      { content: 'weather in Pariss' },
      ['line 2', 'messages[0].content: recorded "weather in Paris", got "weather in Pariss"'],
    ],
    [
      'a different temperature',
      { content: 'weather in Rome', extra: { temperature: 0.7 } },
      ['line 3', 'temperature: recorded 0.5, got 0.7'],
    ],
    [
      'a field the recording lacks',
      { content: 'weather in Rome', extra: { temperature: 0.5, seed: 7 } },
      ['line 3', 'seed: recorded nothing, got 7'],
    ],
  ] as const)('a miss is a 400 naming the nearest recorded request: %s', async (_name, request, fragments) => {
    const extra = 'extra' in request ? request.extra : { temperature: 0.5 }
    const response = await ask(side, request.content, extra)
    expect(response.status).toBe(400)
    const { error } = (await response.json()) as { error: { message: string; type: string; code: string } }
    expect(error.type).toBe('invalid_request_error')
    expect(error.code).toBe('cassette_miss')
    expect(error.message).toContain('No exchange recorded in')
    for (const fragment of fragments) expect(error.message).toContain(fragment)
  })

  test('a path never recorded names the path that was', async () => {
    const response = await side.post('/v1/embeddings', { model: 'm', input: 'x' })
    expect(response.status).toBe(400)
    expect(await response.text()).toMatch(
      /none was recorded for \/embeddings \(the nearest, line \d, is \/chat\/completions\)/,
    )
  })
})

test('ignore: replaces the defaults, and reaches inside objects with a dotted path', async () => {
  const side = await replayingSide(
    cassetteOf(exchange(streamed('x', { metadata: { user_id: 'u1', run: 'a' } }), ['ok'])),
    {
      ignore: ['metadata.user_id'],
    },
  )
  try {
    expect((await ask(side, 'x', { metadata: { user_id: 'u9', run: 'a' } })).status).toBe(200)
    const missed = await ask(side, 'x', { metadata: { user_id: 'u1', run: 'b' } })
    expect(missed.status).toBe(400)
    expect(await missed.text()).toContain('metadata.run: recorded \\"a\\", got \\"b\\"')
  } finally {
    await side.close()
  }
})

describe('timing', () => {
  // Four events 150 ms apart: the last at 450 ms. Timers never fire early, so the lower bounds are exact; the upper
  // bounds leave a loaded machine room and still tell the modes apart.
  const path = () => cassetteOf(exchange(streamed('slow'), ['a', 'b'], 150))
  const elapsed = async (timing: unknown) => {
    const side = await replayingSide(path(), { timing })
    try {
      const started = performance.now()
      const response = await ask(side, 'slow')
      expect(await response.text()).toBe(`${chunk('a')}${chunk('b')}${STOP}data: [DONE]\n\n`)
      return performance.now() - started
    } finally {
      await side.close()
    }
  }

  test('original: each event at its recorded time', async () => {
    expect(await elapsed('original')).toBeGreaterThanOrEqual(449)
  })

  test('none: at once', async () => {
    expect(await elapsed('none')).toBeLessThan(300)
  })

  test('scale: every wait multiplied (0.2: the last event at 90 ms)', async () => {
    const total = await elapsed({ scale: 0.2 })
    expect(total).toBeGreaterThanOrEqual(89)
    expect(total).toBeLessThan(449)
  })
})
