/**
 * Every OpenAI chunk sequence the translator may meet, read by the official SDK's MessageStream
 * (`@anthropic-ai/sdk`, unchanged) from a real listening server: the events must be ones it
 * accepts, and the message it assembles must be the upstream's answer. What the SDK would choke
 * on (arguments that are not JSON) is an `error` event saying whose fault it is, not a parse error.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import Anthropic, { APIError } from '@anthropic-ai/sdk'
import type { ChatCompletionChunk, ChatProvider } from '../../../src/chat/providers/provider'
import { SETUP_TIMEOUT } from '../../helpers/app'
import { makeChatApp, registryOf } from '../chat-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const chunk = (
  delta: Record<string, unknown> | undefined,
  finish: string | null = null,
  index = 0,
): ChatCompletionChunk => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'up',
  choices: [{ index, ...(delta ? { delta } : {}), finish_reason: finish }],
})
const usageOnly: ChatCompletionChunk = {
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'up',
  choices: [],
  usage: { prompt_tokens: 3, completion_tokens: 4 },
}
const call = (index: number, fields: { id?: string; name?: string; arguments?: string }) =>
  chunk({
    tool_calls: [
      {
        index,
        ...(fields.id ? { id: fields.id, type: 'function' } : {}),
        function: {
          ...(fields.name ? { name: fields.name } : {}),
          ...(fields.arguments !== undefined ? { arguments: fields.arguments } : {}),
        },
      },
    ],
  })

/**
 * One row per upstream: its chunks, and the content and stop reason the SDK must assemble (or the error it must
 * surface).
 */
const SEQUENCES: { name: string; chunks: ChatCompletionChunk[]; content?: unknown[]; stop?: string; error?: string }[] =
  [
    {
      // Parallel calls whose deltas alternate by index: a call is held whole until the open one closes (they split into
      // five blocks, two without a name).
      name: 'reasoning, text, then two tool calls interleaved by index',
      chunks: [
        chunk({ reasoning_content: 'hm' }),
        chunk({ content: 'hi' }),
        call(0, { id: 'a', name: 'f', arguments: '' }),
        call(1, { id: 'b', name: 'g', arguments: '{"x"' }),
        call(0, { arguments: '{"y":1}' }),
        call(1, { arguments: ':2}' }),
        chunk({}, 'tool_calls'),
        usageOnly,
      ],
      content: [
        { type: 'thinking', thinking: 'hm', signature: '' },
        { type: 'text', text: 'hi', citations: null },
        { type: 'tool_use', id: 'a', name: 'f', input: { y: 1 }, caller: { type: 'direct' } },
        { type: 'tool_use', id: 'b', name: 'g', input: { x: 2 }, caller: { type: 'direct' } },
      ],
      stop: 'tool_use',
    },
    {
      // The block waits for the name (it was opened with name '' and a made-up id).
      name: 'a tool call whose arguments arrive before its name and id',
      chunks: [
        call(0, { arguments: '{"a":' }),
        call(0, { id: 'x', name: 'f', arguments: '1}' }),
        chunk({}, 'tool_calls'),
      ],
      content: [{ type: 'tool_use', id: 'x', name: 'f', input: { a: 1 }, caller: { type: 'direct' } }],
      stop: 'tool_use',
    },
    {
      name: 'a finish without usage',
      chunks: [chunk({ content: 'x' }), chunk({}, 'stop')],
      content: [{ type: 'text', text: 'x', citations: null }],
      stop: 'end_turn',
    },
    {
      name: 'a finish chunk without a delta',
      chunks: [chunk({ content: 'x' }), chunk(undefined, 'length'), chunk({ content: 'after' })],
      content: [{ type: 'text', text: 'x', citations: null }],
      stop: 'max_tokens',
    },
    {
      name: 'a usage-only chunk',
      chunks: [chunk({ content: 'x' }), chunk({}, 'stop'), usageOnly],
      content: [{ type: 'text', text: 'x', citations: null }],
      stop: 'end_turn',
    },
    // Choice 1's text ran into the message and its finish reason became the stop reason.
    {
      name: 'chunks of choice 1 (an upstream ignoring n)',
      chunks: [
        chunk({ content: 'zero' }),
        chunk({ content: 'ONE' }, null, 1),
        chunk({}, 'stop'),
        chunk({}, 'length', 1),
      ],
      content: [{ type: 'text', text: 'zero', citations: null }],
      stop: 'end_turn',
    },
    {
      name: 'content after finish_reason',
      chunks: [chunk({ content: 'x' }), chunk({}, 'stop'), chunk({ content: 'late' })],
      content: [{ type: 'text', text: 'x', citations: null }],
      stop: 'end_turn',
    },
    // message_start was lost: the SDK said "request ended without sending any chunks".
    { name: 'an empty stream', chunks: [], content: [], stop: 'end_turn' },
    // The SDK threw its own JSON parse error on content_block_stop.
    {
      name: 'tool arguments that are not JSON',
      chunks: [call(0, { id: 'x', name: 'f', arguments: '{oops' }), chunk({}, 'tool_calls')],
      error: 'The upstream answered a tool call whose arguments are not a JSON object.',
    },
    {
      name: 'a tool call that never gets a name',
      chunks: [call(0, { id: 'x', arguments: '{}' }), chunk({}, 'tool_calls')],
      error: 'The upstream answered a tool call without a name.',
    },
    {
      name: 'a tool call continued after text followed it',
      chunks: [call(0, { id: 'x', name: 'f', arguments: '{}' }), chunk({ content: 'hm' }), call(0, { arguments: ' ' })],
      error: 'The upstream continued a tool call after other content had followed it.',
    },
  ]

