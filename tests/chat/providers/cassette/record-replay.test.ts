/**
 * `kind: record` and `kind: replay` (issue #28 §2), end to end: the official `openai` SDK talks to a real Trellis
 * that records a mock upstream; the upstream is then stopped and a second Trellis replays the cassette. What the
 * clients receive the second time is byte for byte what they received the first: streams, whole answers,
 * embeddings, errors and retries.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import OpenAI, { RateLimitError } from 'openai'
import { startMockUpstream, type MockUpstream } from '../../mock-upstream'
import { cassettePath, exchangesOf, recordingSide, replayingSide, type Side } from './apps'

setDefaultTimeout(30_000)

const KEY = 'sk-upstream-secret-0123456789'
const EMBEDDING = { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.25, -0.5] }], model: 'e' }
const EMBEDDING_USAGE = { prompt_tokens: 2, total_tokens: 2 }

let upstream: MockUpstream
let cassette: string
let recording: Side
let replaying: Side
/** What the clients received while recording, by step; the replay must give exactly the same. */
const received: Record<string, { status: number; body: string }> = {}

const STEPS: { name: string; path: string; body: Record<string, unknown> }[] = [
  { name: 'stream', path: '/v1/chat/completions', body: { model: 'm', stream: true, messages: [user('stream')] } },
  {
    name: 'stream with usage',
    path: '/v1/chat/completions',
    body: { model: 'm', stream: true, stream_options: { include_usage: true }, messages: [user('usage')] },
  },
  { name: 'whole', path: '/v1/chat/completions', body: { model: 'm', messages: [user('whole')] } },
  { name: 'embeddings', path: '/v1/embeddings', body: { model: 'm', input: 'hello', encoding_format: 'float' } },
]

function user(content: string) {
  return { role: 'user' as const, content }
}

beforeAll(async () => {
  upstream = await startMockUpstream()
  cassette = cassettePath()
  recording = await recordingSide({ baseUrl: upstream.baseUrl, apiKey: KEY }, cassette)
  const client = new OpenAI({ baseURL: `${recording.origin}/v1`, apiKey: recording.token, maxRetries: 0 })
  // The SDK's own requests are recorded too (its stream, its whole answer, its embeddings)…
  upstream.script({ chunks: ['Hel', 'lo ', '🌱'] })
  const stream = await client.chat.completions.create({ model: 'm', stream: true, messages: [user('sdk')] })
  for await (const _ of stream);
  upstream.script({ rawBody: new TextEncoder().encode(JSON.stringify({ ...EMBEDDING, usage: EMBEDDING_USAGE })) })
  await client.embeddings.create({ model: 'm', input: 'sdk', encoding_format: 'float' })
  // …and the raw steps, whose bytes are kept to compare.
  for (const step of STEPS) {
    upstream.script(
      step.name === 'embeddings'
        ? { rawBody: new TextEncoder().encode(JSON.stringify({ ...EMBEDDING, usage: EMBEDDING_USAGE })) }
        : { chunks: 4 },
    )
    const response = await recording.post(step.path, step.body)
    received[step.name] = { status: response.status, body: await response.text() }
  }
  upstream.script({ status: 429, headers: { 'retry-after': '7' } })
  const limited = await recording.post('/v1/chat/completions', { model: 'm', messages: [user('429')] })
  received['429'] = { status: limited.status, body: await limited.text() }
  await recording.close()
  await upstream.stop()
  replaying = await replayingSide(cassette)
})

afterAll(async () => {
  await replaying?.close()
})

