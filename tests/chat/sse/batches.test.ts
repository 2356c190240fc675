import { afterEach, describe, expect, test, setDefaultTimeout } from 'bun:test'
import type { ChatCompletionChunk, ChatProvider } from '../../../src/chat/providers/provider'
import { encodeEvent } from '../../../src/chat/sse/encode'
import { makeChatApp, readAll, registryOf, USER } from '../chat-app'

// Each app starts on a fresh database; the first one in a process takes seconds.
setDefaultTimeout(30_000)

/*
 * The route writes each item of a provider's `streamEvents` (for a relay, what one upstream read
 * completed) in one step. Grouping is a saving in work only: the bytes on the wire are exactly
 * those of writing the same chunks one event at a time.
 */

let close: (() => Promise<void>) | undefined
afterEach(async () => {
  await close?.()
  close = undefined
})

const chunk = (content: string, extra: Record<string, unknown> = {}): ChatCompletionChunk => ({
  id: 'chatcmpl-batch',
  object: 'chat.completion.chunk',
  created: 7,
  model: 'batched',
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
  ...extra,
})

/** Contents that JSON must escape, so the encoding of each event is exercised, not just its framing. */
const BATCHES: ChatCompletionChunk[][] = [
  [chunk('a'), chunk('line\nbreak'), chunk('"quoted"')],
  [],
  [chunk('é — 🌿', { usage: null })],
  [chunk('\u2028 separator'), chunk('</script>'), chunk('tab\t')],
]

/**
 * Streams BATCHES encoded through `streamEvents` (an empty batch as an empty item), and the same chunks one by one
 * through `stream`.
 */
function batchingProvider(): ChatProvider {
  return {
    name: 'batched',
    async complete() {
      throw new Error('not used')
    },
    async *stream() {
      for (const batch of BATCHES) yield* batch
    },
    async *streamEvents() {
      for (const batch of BATCHES) yield new Uint8Array(Buffer.concat(batch.map(encodeEvent)))
    },
  }
}

const expectedBody = () =>
  new TextDecoder().decode(
    Buffer.concat([...BATCHES.flat().map(encodeEvent), new TextEncoder().encode('data: [DONE]\n\n')]),
  )

describe('batched writes', () => {
  test('a stream of event groups (one empty) reaches the client as the events one at a time would, then [DONE]', async () => {
    const app = await makeChatApp({
      chat: { registry: registryOf({ batched: batchingProvider() }), keepAliveMs: 15_000 },
    })
    close = app.close
    const response = await app.chat({ model: 'batched', messages: USER('hi'), stream: true })
    expect(response.status).toBe(200)
    expect(await readAll(response)).toBe(expectedBody())
  })

  test('each non-empty group is one write, its events in order', async () => {
    const app = await makeChatApp({
      chat: { registry: registryOf({ batched: batchingProvider() }), keepAliveMs: 15_000 },
    })
    close = app.close
    const response = await app.chat({ model: 'batched', messages: USER('hi'), stream: true })
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    const writes: string[] = []
    for (let result = await reader.read(); !result.done; result = await reader.read())
      writes.push(decoder.decode(result.value))
    const expected = BATCHES.filter((batch) => batch.length > 0).map((batch) =>
      batch.map((each) => decoder.decode(encodeEvent(each))).join(''),
    )
    expect(writes).toEqual([...expected, 'data: [DONE]\n\n'])
  })
})