/**
 * Upstream finish reasons and the stop reason each becomes, whole and streamed. A plain lookup
 * found `toString` and `constructor` on the table's prototype: the stop reason was a function,
 * which JSON left out of the message and of `message_delta`.
 */
const FINISHES: [finish: string, stop: Anthropic.StopReason][] = [
  ['stop', 'end_turn'],
  ['length', 'max_tokens'],
  ['tool_calls', 'tool_use'],
  ['content_filter', 'refusal'],
  ['toString', 'end_turn'],
  ['constructor', 'end_turn'],
  ['__proto__', 'end_turn'],
  ['hasOwnProperty', 'end_turn'],
  ['an_unknown_reason', 'end_turn'],
]

/** A provider answering `x` and then `finish`, whole or streamed. */
const finishing = (finish: string): ChatProvider => ({
  name: `finish-${finish}`,
  complete: async () => ({
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'up',
    choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: finish }],
  }),
  stream: async function* () {
    yield* [chunk({ content: 'x' }), chunk({}, finish), usageOnly]
  },
})

let t: Awaited<ReturnType<typeof makeChatApp>>
let server: ReturnType<typeof Bun.serve>
let client: Anthropic
beforeAll(async () => {
  const providers: Record<string, ChatProvider> = {}
  for (const { name, chunks } of SEQUENCES) {
    providers[name] = {
      name,
      complete: async () => {
        throw new Error('not used')
      },
      stream: async function* () {
        yield* chunks
      },
    }
  }
  for (const [finish] of FINISHES) providers[`finish-${finish}`] = finishing(finish)
  t = await makeChatApp({ chat: { registry: registryOf(providers), keepAliveMs: 15_000 } })
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: t.app.fetch })
  client = new Anthropic({ apiKey: t.token, baseURL: `http://127.0.0.1:${server.port}`, maxRetries: 0 })
}, SETUP_TIMEOUT)
afterAll(async () => {
  await server.stop(true)
  await t.close()
}, SETUP_TIMEOUT)

describe("the SDK's MessageStream accepts every translated stream", () => {
  for (const row of SEQUENCES) {
    test(row.name, async () => {
      const stream = client.messages.stream({
        model: row.name,
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: 'x' }],
      })
      const message = await stream.finalMessage().catch((caught: unknown) => caught)
      if (row.error) {
        expect(message).toBeInstanceOf(APIError)
        expect((message as APIError).type).toBe('api_error')
        expect((message as APIError).message).toContain(row.error)
        return
      }
      if (message instanceof Error) throw message
      expect((message as Anthropic.Message).content as unknown[]).toEqual(row.content!)
      expect((message as Anthropic.Message).stop_reason).toBe(row.stop as Anthropic.StopReason)
    })
  }

  // A call that never gets its name is held, never sent: the response's cap must bound it all the same.
  test('a held tool call does not grow past the response cap', async () => {
    const capped = await makeChatApp({
      chat: {
        registry: registryOf({
          big: {
            name: 'big',
            complete: async () => ({}) as never,
            stream: async function* () {
              for (let i = 0; ; i++) yield call(0, { arguments: 'x'.repeat(4096) })
            },
          },
        }),
        keepAliveMs: 15_000,
        maxResponseBytes: 65_536,
      },
    })
    try {
      const response = await capped.app.handle(
        new Request('http://localhost/v1/messages', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': capped.token },
          body: JSON.stringify({
            model: 'big',
            max_tokens: 16,
            stream: true,
            messages: [{ role: 'user', content: 'x' }],
          }),
        }),
      )
      const body = await response.text()
      expect(body).toContain('event: error')
      expect(body).toContain('limit of 65536 bytes')
    } finally {
      await capped.close()
    }
  })
})

describe("an upstream's finish reason as the stop reason", () => {
  for (const [finish, stop] of FINISHES) {
    const ask = { model: `finish-${finish}`, max_tokens: 16, messages: [{ role: 'user' as const, content: 'x' }] }
    test(`${finish} → ${stop}, in a whole message`, async () => {
      expect((await client.messages.create(ask)).stop_reason).toBe(stop)
    })
    test(`${finish} → ${stop}, in the streamed message_delta`, async () => {
      expect((await client.messages.stream(ask).finalMessage()).stop_reason).toBe(stop)
    })
  }
})
