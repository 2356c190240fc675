import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { PROVIDER_DEFAULTS } from '../../../../src/config/chat'
import { anthropicProvider } from '../../../../src/chat/providers/anthropic/anthropic'
import type { StreamReport } from '../../../../src/chat/providers/provider'
import { random } from '../../../helpers/random'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/*
 * The translated stream copies a delta's string into the chunk without parsing it, when the delta
 * is in Anthropic's compact form and the string is spelled as JSON.stringify spells it
 * (src/chat/providers/anthropic/delta-splice.ts). Its output must be the parsed way's, byte for
 * byte. The parsed way is what the same events take when written with spaces after the colons,
 * which no splice accepts: both spellings of one stream must give the same bytes.
 */

type Spelled = (data: Record<string, unknown>) => string
const compact: Spelled = (data) => JSON.stringify(data)
const spaced: Spelled = (data) => JSON.stringify(data).replaceAll('":', '": ')

/**
 * An upstream stream of these text, thinking and tool-input pieces; `raw` pieces go in as written (their JSON string
 * literal).
 */
function upstream(pieces: { block: 'text' | 'thinking' | 'tool'; literal: string }[], spell: Spelled): string {
  const event = (data: Record<string, unknown>, literal?: string) => {
    const text = spell(data)
    return `event: ${data.type}\ndata: ${literal === undefined ? text : text.replace('"@@"', literal)}\n\n`
  }
  const blocks = ['thinking', 'text', 'tool'] as const
  let out = event({
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [],
      stop_reason: null,
      usage: { input_tokens: 3, output_tokens: 1 },
    },
  })
  blocks.forEach((block, index) => {
    const start =
      block === 'tool'
        ? { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }
        : block === 'text'
          ? { type: 'text', text: '' }
          : { type: 'thinking', thinking: '', signature: '' }
    out += event({ type: 'content_block_start', index, content_block: start })
    for (const piece of pieces.filter((each) => each.block === block)) {
      const delta =
        block === 'tool'
          ? { type: 'input_json_delta', partial_json: '@@' }
          : block === 'text'
            ? { type: 'text_delta', text: '@@' }
            : { type: 'thinking_delta', thinking: '@@' }
      out += event({ type: 'content_block_delta', index, delta }, piece.literal)
    }
    out += event({ type: 'content_block_stop', index })
  })
  out += event({
    type: 'message_delta',
    delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { output_tokens: 9 },
  })
  return out + event({ type: 'message_stop' })
}

/** What the provider sends for that upstream stream (read in one piece), and what it reported. */
async function relayed(body: string | Uint8Array): Promise<{ text: string; bytes: number[]; report: StreamReport }> {
  const provider = anthropicProvider({
    ...PROVIDER_DEFAULTS,
    name: 'claude',
    baseUrl: 'http://upstream.invalid/v1',
    // Chunks carry the second message_start arrived in: fixed, so that two runs compare.
    clock: () => new Date(1_700_000_000_000),
    fetch: async () => new Response(body as unknown as BodyInit, { headers: { 'content-type': 'text/event-stream' } }),
  })
  const report: StreamReport = { events: 0 }
  let text = ''
  const all: number[] = []
  for await (const bytes of provider.streamEvents(
    { model: 'claude-x', messages: [{ role: 'user', content: 'hi' }] },
    new AbortController().signal,
    report,
  )) {
    text += new TextDecoder().decode(bytes)
    all.push(...bytes)
  }
  return { text, bytes: all, report }
}

const ALPHABET = [
  'a',
  'Z',
  ' ',
  '"',
  '\\',
  '/',
  '\n',
  '\t',
  '\r',
  '\b',
  '\f',
  '\u0000',
  '\u001f',
  '\u007f',
  'é',
  '€',
  '🌱',
  '\ud800',
  '\udc00',
  '\u2028',
  '{',
  '}',
]

describe('a spliced delta is what parsing it would send', () => {
  test('2,000 random pieces, spelled by JSON.stringify: compact and spaced upstreams give the same bytes', async () => {
    const next = random(151)
    const pieces = Array.from({ length: 2_000 }, () => {
      const text = Array.from(
        { length: 1 + Math.floor(next() * 6) },
        () => ALPHABET[Math.floor(next() * ALPHABET.length)],
      ).join('')
      return { block: (['text', 'thinking', 'tool'] as const)[Math.floor(next() * 3)]!, literal: JSON.stringify(text) }
    })
    const fast = await relayed(upstream(pieces, compact))
    const slow = await relayed(upstream(pieces, spaced))
    expect(fast.text).toBe(slow.text)
    expect(fast.report).toEqual(slow.report)
    // Every piece became one chunk (the finish and [DONE] aside), counted once.
    expect(fast.report.events).toBe(2_001)
  })

  test.each([
    ['an escaped solidus', '"a\\/b"', 'a/b'],
    ['a \\u escape of a printable character', '"\\u00e9t\\u00E9"', 'été'],
    ['an uppercase control escape', '"\\u001F"', '\u001f'],
    ['a \\u escape of a newline', '"\\u000a"', '\n'],
    ['an escaped surrogate pair', '"\\ud83c\\udf31"', '🌱'],
    ['a lone escaped surrogate', '"\\ud800"', '\ud800'],
  ])('%s takes the parsed way and arrives as JSON.stringify spells it', async (_, literal, value) => {
    const { text } = await relayed(upstream([{ block: 'text', literal }], compact))
    const content = text
      .split('\n\n')
      .filter((event) => event.includes('"content":"') && !event.includes('"content":""'))
    expect(content).toHaveLength(1)
    expect(JSON.parse(content[0]!.slice('data: '.length)).choices[0].delta.content).toBe(value)
    expect(content[0]).toContain(`"content":${JSON.stringify(value)}}`)
  })

  test('invalid UTF-8 inside a string is never copied through', async () => {
    const body = upstream([{ block: 'text', literal: '"ok"' }], compact).replace('"text":"ok"', '"text":"\xff"')
    const bytes = Uint8Array.from(body, (c) => c.charCodeAt(0) & 0xff)
    const relayedBytes = (await relayed(bytes)).bytes
    // The parsed way decodes the byte as U+FFFD, as a UTF-8 decoder must; a copy would have sent it raw.
    expect(relayedBytes).not.toContain(0xff)
    expect(new TextDecoder().decode(Uint8Array.from(relayedBytes))).toContain('"content":"\ufffd"')
  })
})
