import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import {
  HAS_USAGE_NULL,
  NOT_PROVEN,
  ScanMemo,
  scanJsonObject,
  type MemberRange,
} from '../../../src/chat/providers/event-scan'
import { random } from '../../helpers/random'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/*
 * The relay scans every event of a stream with one ScanMemo: the envelope the events share
 * (`id`, `object`, `created`, `model`, …, up to the first top-level object or array) is proven
 * once, and an event that starts with exactly those bytes resumes the scan after them. The one
 * property that matters: with or without the memo, every event gets the same answer.
 */

const encoder = new TextEncoder()
const next = random(7)
const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!

const SCALARS = [null, true, 0, -12, 1.5e3, 1700000000, 'chatcmpl-1', 'gpt-x', 'é"\\\n', '']
const ENVELOPE_KEYS = [
  'id',
  'object',
  'created',
  'model',
  'system_fingerprint',
  'usage',
  'error',
  'a"b',
  'service_tier',
]

/** A stream of events that share a random envelope, some of them edited at a random byte (the envelope's included). */
function stream(events: number): Uint8Array[] {
  const envelope: Record<string, unknown> = {}
  for (let k = Math.floor(next() * 6); k > 0; k--) envelope[pick(ENVELOPE_KEYS)] = pick(SCALARS)
  return Array.from({ length: events }, (_, i) => {
    const event: Record<string, unknown> = {
      ...envelope,
      choices: [{ index: 0, delta: { content: pick(SCALARS) }, finish_reason: null }],
    }
    if (next() < 0.3) event.usage = next() < 0.5 ? null : { total_tokens: i }
    if (next() < 0.3) event.obfuscation = `x${i}`
    const bytes = encoder.encode(JSON.stringify(event))
    return next() < 0.25 ? edit(bytes) : bytes
  })
}

/** One byte deleted, inserted or replaced, with bytes that matter to JSON favoured. */
function edit(bytes: Uint8Array): Uint8Array {
  const at = Math.floor(next() * bytes.length)
  const byte = pick([0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x30, 0x20, 0x80, 0xff, 0x61])
  const operation = Math.floor(next() * 3)
  if (operation === 0) return new Uint8Array([...bytes.subarray(0, at), ...bytes.subarray(at + 1)])
  if (operation === 1) return new Uint8Array([...bytes.subarray(0, at), byte, ...bytes.subarray(at)])
  const copy = bytes.slice()
  copy[at] = byte
  return copy
}

/** What a scan says of an event: its flags, and where the `,"usage":null` member is when it says there is one. */
function verdict(bytes: Uint8Array, offset: number, memo?: ScanMemo) {
  // Scanned inside a larger buffer, as the relay scans a read: positions must be absolute.
  const buffer = new Uint8Array(offset + bytes.length + 3)
  buffer.set(bytes, offset)
  const member: MemberRange = { start: -1, end: -1 }
  const flags = scanJsonObject(buffer, offset, offset + bytes.length, memo, member)
  return flags !== NOT_PROVEN && flags & HAS_USAGE_NULL ? { flags, ...member } : { flags }
}

describe('a stream scanned with one memo gets the answers it gets without', () => {
  test('3,000 streams of 20 events with shared envelopes, a quarter of the events edited', () => {
    let resumed = 0
    for (let s = 0; s < 3_000; s++) {
      const memo = new ScanMemo()
      for (const bytes of stream(20)) {
        const offset = Math.floor(next() * 5)
        const before = memo.prefix
        expect(verdict(bytes, offset, memo)).toEqual(verdict(bytes, offset))
        if (before !== undefined && memo.prefix === before && before.every((byte, k) => bytes[k] === byte)) resumed++
      }
    }
    // The memo was used, not merely harmless.
    expect(resumed).toBeGreaterThan(10_000)
  })

  test('an OpenAI chunk remembers its envelope up to the comma before choices', () => {
    const memo = new ScanMemo()
    const chunk =
      '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"}}],"obfuscation":"x"}'
    verdict(encoder.encode(chunk), 0, memo)
    expect(new TextDecoder().decode(memo.prefix)).toBe(
      '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m",',
    )
  })

  test.each([
    ['a top-level error before the first container', '{"id":"x","error":"no","choices":[]}', '{"id":"x",'],
    ['a container first', '{"choices":[],"id":"x"}', undefined],
    ['an object of no note', '{"id":"x","meta":{"a":1},"n":1,"choices":[]}', '{"id":"x",'],
    ['a usage object first', '{"usage":{"a":1},"id":"x","choices":[]}', undefined],
  ])('%s ends the remembered prefix before it', (_, text, prefix) => {
    const memo = new ScanMemo()
    verdict(encoder.encode(text), 0, memo)
    expect(memo.prefix === undefined ? undefined : new TextDecoder().decode(memo.prefix)).toBe(prefix)
  })
})

describe('a memo that stops before a key (the native Responses relay’s, before `delta`)', () => {
  const DELTA = encoder.encode('delta')
  /** Deltas of a few parts, each part's envelope shared, their pieces and numbers varying; some edited. */
  function deltas(events: number): Uint8Array[] {
    let item = `msg_${Math.floor(next() * 1000)}`
    return Array.from({ length: events }, (_, i) => {
      if (next() < 0.1) item = `msg_${Math.floor(next() * 1000)}`
      const event: Record<string, unknown> = {
        type: pick(['response.output_text.delta', 'response.function_call_arguments.delta']),
        item_id: item,
        output_index: 0,
        content_index: pick([0, 1]),
        delta: pick(SCALARS),
        logprobs: [],
        sequence_number: i,
      }
      if (next() < 0.2) event.obfuscation = `o${i}`
      if (next() < 0.1) event.usage = { total_tokens: i }
      const bytes = encoder.encode(JSON.stringify(event))
      return next() < 0.25 ? edit(bytes) : bytes
    })
  }

  test('3,000 streams of 20 deltas, a quarter edited: the same answers as without a memo', () => {
    let resumed = 0
    for (let s = 0; s < 3_000; s++) {
      const memo = new ScanMemo(DELTA)
      for (const bytes of deltas(20)) {
        const offset = Math.floor(next() * 5)
        const before = memo.prefix
        expect(verdict(bytes, offset, memo)).toEqual(verdict(bytes, offset))
        if (before !== undefined && memo.prefix === before && before.every((byte, k) => bytes[k] === byte)) resumed++
      }
    }
    expect(resumed).toBeGreaterThan(5_000)
  })

  test('a delta remembers its envelope up to the comma before `delta`', () => {
    const memo = new ScanMemo(DELTA)
    const event =
      '{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"a","logprobs":[],"sequence_number":4}'
    verdict(encoder.encode(event), 0, memo)
    expect(new TextDecoder().decode(memo.prefix)).toBe(
      '{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,',
    )
  })
})
