import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { EventTooLarge, SseDataDecoder } from '../../../src/chat/sse/decoder'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const bytes = (text: string) => new TextEncoder().encode(text)

/** Decodes `stream` fed in pieces cut at `cuts` (byte offsets). */
function decode(stream: Uint8Array, cuts: number[]): string[] {
  const decoder = new SseDataDecoder()
  const events: string[] = []
  let from = 0
  for (const cut of [...cuts, stream.length]) {
    events.push(...decoder.push(stream.subarray(from, cut)))
    from = cut
  }
  events.push(...decoder.end())
  return events
}

// One row per rule of the event-stream grammar: the raw stream and the data payloads it carries.
const CASES: { rule: string; stream: string; data: string[] }[] = [
  { rule: 'LF line ends', stream: 'data: {"a":1}\n\ndata: {"b":2}\n\n', data: ['{"a":1}', '{"b":2}'] },
  { rule: 'CRLF line ends', stream: 'data: {"a":1}\r\n\r\ndata: [DONE]\r\n\r\n', data: ['{"a":1}', '[DONE]'] },
  { rule: 'CR line ends', stream: 'data: one\r\rdata: two\r\r', data: ['one', 'two'] },
  { rule: 'comments are skipped', stream: ': keep-alive\n\n: OPENROUTER PROCESSING\n\ndata: x\n\n', data: ['x'] },
  { rule: 'several data lines join with LF', stream: 'data: {"a":\ndata: 1}\n\n', data: ['{"a":\n1}'] },
  {
    rule: 'event, id and retry fields are ignored',
    stream: 'event: message\nid: 7\nretry: 10\ndata: y\n\n',
    data: ['y'],
  },
  { rule: 'an event of only other fields dispatches nothing', stream: 'event: ping\n\ndata: z\n\n', data: ['z'] },
  {
    rule: 'only one space after the colon is stripped',
    stream: 'data:  two spaces\n\ndata:none\n\n',
    data: [' two spaces', 'none'],
  },
  { rule: 'a bare data field is an empty line of data', stream: 'data\ndata: b\n\n', data: ['\nb'] },
  { rule: 'a leading byte-order mark is dropped', stream: '\uFEFFdata: bom\n\n', data: ['bom'] },
  { rule: 'multi-byte UTF-8 survives any split', stream: 'data: {"c":"é🌱漢"}\n\n', data: ['{"c":"é🌱漢"}'] },
  { rule: 'an unterminated last event is dropped', stream: 'data: whole\n\ndata: cut off', data: ['whole'] },
  { rule: 'blank lines between events dispatch nothing', stream: '\n\n\ndata: q\n\n\n\n', data: ['q'] },
]

describe('SSE data decoder', () => {
  for (const { rule, stream, data } of CASES) {
    test(`${rule}: in one read`, () => {
      expect(decode(bytes(stream), [])).toEqual(data)
    })

    test(`${rule}: split at every byte boundary`, () => {
      const raw = bytes(stream)
      for (let cut = 1; cut < raw.length; cut++) expect(decode(raw, [cut])).toEqual(data)
    })

    test(`${rule}: one byte per read`, () => {
      const raw = bytes(stream)
      expect(
        decode(
          raw,
          Array.from({ length: raw.length - 1 }, (_, i) => i + 1),
        ),
      ).toEqual(data)
    })
  }

  test('started mid-stream, a byte-order mark is an ordinary character: the line is no data field', () => {
    expect(new SseDataDecoder({ midStream: true }).push(bytes('\uFEFFdata: x\n\ndata: y\n\n'))).toEqual(['y'])
    expect(new SseDataDecoder().push(bytes('\uFEFFdata: x\n\ndata: y\n\n'))).toEqual(['x', 'y'])
  })

  test('a CRLF split across reads ends one line, not two', () => {
    const decoder = new SseDataDecoder()
    expect(decoder.push(bytes('data: a\r'))).toEqual([])
    expect(decoder.push(bytes('\ndata: b\r\n'))).toEqual([])
    expect(decoder.push(bytes('\r\n'))).toEqual(['a\nb'])
  })

  test('returns each event from the read that completes it, not later', () => {
    const decoder = new SseDataDecoder()
    expect(decoder.push(bytes('data: first\n'))).toEqual([])
    expect(decoder.push(bytes('\ndata: sec'))).toEqual(['first'])
    expect(decoder.push(bytes('ond\n\n'))).toEqual(['second'])
  })
})

describe('what an unfinished event may hold back', () => {
  test('an event that grows past maxEventChars throws EventTooLarge, however it is split', () => {
    for (const pieces of [1, 16, 4096]) {
      const decoder = new SseDataDecoder({ maxEventChars: 64 * 1024 })
      const line = bytes(`data: ${'x'.repeat(100 * 1024)}`)
      const size = Math.ceil(line.length / pieces)
      const fed = () => {
        for (let at = 0; at < line.length; at += size) decoder.push(line.subarray(at, at + size))
      }
      expect(fed).toThrow(EventTooLarge)
    }
  })

  test('so do many data lines of one event, each short', () => {
    const decoder = new SseDataDecoder({ maxEventChars: 1000 })
    expect(() => decoder.push(bytes('data: 0123456789\n'.repeat(200)))).toThrow(EventTooLarge)
  })

  test('the events a read finished before the one that grew too large come with the error, in order', () => {
    const decoder = new SseDataDecoder({ maxEventChars: 1000 })
    let thrown: unknown
    try {
      decoder.push(bytes(`data: one\n\ndata: two\n\ndata: ${'x'.repeat(2000)}`))
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(EventTooLarge)
    expect((thrown as EventTooLarge).completed).toEqual(['one', 'two'])
  })

  test('events under the limit pass, however many there are', () => {
    const decoder = new SseDataDecoder({ maxEventChars: 1000 })
    expect(decoder.push(bytes(`data: ${'y'.repeat(900)}\n\n`.repeat(50)))).toHaveLength(50)
  })

  test('a 16 MB event fed in 4 KB reads costs linear time, not quadratic (it took 9.4 s in the hand-written decoder)', () => {
    const decoder = new SseDataDecoder()
    const line = bytes(`data: ${'z'.repeat(16 * 1024 * 1024)}\n\n`)
    const started = performance.now()
    let events: string[] = []
    for (let at = 0; at < line.length; at += 4096) events = events.concat(decoder.push(line.subarray(at, at + 4096)))
    expect(events).toHaveLength(1)
    expect(events[0]!.length).toBe(16 * 1024 * 1024)
    expect(performance.now() - started).toBeLessThan(3_000)
  })
})
