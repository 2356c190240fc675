import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { SseEventRelay, type RelayedEvents } from '../../../../src/chat/providers/openai/relay'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/*
 * The relay sends an upstream's events as they came whenever they are in OpenAI's own form
 * (`data: <compact JSON>\n\n`), and re-serialises them otherwise. Either way the client gets
 * every event, in order, each `data: <one-line JSON object>\n\n`, then `data: [DONE]\n\n`.
 */

const encoder = new TextEncoder()
const decoder = new TextDecoder()
const bytes = (text: string) => encoder.encode(text)

/** Feeds `pieces` as successive reads, then ends; returns everything sent and how it stopped. */
function relay(pieces: (string | Uint8Array)[]): {
  sent: string
  done: boolean
  refused?: RelayedEvents['refused']
  results: RelayedEvents[]
} {
  const relay = new SseEventRelay()
  const results: RelayedEvents[] = []
  for (const piece of pieces) {
    const result = relay.push(typeof piece === 'string' ? bytes(piece) : piece)
    results.push(result)
    if (result.done || result.refused) break
  }
  const last = results.at(-1)
  if (!last?.done && !last?.refused) results.push(relay.end())
  const sent = results.map((result) => decoder.decode(result.bytes)).join('')
  const final = results.at(-1)!
  return { sent, done: final.done, refused: final.refused, results }
}

const CHUNK = (content: string) =>
  `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}}}]}`
const EVENT = (content: string) => `data: ${CHUNK(content)}\n\n`
const STREAM = EVENT('Hel') + EVENT('lo 🌿') + EVENT('"quoted"') + 'data: [DONE]\n\n'

describe('events in OpenAI form pass through untouched', () => {
  test('a read of whole events is sent as the very same bytes, [DONE] included', () => {
    const read = bytes(STREAM)
    const result = new SseEventRelay().push(read)
    expect(result.done).toBe(true)
    expect(result.bytes).toBe(read)
  })

  test('what JSON.parse + stringify would change stays as the upstream wrote it', () => {
    const event = 'data: {"id":"c","choices":[],"seed":12345678901234567890,"t":1.0,"e":"\\u00e9\\/","x":1e2}\n\n'
    const { sent, done } = relay([event + 'data: [DONE]\n\n'])
    expect(done).toBe(true)
    expect(sent).toBe(event + 'data: [DONE]\n\n')
  })

  test('split at every byte, the stream arrives whole and in order', () => {
    const all = bytes(STREAM)
    for (let cut = 1; cut < all.length; cut++) {
      const { sent, done } = relay([all.subarray(0, cut), all.subarray(cut)])
      expect(done).toBe(true)
      expect(sent).toBe(STREAM)
    }
  })

  test('split into single bytes, including inside multi-byte characters', () => {
    const all = bytes(STREAM)
    const { sent, done } = relay([...all].map((byte) => new Uint8Array([byte])))
    expect(done).toBe(true)
    expect(sent).toBe(STREAM)
  })

  test('comment lines and blank lines between events are dropped; the events are not touched', () => {
    const { sent, results } = relay([
      ': OPENROUTER PROCESSING\n\n' + EVENT('a') + '\n: keep-alive\n' + EVENT('b'),
      'data: [DONE]\n\n',
    ])
    expect(sent).toBe(EVENT('a') + EVENT('b') + 'data: [DONE]\n\n')
    expect(results.length).toBe(2)
  })

  test('spaces and tabs inside one-line JSON are kept: the event is still one line', () => {
    const event = 'data: { "id": "c",\t"choices": [ ] }\n\n'
    expect(relay([event + 'data: [DONE]\n\n']).sent).toBe(event + 'data: [DONE]\n\n')
  })

  test('nothing after [DONE] is sent', () => {
    expect(relay([EVENT('a') + 'data: [DONE]\n\n' + EVENT('late')]).sent).toBe(EVENT('a') + 'data: [DONE]\n\n')
  })
})