describe('a recorded session replays with the upstream gone', () => {
  test('the cassette holds one line per exchange: header, then request, status and the events with their times', () => {
    const exchanges = exchangesOf(cassette)
    expect(exchanges).toHaveLength(2 + STEPS.length + 1)
    const [first] = exchanges
    expect(first.request).toMatchObject({ method: 'POST', path: '/chat/completions' })
    expect(first.request.body).toMatchObject({ model: 'upstream-model', stream: true, messages: [user('sdk')] })
    expect(first.response.status).toBe(200)
    expect(first.response.events.map((event: { data: string }) => event.data).join('')).toContain('🌱')
    for (const event of first.response.events) expect(event.ms).toBeGreaterThanOrEqual(first.response.ms)
    expect(exchanges.at(-1).response).toMatchObject({ status: 429, headers: { 'retry-after': '7' } })
  })

  test.each(STEPS.map((step) => [step.name, step] as const))(
    '%s: byte for byte what the client got',
    async (name, step) => {
      const response = await replaying.post(step.path, step.body)
      expect({ status: response.status, body: await response.text() }).toEqual(received[name]!)
    },
  )

  test('an error replays with its status and headers: the SDK sees the same 429 and its Retry-After', async () => {
    const response = await replaying.post('/v1/chat/completions', { model: 'm', messages: [user('429')] })
    expect({ status: response.status, body: await response.text() }).toEqual(received['429']!)
    const client = new OpenAI({ baseURL: `${replaying.origin}/v1`, apiKey: replaying.token, maxRetries: 0 })
    const error = await client.chat.completions.create({ model: 'm', messages: [user('429')] }).catch((e) => e)
    expect(error).toBeInstanceOf(RateLimitError)
    expect((error as RateLimitError).headers?.get('retry-after')).toBe('7')
  })

  test('the openai SDK replays its own stream and embeddings', async () => {
    const client = new OpenAI({ baseURL: `${replaying.origin}/v1`, apiKey: replaying.token, maxRetries: 0 })
    const stream = await client.chat.completions.create({ model: 'm', stream: true, messages: [user('sdk')] })
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
    expect(text).toBe('Hello 🌱')
    const embeddings = await client.embeddings.create({ model: 'm', input: 'sdk', encoding_format: 'float' })
    expect(embeddings.data[0]!.embedding).toEqual([0.25, -0.5])
  })

  test('the same request again gets the same answer: the last recording repeats once the others are used', async () => {
    const step = STEPS[0]!
    for (let i = 0; i < 2; i++) {
      const response = await replaying.post(step.path, step.body)
      expect(await response.text()).toBe(received[step.name]!.body)
    }
  })
})

describe('identical requests replay in the order they were recorded', () => {
  test('a 429 recorded before its successful retry replays as the 429, then the success', async () => {
    const mock = await startMockUpstream()
    const path = cassettePath()
    try {
      mock.script({ status: 429, headers: { 'retry-after': '0' } }, { chunks: ['retried'] })
      const recorder = await recordingSide({ baseUrl: mock.baseUrl }, path, { maxRetries: 1, retryBaseMs: 0 })
      const body = { model: 'm', messages: [user('retry')] }
      const live = await recorder.post('/v1/chat/completions', body)
      const liveText = await live.text()
      await recorder.close()
      expect(exchangesOf(path).map((exchange) => exchange.response.status)).toEqual([429, 200])
      const player = await replayingSide(path, { maxRetries: 1, retryBaseMs: 0 })
      const replayed = await player.post('/v1/chat/completions', body)
      expect({ status: replayed.status, body: await replayed.text() }).toEqual({ status: live.status, body: liveText })
      await player.close()
    } finally {
      await mock.stop()
    }
  })
})

test('an upstream that could not be reached replays as one: the same 502, with no network', async () => {
  const path = cassettePath()
  const body = { model: 'm', messages: [user('anyone there?')] }
  const headers = { 'x-request-id': 'unreachable-1' }
  // Port 9 (discard) on loopback: nothing listens, the connection is refused.
  const recorder = await recordingSide({ baseUrl: 'http://127.0.0.1:9/v1' }, path)
  const live = await recorder.post('/v1/chat/completions', body, headers)
  const liveAnswer = { status: live.status, body: await live.text() }
  await recorder.close()
  expect(liveAnswer.status).toBe(502)
  expect(exchangesOf(path)).toMatchObject([{ request: { path: '/chat/completions' }, unreachable: {} }])
  const player = await replayingSide(path)
  try {
    const replayed = await player.post('/v1/chat/completions', body, headers)
    expect({ status: replayed.status, body: await replayed.text() }).toEqual(liveAnswer)
  } finally {
    await player.close()
  }
})
