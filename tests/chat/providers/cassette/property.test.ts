/**
 * The property of issue #28 §4: replay of a recording gives byte-identical events. Random exchanges from a seeded
 * generator (streams with and without usage, whole answers, upstream errors, streams that break, events split at
 * random bytes, characters split across reads) are recorded through a real Trellis, the upstream is stopped, and a
 * second Trellis replays them: every status and every byte the client receives is the same.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { eventsOf, startMockUpstream, type MockReply, type MockUpstream } from '../../mock-upstream'
import { cassettePath, recordingSide, replayingSide, type Side } from './apps'

setDefaultTimeout(60_000)

const SEED = Number(process.env.PROPERTY_SEED ?? 28)
const RUNS = 24

/** Mulberry32: a small seeded generator, so that a failure names the seed that reproduces it. */
function generator(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (below: number) => Math.floor(next() * below)
  const pick = <T>(items: readonly T[]) => items[int(items.length)]!
  return { next, int, pick }
}

const WORDS = ['tok', 'é', '🌱', ' ', 'naïve', '\n', '"quoted"', '\\', '日本', 'x'.repeat(50)]

type Case = { body: Record<string, unknown>; reply: MockReply }

function randomCase(random: ReturnType<typeof generator>, index: number): Case {
  const content = `case ${index}: ${Array.from({ length: 1 + random.int(4) }, () => random.pick(WORDS)).join('')}`
  const body: Record<string, unknown> = { model: 'm', messages: [{ role: 'user', content }] }
  const pieces = Array.from({ length: random.int(6) }, () =>
    Array.from({ length: 1 + random.int(3) }, () => random.pick(WORDS)).join(''),
  )
  const shape = random.int(6)
  if (shape === 0) {
    const status = random.pick([400, 404, 429, 500, 503])
    const errorBody = { error: { message: `${random.pick(WORDS)} failed`, type: 'x', param: null, code: null } }
    return {
      body: { ...body, stream: random.next() < 0.5 },
      reply: { status, errorBody, headers: { 'x-case': `${index}` } },
    }
  }
  if (shape === 1) return { body, reply: { chunks: pieces } }
  body.stream = true
  if (random.next() < 0.5) body.stream_options = { include_usage: true }
  if (shape === 2) return { body, reply: { chunks: pieces, failAfterChunks: random.int(pieces.length + 1) } }
  if (shape === 3) {
    // The same events, cut at random byte offsets: reads that end mid-event and mid-character.
    const text = eventsOf(
      { chunks: pieces },
      { ...body, model: 'upstream-model', stream_options: { include_usage: true } },
    )
      .map((event) => `data: ${JSON.stringify(event)}\n\n`)
      .join('')
    const bytes = new TextEncoder().encode(`${text}data: [DONE]\n\n`)
    const cuts = [...new Set(Array.from({ length: 1 + random.int(8) }, () => random.int(bytes.length)))].sort(
      (a, b) => a - b,
    )
    const rawPieces = [0, ...cuts].map((start, i) => bytes.slice(start, [...cuts, bytes.length][i]))
    return { body, reply: { rawPieces: rawPieces.filter((piece) => piece.length > 0), chunkDelayMs: 1 } }
  }
  return { body, reply: { chunks: pieces, chunkDelayMs: random.int(3) } }
}

/** Trellis names the request in its own error events: the same id on both sides, so those bytes agree too. */
const requestId = (i: number) => ({ 'x-request-id': `property-case-${i}` })

let upstream: MockUpstream
let replaying: Side
const cases: Case[] = []
const recorded: { status: number; body: string }[] = []

beforeAll(async () => {
  const random = generator(SEED)
  for (let i = 0; i < RUNS; i++) cases.push(randomCase(random, i))
  upstream = await startMockUpstream()
  const cassette = cassettePath()
  const recording = await recordingSide({ baseUrl: upstream.baseUrl, apiKey: 'sk-property-test-key' }, cassette)
  try {
    for (const [i, { body, reply }] of cases.entries()) {
      upstream.script(reply)
      const response = await recording.post('/v1/chat/completions', body, requestId(i))
      recorded.push({ status: response.status, body: await response.text() })
    }
  } finally {
    await recording.close()
    await upstream.stop()
  }
  replaying = await replayingSide(cassette)
})

afterAll(async () => {
  await replaying?.close()
})

test(`replay of a recording gives byte-identical events (seed ${SEED}, ${RUNS} random exchanges)`, async () => {
  // The generator made every shape it is meant to (a property that never met a broken stream proves little).
  const shapes = recorded.map(({ status, body }) =>
    status !== 200
      ? 'error'
      : body.includes('"upstream_unreachable"')
        ? 'broken'
        : body.startsWith('data:')
          ? 'stream'
          : 'whole',
  )
  expect(new Set(shapes)).toEqual(new Set(['error', 'broken', 'stream', 'whole']))
  for (const [i, { body }] of cases.entries()) {
    const response = await replaying.post('/v1/chat/completions', body, requestId(i))
    expect({ case: i, status: response.status, body: await response.text() }).toEqual({ case: i, ...recorded[i]! })
  }
})
