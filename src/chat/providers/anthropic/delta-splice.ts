import { bytesEqualAt, scanCanonicalString } from '../json-bytes'
import type { EventOutput } from '../event-framing'
import type { ChunkTranslator, DeltaType } from './chunks'

/*
 * The translated stream's fast way for its most frequent event. Nearly every event of an answer
 * is one delta, `{"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"…"}}`,
 * and the chunk it becomes differs from the last one only in that string. Parsing the event and
 * serialising the chunk cost more than the rest of the relay per event (BENCHMARKS.md, "Anthropic
 * relay"), so a delta in exactly Anthropic's compact form has its string copied, as bytes, between
 * the chunk's pre-encoded head and tail. Only strings already written as `JSON.stringify` writes
 * them are copied (scanCanonicalString), so the bytes equal what the parsed way would send; any
 * other spelling, an unknown block, or any other form takes the parsed way.
 */

const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0))
const EVENT_TYPE = ascii('content_block_delta')
const BEFORE_INDEX = ascii('{"type":"content_block_delta","index":')
const BEFORE_TYPE = ascii(',"delta":{"type":"')
const STRING_OF: [DeltaType, Uint8Array][] = [
  ['text_delta', ascii('text_delta","text":')],
  ['thinking_delta', ascii('thinking_delta","thinking":')],
  ['input_json_delta', ascii('input_json_delta","partial_json":')],
]
const CLOSE = 0x7d
const ZERO = 0x30
const NINE = 0x39

/** Whether `buffer[start, end)`, an event's type, is `content_block_delta`. */
export function isDeltaEvent(buffer: Uint8Array, start: number, end: number): boolean {
  return end - start === EVENT_TYPE.length && bytesEqualAt(buffer, start, EVENT_TYPE)
}

/**
 * Adds the chunk of the delta event whose data is `buffer[start, end)` to `out`, and returns true;
 * false when the event is not in the compact form or its block does not take it (nothing added).
 */
export function spliceDelta(
  buffer: Uint8Array,
  start: number,
  end: number,
  translator: ChunkTranslator,
  out: EventOutput,
): boolean {
  if (!bytesEqualAt(buffer, start, BEFORE_INDEX)) return false
  let at = start + BEFORE_INDEX.length
  let index = 0
  const digits = at
  // At most 9 digits: an index stays a small integer, exactly as Number() of the parsed way reads it.
  while (at < end && at - digits < 9 && buffer[at]! >= ZERO && buffer[at]! <= NINE)
    index = index * 10 + buffer[at++]! - ZERO
  if (at === digits || (buffer[digits] === ZERO && at - digits > 1) || !bytesEqualAt(buffer, at, BEFORE_TYPE))
    return false
  at += BEFORE_TYPE.length
  const found = STRING_OF.find(([, bytes]) => bytesEqualAt(buffer, at, bytes))
  if (!found) return false
  const quote = at + found[1].length
  const after = scanCanonicalString(buffer, quote, end)
  // The string must close the delta and the event: `"}}` and nothing else.
  if (after === -1 || after + 2 !== end || buffer[after] !== CLOSE || buffer[after + 1] !== CLOSE) return false
  // An empty piece makes no chunk; the parsed way says the same, and knows the block.
  if (after - quote === 2) return false
  const frame = translator.spliceFrame(index, found[0])
  if (!frame) return false
  out.push(frame.head)
  out.push(buffer.subarray(quote + 1, after - 1))
  out.push(frame.tail)
  return true
}