describe('anything else is decoded by the full grammar and re-serialised', () => {
  const canonical = (text: string) => `data: ${JSON.stringify(JSON.parse(text))}\n\n`

  test.each([
    ['CRLF line ends', EVENT('a').replaceAll('\n', '\r\n') + 'data: [DONE]\r\n\r\n'],
    ['CR line ends', EVENT('a').replaceAll('\n', '\r') + 'data: [DONE]\r\r'],
    ['a byte-order mark', '\uFEFF' + EVENT('a') + 'data: [DONE]\n\n'],
    ['data: without a space', `data:${CHUNK('a')}\n\ndata: [DONE]\n\n`],
    ['event and id fields', `event: message\nid: 7\n${EVENT('a')}data: [DONE]\n\n`],
  ])('%s: the same events reach the client, each on one line', (_, stream) => {
    const { sent, done } = relay([stream])
    expect(done).toBe(true)
    expect(sent).toBe(canonical(CHUNK('a')) + 'data: [DONE]\n\n')
  })

  test('an event split over several data lines is joined and sent on one line', () => {
    const { sent } = relay(['data: {"id":"c",\ndata: "choices":[]}\n\n', 'data: [DONE]\n\n'])
    expect(sent).toBe('data: {"id":"c","choices":[]}\n\ndata: [DONE]\n\n')
  })

  test('events before the first odd one still go out untouched, in order', () => {
    const { sent } = relay([EVENT('a') + 'data:' + CHUNK('b') + '\n\n' + EVENT('c') + 'data: [DONE]\n\n'])
    expect(sent).toBe(EVENT('a') + canonical(CHUNK('b')) + canonical(CHUNK('c')) + 'data: [DONE]\n\n')
  })

  test('malformed UTF-8 is replaced, never forwarded', () => {
    const head = bytes('data: {"id":"c","choices":[],"s":"')
    const tail = bytes('"}\n\ndata: [DONE]\n\n')
    const { sent } = relay([new Uint8Array([...head, 0xff, ...tail])])
    expect(sent).toBe('data: {"id":"c","choices":[],"s":"\uFFFD"}\n\ndata: [DONE]\n\n')
  })
})

describe('events the relay refuses, on both paths', () => {
  test.each([
    ['verbatim', (body: string) => `data: ${body}\n\n`],
    ['decoded', (body: string) => `data: ${body}\r\n\r\n`],
  ])('%s: an in-band error stops the stream after the events before it', (_, frame) => {
    const { sent, refused } = relay([EVENT('a') + frame('{"error":{"message":"boom"}}') + EVENT('b')])
    expect(sent.startsWith(EVENT('a'))).toBe(true)
    expect(sent).not.toContain('boom')
    expect(refused).toEqual({ error: { message: 'boom' } })
  })

  test.each([
    ['verbatim', (body: string) => `data: ${body}\n\n`],
    ['decoded', (body: string) => `data: ${body}\r\n\r\n`],
  ])('%s: an error carrying usage too is still an error, not a usage chunk to relay', (_, frame) => {
    // A usage chunk is parsed for the ledger and may be cut out; it must not hide an error with it.
    const failure = '{"error":{"message":"quota gone"},"usage":{"prompt_tokens":3,"completion_tokens":1}}'
    const relay = new SseEventRelay({ stripUsage: true })
    const result = relay.push(bytes(EVENT('a') + frame(failure) + EVENT('b')))
    expect(result.refused).toEqual({ error: { message: 'quota gone' } })
    expect(decoder.decode(result.bytes)).toBe(EVENT('a'))
    expect(result.done).toBe(false)
  })

  test('an object with both error and choices is a chunk, not an error', () => {
    const { sent, done } = relay(['data: {"choices":[],"error":null}\n\ndata: [DONE]\n\n'])
    expect(done).toBe(true)
    expect(sent).toBe('data: {"choices":[],"error":null}\n\ndata: [DONE]\n\n')
  })

  test.each(['[1,2]', '"text"', '{"cut":', 'nonsense'])('data that is not a JSON object (%s) is refused', (data) => {
    const { refused } = relay([EVENT('a') + `data: ${data}\n\n`])
    expect(refused).toEqual({ notAnObject: data })
  })

  test('a stream that ends without [DONE] is not done, and a cut last event is dropped', () => {
    const { sent, done } = relay([EVENT('a') + 'data: {"id":"c","cho'])
    expect(done).toBe(false)
    expect(sent).toBe(EVENT('a'))
  })
})

test('events a read finished before one that grew past the limit still go out, in order, before the refusal', () => {
  // CRLF line ends take the decoder, whose limit ends the stream; the two events before it are the client's.
  const relay = new SseEventRelay({ maxEventBytes: 4096 })
  const result = relay.push(
    bytes(`data: ${CHUNK('one')}\r\n\r\ndata: ${CHUNK('two')}\r\n\r\ndata: ${'x'.repeat(5000)}`),
  )
  expect(result.refused).toEqual({ tooLarge: 4096 })
  expect(decoder.decode(result.bytes)).toBe(EVENT('one') + EVENT('two'))
})
