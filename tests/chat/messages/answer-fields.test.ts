/**
 * A translated answer has every field `@anthropic-ai/sdk` types as always present (`null` where
 * Trellis knows nothing), whole and streamed, for text, tool use and thinking; and `stop_sequence`
 * names the sequence that ended it when Trellis knows it: echo knows (it cut the text), an upstream
 * that says so in vLLM's `stop_reason` knows, any other does not.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createEchoProvider } from '../../../src/chat/providers/echo/echo'
import type { ChatCompletionChunk, ChatProvider } from '../../../src/chat/providers/provider'
import { SETUP_TIMEOUT } from '../../helpers/app'
import { makeChatApp, readAll, registryOf } from '../chat-app'
import { expectSdkMessage, sdkEvents } from './sdk-shapes'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/** An OpenAI-form upstream that says "stopped at END" on its choice, as vLLM does, or says nothing (`null`). */
function stopping(name: string, stopReason: string | null): ChatProvider {
  const choice = (delta: Record<string, unknown>, finish: string | null) => ({
    index: 0,
    delta,
    finish_reason: finish,
    ...(finish ? { stop_reason: stopReason } : {}),
  })
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): ChatCompletionChunk => ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'up',
    choices: [choice(delta, finish)],
  })
  return {
    name,
    complete: async () => ({
      id: 'c',
      object: 'chat.completion',
      created: 1,
      model: 'up',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'up to' }, finish_reason: 'stop', stop_reason: stopReason },
      ],
    }),
    stream: async function* () {
      yield chunk({ role: 'assistant', content: 'up to' })
      yield chunk({}, 'stop')
    },
  }
}

let t: Awaited<ReturnType<typeof makeChatApp>>
beforeAll(async () => {
  const echo = createEchoProvider()
  const registry = registryOf({
    echo,
    'echo-reasoner': echo,
    vllm: stopping('vllm', 'END'),
    silent: stopping('silent', null),
  })
  t = await makeChatApp({ chat: { registry, keepAliveMs: 15_000 } })
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const post = (body: Record<string, unknown>) =>
  t.app.handle(
    new Request('http://localhost/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.token },
      body: JSON.stringify({ model: 'echo', max_tokens: 64, ...body }),
    }),
  )
const say = (content: string) => [{ role: 'user', content }]
const weather = {
  name: 'get_weather',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}

/** One row per kind of answer: the request, and the block types it must hold. */
const ANSWERS: [name: string, body: Record<string, unknown>, blocks: string[]][] = [
  ['text', { messages: say('hello there') }, ['text']],
  [
    'a tool call',
    { messages: say('Lisbon'), tools: [weather], tool_choice: { type: 'tool', name: 'get_weather' } },
    ['tool_use'],
  ],
  [
    'thinking, then text',
    {
      model: 'echo-reasoner',
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: say('hm'),
    },
    ['thinking', 'text'],
  ],
]

describe("every field the SDK types as always present, in Trellis's own answers", () => {
  for (const [name, body, blocks] of ANSWERS) {
    test(`${name}, whole`, async () => {
      const message = await (await post(body)).json()
      expectSdkMessage(message)
      expect(message.content.map((block: { type: string }) => block.type)).toEqual(blocks)
      expect(message).toMatchObject({ container: null, stop_details: null, diagnostics: null })
      expect(message.usage).toMatchObject({
        cache_creation: null,
        server_tool_use: null,
        service_tier: null,
        inference_geo: null,
        speed: null,
      })
    })

    test(`${name}, streamed`, async () => {
      const events = sdkEvents(await readAll(await post({ ...body, stream: true })))
      const starts = events.filter((event) => event.type === 'content_block_start')
      expect(starts.map((event) => (event.content_block as { type: string }).type)).toEqual(blocks)
    })
  }

  test('text blocks have citations null; tool_use blocks were called directly by the model', async () => {
    const text = await (await post({ messages: say('hi') })).json()
    expect(text.content).toEqual([{ type: 'text', text: 'hi', citations: null }])
    const tool = await (await post(ANSWERS[1]![1])).json()
    expect(tool.content[0]).toMatchObject({ type: 'tool_use', name: 'get_weather', caller: { type: 'direct' } })
  })

  test('the reasoning tokens are output_tokens_details.thinking_tokens, when the model counted them', async () => {
    const thinking = await (await post(ANSWERS[2]![1])).json()
    expect(thinking.usage.output_tokens_details.thinking_tokens).toBeGreaterThan(0)
    expect(thinking.usage.output_tokens_details.thinking_tokens).toBeLessThan(thinking.usage.output_tokens)
    const vllm = await (await post({ model: 'vllm', messages: say('x') })).json()
    expect(vllm.usage.output_tokens_details).toBeNull()
  })
})

/** One row per case: the request, and the stop reason and sequence the message must carry. */
const STOPS: [name: string, body: Record<string, unknown>, stopReason: string, sequence: string | null][] = [
  [
    'echo cut at a stop sequence',
    { messages: say('one two END three'), stop_sequences: ['END'] },
    'stop_sequence',
    'END',
  ],
  [
    'echo: the earliest of two sequences',
    { messages: say('a; b. c'), stop_sequences: ['.', ';'] },
    'stop_sequence',
    ';',
  ],
  ['echo: a sequence not in the text', { messages: say('one two'), stop_sequences: ['END'] }, 'end_turn', null],
  [
    'echo: max_tokens before the sequence',
    { messages: say('one two three END'), stop_sequences: ['END'], max_tokens: 2 },
    'max_tokens',
    null,
  ],
  [
    "an upstream naming the sequence in vLLM's stop_reason",
    { model: 'vllm', messages: say('x'), stop_sequences: ['END'] },
    'stop_sequence',
    'END',
  ],
  [
    'an upstream naming a sequence the client did not ask for',
    { model: 'vllm', messages: say('x'), stop_sequences: ['STOP'] },
    'end_turn',
    null,
  ],
  ['an upstream that does not say', { model: 'silent', messages: say('x'), stop_sequences: ['END'] }, 'end_turn', null],
]

describe('stop_sequence names the sequence that matched, when Trellis knows it', () => {
  for (const [name, body, stopReason, sequence] of STOPS) {
    test(`${name}, whole`, async () => {
      const message = await (await post(body)).json()
      expect([message.stop_reason, message.stop_sequence]).toEqual([stopReason, sequence])
    })

    test(`${name}, streamed`, async () => {
      const events = sdkEvents(await readAll(await post({ ...body, stream: true })))
      const { delta } = events.at(-2) as { delta: { stop_reason: string; stop_sequence: string | null } }
      expect([delta.stop_reason, delta.stop_sequence]).toEqual([stopReason, sequence])
    })
  }

  test('the text ends before the sequence', async () => {
    const message = await (await post(STOPS[0]![1])).json()
    expect(message.content[0].text).toBe('one two ')
  })
})
