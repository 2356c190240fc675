/**
 * What a chunk tells the stream report, which feeds the usage ledger and the metrics: an
 * upstream's finish reason is kept as sent only when it is short and storable text.
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { noteChunk, type StreamReport } from '../../src/chat/providers/provider'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const chunk = (finish_reason: unknown, usage?: unknown) => ({
  id: 'c',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta: {}, finish_reason }],
  ...(usage ? { usage } : {}),
})

describe('noteChunk', () => {
  test.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['x'.repeat(64), 'x'.repeat(64)],
    ['x'.repeat(65), 'unrecognized'],
    ['st\u0000op', 'unrecognized'],
    ['\ud800', 'unrecognized'],
    [null, undefined],
    [7, undefined],
  ])('finish_reason %p is recorded as %p', (sent, recorded) => {
    const report: StreamReport = { events: 0 }
    noteChunk(report, chunk(sent))
    expect(report.finishReason).toBe(recorded as string | undefined)
    expect(report.events).toBe(1)
  })

  test('a usage chunk without choices records usage and counts no event', () => {
    const report: StreamReport = { events: 0 }
    noteChunk(report, {
      id: 'c',
      object: 'chat.completion.chunk',
      choices: [],
      usage: { prompt_tokens: 3, completion_tokens: 4 },
    })
    expect(report).toEqual({ events: 0, usage: { prompt_tokens: 3, completion_tokens: 4 } })
  })
})
