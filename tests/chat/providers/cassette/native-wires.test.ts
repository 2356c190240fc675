/**
 * Record and replay on the wires a wrapped provider speaks natively: Anthropic's Messages (streamed, whole,
 * count_tokens, and Chat Completions translated to it) through an `anthropic` provider, and OpenAI's Responses through
 * an `openai` provider with `responses: native`. Recorded at the provider's fetch, each replays byte for byte with no
 * request reaching an upstream.
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { startMockAnthropic } from '../../mock-anthropic'
import { useMockResponses } from '../../mock-responses'
import { cassettePath, exchangesOf, recordingSide, replayingSide } from './apps'

setDefaultTimeout(60_000)

type Step = { path: string; body: Record<string, unknown> }
const user = (content: string) => [{ role: 'user', content }]

/** Each step through a recording Trellis, then through a replaying one: what the client got both times. */
async function recordThenReplay(upstream: Record<string, unknown>, steps: Step[], script: () => void) {
  const cassette = cassettePath()
  const recording = await recordingSide(upstream, cassette)
  const live: { status: number; body: string }[] = []
  try {
    for (const [i, step] of steps.entries()) {
      script()
      const response = await recording.post(step.path, step.body, { 'x-request-id': `native-${i}` })
      live.push({ status: response.status, body: await response.text() })
    }
  } finally {
    await recording.close()
  }
  const replaying = await replayingSide(cassette)
  const replayed: { status: number; body: string }[] = []
  try {
    for (const [i, step] of steps.entries()) {
      const response = await replaying.post(step.path, step.body, { 'x-request-id': `native-${i}` })
      replayed.push({ status: response.status, body: await response.text() })
    }
  } finally {
    await replaying.close()
  }
  return { live, replayed, cassette }
}

describe('through an anthropic provider', () => {
  test('Messages streamed and whole, count_tokens, and Chat Completions translated: byte for byte', async () => {
    const anthropic = await startMockAnthropic()
    const steps: Step[] = [
      { path: '/v1/messages', body: { model: 'm', max_tokens: 50, stream: true, messages: user('stream') } },
      { path: '/v1/messages', body: { model: 'm', max_tokens: 50, messages: user('whole') } },
      { path: '/v1/messages/count_tokens', body: { model: 'm', messages: user('count') } },
      { path: '/v1/chat/completions', body: { model: 'm', stream: true, messages: user('translated') } },
    ]
    try {
      const upstream = { kind: 'anthropic', baseUrl: anthropic.baseUrl, apiKey: 'sk-ant-recorded-key' }
      const { live, replayed, cassette } = await recordThenReplay(upstream, steps, () =>
        anthropic.script({
          blocks: [
            { type: 'thinking', thinking: ['Hm', 'm.'] },
            { type: 'text', text: ['Hi', ' 🌱'] },
          ],
        }),
      )
      expect(live.map((answer) => answer.status)).toEqual([200, 200, 200, 200])
      expect(replayed).toEqual(live)
      expect(anthropic.requests).toHaveLength(steps.length)
      expect(exchangesOf(cassette).map((exchange) => exchange.request.path)).toEqual([
        '/messages',
        '/messages',
        '/messages/count_tokens',
        '/messages',
      ])
      expect(live[0]!.body).toContain('event: message_stop')
    } finally {
      await anthropic.stop()
    }
  })
})

describe('through an openai provider with responses: native', () => {
  const upstream = useMockResponses()

  test('Responses streamed and whole: byte for byte, the events on their own wire', async () => {
    const steps: Step[] = [
      { path: '/v1/responses', body: { model: 'm', stream: true, input: 'stream', store: false } },
      { path: '/v1/responses', body: { model: 'm', input: 'whole', store: false } },
    ]
    const provider = { baseUrl: upstream.baseUrl, apiKey: 'sk-recorded-key', responses: 'native' }
    const { live, replayed, cassette } = await recordThenReplay(provider, steps, () => upstream.script({}))
    expect(live.map((answer) => answer.status)).toEqual([200, 200])
    expect(replayed).toEqual(live)
    // Replay reached no upstream: the mock saw the recording's requests only.
    expect(upstream.requests).toHaveLength(steps.length)
    expect(exchangesOf(cassette).map((exchange) => exchange.request.path)).toEqual(['/responses', '/responses'])
    expect(live[0]!.body).toContain('event: response.completed')
  })
})
