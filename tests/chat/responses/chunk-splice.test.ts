import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { openaiProvider } from '../../../src/chat/providers/openai/openai'
import type { ChatCompletionChunk, StreamReport } from '../../../src/chat/providers/provider'
import { PROVIDER_DEFAULTS } from '../../../src/config/chat'
import { responseObject, textPart, usageOf } from '../../../src/chat/responses/answer'
import { scanTextChunk, TextChunk } from '../../../src/chat/responses/chunk-splice'
import { responseEvents, type StreamEnd, translatedEvents } from '../../../src/chat/responses/events'
import type { ResponsesRequest } from '../../../src/chat/responses/model'
import { random } from '../../helpers/random'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/*
 * A translated stream reads a chunk that says only text on its bytes and copies its string into the
 * Responses event (src/chat/responses/chunk-splice.ts). Its output must be what parsing every chunk
 * gives (responseEvents of the parsed chunks), byte for byte, and what it reports the same: for
 * random pieces spelled by JSON.stringify (spliced), spelled otherwise (parsed), and chunks of every
 * other kind between them, cut into reads anywhere between events. And the byte scan must never
 * accept a chunk whose parsed meaning is not what it found.
 */

const ALPHABET = ['a', 'Z', ' ', '"', '\\', '/', '\n', '\t', '\r', '\b', '\f', '\u0000', '\u001f', '\u007f', 'é', '€']
const MORE = ['🌱', '\ud800', '\udc00', '\u2028', '{', '}', ',', ':', '[', ']', 'null']

const BASE = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm' }
type Spelled = { chunk: Record<string, unknown>; text: string }

/** A chunk and its compact spelling; `literal` replaces the `"@@"` placeholder as written (another spelling). */
function spell(chunk: Record<string, unknown>, literal?: [string, string]): Spelled {
  let text = JSON.stringify(chunk)
  if (literal) {
    text = text.replace(`"${literal[0]}"`, literal[1])
    chunk = JSON.parse(text)
  }
  return { chunk, text }
}

const choice = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
  index: 0,
  delta,
  logprobs: null,
  finish_reason: finish,
  ...extra,
})

/** A random piece of text from the alphabet (the first rarely-used characters more often). */
function pieceOf(next: () => number): string {
  const letters = next() < 0.5 ? ALPHABET : [...ALPHABET, ...MORE]
  let piece = ''
  const length = 1 + Math.floor(next() * 6)
  for (let k = 0; k < length; k++) piece += letters[Math.floor(next() * letters.length)]
  return piece
}

/** Another spelling of `text`'s JSON string: \u escapes, `\/`, uppercase hex. */
function respelled(text: string, next: () => number): string {
  let out = '"'
  for (const c of text) {
    const code = c.codePointAt(0)!
    if (code > 0xffff || next() < 0.5) {
      out += JSON.stringify(c).slice(1, -1)
      continue
    }
    const hex = code.toString(16).padStart(4, '0')
    out += next() < 0.5 ? `\\u${hex.toUpperCase()}` : c === '/' ? '\\/' : `\\u${hex}`
  }
  return `${out}"`
}

/** One random stream of chunks: mostly text, with every other kind of chunk among them. */
function streamOf(next: () => number, length: number): Spelled[] {
  const chunks: Spelled[] = [spell({ ...BASE, choices: [choice({ role: 'assistant', content: '', refusal: null })] })]
  let calls = 0
  for (let i = 0; i < length; i++) {
    const roll = next()
    const piece = pieceOf(next)
    const field = next() < 0.75 ? 'content' : 'reasoning_content'
    if (roll < 0.55) chunks.push(spell({ ...BASE, choices: [choice({ [field]: piece })] }))
    else if (roll < 0.62)
      // Another spelling of the same string: parsed.
      chunks.push(spell({ ...BASE, choices: [choice({ [field]: '@@' })] }, ['@@', respelled(piece, next)]))
    else if (roll < 0.66)
      chunks.push(spell({ ...BASE, choices: [choice({ reasoning_content: pieceOf(next), content: piece })] }))
    else if (roll < 0.68)
      chunks.push(spell({ ...BASE, choices: [choice({ content: piece, reasoning_content: null })] }))
    else if (roll < 0.7) chunks.push(spell({ ...BASE, choices: [choice({ content: null, refusal: null })] }))
    else if (roll < 0.72) chunks.push(spell({ ...BASE, choices: [choice({ refusal: piece })] }))
    else if (roll < 0.74) chunks.push(spell({ ...BASE, choices: [choice({ content: '' })] }))
    else if (roll < 0.76)
      chunks.push(spell({ ...BASE, service_tier: 'default', choices: [choice({ content: piece })], usage: null }))
    else if (roll < 0.78) chunks.push(spell({ ...BASE, choices: [{ delta: { content: piece } }], obfuscation: 'x' }))
    else if (roll < 0.8)
      // Index 1 first: choice 0 is found behind it.
      chunks.push(
        spell({ ...BASE, choices: [{ ...choice({ content: 'other' }), index: 1 }, choice({ content: piece })] }),
      )
    else if (roll < 0.82) chunks.push(spell({ ...BASE, choices: [{ ...choice({ content: piece }), index: 1 }] }))
    else if (roll < 0.84)
      // A key twice: the parsed way takes the last.
      chunks.push(
        spell({ ...BASE, choices: [choice({ content: '@@' })] }, ['@@', `"a","content":${JSON.stringify(piece)}`]),
      )
    else if (roll < 0.86)
      // A key spelled with an escape.
      chunks.push(spell({ ...BASE, choices: [choice({ '@@': piece })] }, ['@@', '"cont\\u0065nt"']))
    else if (roll < 0.88)
      chunks.push(
        spell({ ...BASE, choices: [choice({ content: piece }, null, { logprobs: { content: [{ token: piece }] } })] }),
      )
    else if (roll < 0.9) {
      // Spaces after the colons: the parsed way.
      const spelled = spell({ ...BASE, choices: [choice({ content: piece })] })
      chunks.push({ chunk: spelled.chunk, text: spelled.text.replaceAll('":', '": ') })
    } else if (roll < 0.95) {
      // Two calls, each named in its first delta.
      const index = calls++ % 2
      const fn = calls <= 2 ? { name: `f${index}`, arguments: piece } : { arguments: piece }
      const call = calls <= 2 ? { index, id: `call_${index}`, type: 'function', function: fn } : { index, function: fn }
      chunks.push(spell({ ...BASE, choices: [choice({ tool_calls: [call] })] }))
    } else if (roll < 0.96) chunks.push(spell({ ...BASE, choices: [choice({ content: piece }, 'length')] }))
    else chunks.push(spell({ ...BASE, choices: [choice({ content: piece, tool_calls: null })] }))
  }
  chunks.push(spell({ ...BASE, choices: [choice({}, next() < 0.5 ? 'stop' : 'tool_calls')] }))
  chunks.push(
    spell({ ...BASE, choices: [], usage: { prompt_tokens: 3, completion_tokens: length, total_tokens: 3 + length } }),
  )
  return chunks
}

/** The bytes of `chunks` as a provider's event items: cut between events at random, `[DONE]` last. */
function itemsOf(chunks: Spelled[], next: () => number): Uint8Array[] {
  const events = [...chunks.map((each) => `data: ${each.text}\n\n`), 'data: [DONE]\n\n']
  const items: Uint8Array[] = []
  for (let at = 0; at < events.length; ) {
    const take = 1 + Math.floor(next() * 4)
    items.push(new TextEncoder().encode(events.slice(at, at + take).join('')))
    at += take
  }
  return items
}

const fields = {
  id: 'resp_1',
  createdAt: 1_700_000_000,
  model: 'm',
  request: { model: 'm', input: 'hi' } as ResponsesRequest,
  store: false,
}
const end: StreamEnd = { fields, namespaced: new Map(), param: () => undefined }

/** A stream's text with its random ids numbered in order of appearance, and its time of completion fixed. */
function normalised(text: string): string {
  const ids = new Map<string, string>()
  return text
    .replace(/\b(msg|rs|fc|call)_[0-9a-f]{16,}/g, (id) => {
      if (!ids.has(id)) ids.set(id, `id${ids.size}`)
      return ids.get(id)!
    })
    .replace(/"completed_at":\d+/g, '"completed_at":0')
}

async function collect(events: AsyncIterable<Uint8Array>): Promise<{ text: string; error?: unknown }> {
  let text = ''
  try {
    for await (const bytes of events) text += new TextDecoder().decode(bytes)
  } catch (error) {
    return { text, error }
  }
  return { text }
}

async function* itemsFrom<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item
}

/** An `openai` provider whose upstream answers with `reads`, one read each. */
function relayOf(reads: Uint8Array[]) {
  return openaiProvider({
    ...PROVIDER_DEFAULTS,
    name: 'up',
    baseUrl: 'http://upstream.invalid/v1',
    fetch: async () =>
      new Response(
        new ReadableStream({
          pull(controller) {
            const read = reads.shift()
            if (read) controller.enqueue(read)
            else controller.close()
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      ),
  })
}

/** `items` joined and cut again at random bytes, as an upstream's reads may be. */
function recut(items: Uint8Array[], next: () => number): Uint8Array[] {
  const all = Uint8Array.from(items.flatMap((item) => [...item]))
  const reads: Uint8Array[] = []
  for (let at = 0; at < all.length; ) {
    const take = 1 + Math.floor(next() * (next() < 0.5 ? 40 : 600))
    reads.push(all.slice(at, at + take))
    at += take
  }
  return reads
}

/**
 * Three ways over one stream: the provider's event bytes read by read; an `openai` relay whose
 * upstream sends the stream in `reads`, with the translator claiming what it can; and the chunks
 * parsed one by one.
 */
async function bothWays(chunks: Spelled[], items: Uint8Array[], maxHeld = 1 << 20, reads = items, store = false) {
  // With a store, each way keeps its Response (ids numbered as in its events), and every way must keep the same.
  const kept: string[][] = [[], [], []]
  const ends = kept.map(
    (into): StreamEnd =>
      store ? { ...end, store: async (response) => void into.push(normalised(JSON.stringify(response))) } : end,
  )
  const byteReport: StreamReport = { events: 0 }
  const relayReport: StreamReport = { events: 0 }
  const parsedReport: StreamReport = { events: 0 }
  const bytes = await collect(
    translatedEvents({ events: itemsFrom(items) }, ends[0]!, { next: 0 }, byteReport, maxHeld),
  )
  const provider = relayOf(reads)
  const request = { model: 'm', messages: [], stream: true, stream_options: { include_usage: true } }
  const signal = new AbortController().signal
  let claimed = 0
  const relayed = await collect(
    translatedEvents(
      {
        through: (translator) =>
          provider.streamTranslated(request, signal, {
            claim: (bytes, start, stop) => translator.claim(bytes, start, stop) && ++claimed > 0,
            events: (bytes) => translator.events(bytes),
            take: () => translator.take(),
            finish: () => translator.finish(),
            get failure() {
              return translator.failure
            },
          }),
      },
      ends[1]!,
      { next: 0 },
      relayReport,
      maxHeld,
    ),
  )
  const parsed = await collect(
    responseEvents(
      itemsFrom(chunks.map((each) => JSON.parse(each.text) as ChatCompletionChunk)),
      ends[2]!,
      { next: 0 },
      parsedReport,
      maxHeld,
    ),
  )
  expect(normalised(relayed.text)).toBe(normalised(bytes.text))
  expect(String(relayed.error)).toBe(String(bytes.error))
  expect(relayReport).toEqual(byteReport)
  expect(kept[1]).toEqual(kept[0]!)
  expect(kept[2]).toEqual(kept[0]!)
  if (store && !bytes.error) expect(kept[0]).toHaveLength(1)
  return { bytes, parsed, byteReport, parsedReport, claimed }
}

describe('a chunk translated on its bytes is what parsing it would make', () => {
  test('500 random streams, cut into reads at random, half of them stored: the same bytes, report and Response', async () => {
    const next = random(2611)
    for (let run = 0; run < 500; run++) {
      const chunks = streamOf(next, 1 + Math.floor(next() * 40))
      const items = itemsOf(chunks, next)
      const { bytes, parsed, byteReport, parsedReport } = await bothWays(
        chunks,
        items,
        1 << 20,
        recut(items, next),
        run % 2 === 1,
      )
      expect(bytes.error).toBeUndefined()
      expect(parsed.error).toBeUndefined()
      expect(normalised(bytes.text)).toBe(normalised(parsed.text))
      expect(byteReport).toEqual(parsedReport)
    }
  })

  test('a stream of only text: read on bytes, claimed from the relay, and still the same bytes', async () => {
    const next = random(7)
    const pieces = Array.from({ length: 300 }, () => pieceOf(next))
    const chunks = [
      spell({ ...BASE, choices: [choice({ role: 'assistant', content: '' })] }),
      ...pieces.map((content) => spell({ ...BASE, choices: [choice({ content })] })),
      spell({ ...BASE, choices: [choice({}, 'stop')] }),
    ]
    const { bytes, parsed, claimed } = await bothWays(chunks, itemsOf(chunks, next))
    expect(normalised(bytes.text)).toBe(normalised(parsed.text))
    // Claimed through the relay: the role's chunk, and every piece JSON.stringify spells without a \u escape of a lone
    // surrogate.
    expect(claimed).toBe(1 + pieces.filter((piece) => !/[\ud800-\udfff]/.test(piece.replaceAll('🌱', ''))).length)
    const done = bytes.text.split('\n\n').find((event) => event.startsWith('event: response.output_text.done'))!
    expect(JSON.parse(done.slice(done.indexOf('data: ') + 6)).text).toBe(pieces.join(''))
  })

  test('a call past the cap fails after the events its read made before it, as the parsed way does', async () => {
    const chunks = [
      spell({ ...BASE, choices: [choice({ content: 'a' })] }),
      spell({ ...BASE, choices: [choice({ content: 'b' })] }),
      spell({ ...BASE, choices: [choice({ tool_calls: [{ index: 0, function: { arguments: 'x'.repeat(64) } }] })] }),
      spell({ ...BASE, choices: [choice({ content: 'c' })] }),
    ]
    const { bytes, parsed } = await bothWays(
      chunks,
      itemsOf(chunks, () => 0.99),
      16,
    )
    expect(String(bytes.error)).toBe(String(parsed.error))
    expect(bytes.error).toBeDefined()
    expect(normalised(bytes.text)).toBe(normalised(parsed.text))
    expect(bytes.text).toContain('"delta":"b"')
  })

  test('an empty stream still opens with response.created and response.in_progress', async () => {
    const { bytes, parsed } = await bothWays([], [new TextEncoder().encode('data: [DONE]\n\n')])
    expect(normalised(bytes.text)).toBe(normalised(parsed.text))
    expect(bytes.text.startsWith('event: response.created\n')).toBe(true)
  })

  test('items in another form than `data: <json>\\n\\n` are decoded as any event stream', async () => {
    const chunks = [
      spell({ ...BASE, choices: [choice({ content: 'one' })] }),
      spell({ ...BASE, choices: [choice({ content: 'two' })] }),
      spell({ ...BASE, choices: [choice({ content: 'three' })] }),
    ]
    const encode = (text: string) => new TextEncoder().encode(text)
    const items = [
      encode(`data: ${chunks[0]!.text}\n\n`),
      encode(`data:${chunks[1]!.text}\r\n\r\n: comment\n\ndata: ${chunks[2]!.text.slice(0, 20)}`),
      encode(`${chunks[2]!.text.slice(20)}\n\ndata: [DONE]\n\n`),
    ]
    const { bytes, parsed } = await bothWays(chunks, items)
    expect(bytes.error).toBeUndefined()
    expect(normalised(bytes.text)).toBe(normalised(parsed.text))
  })
})

describe('texts are written into the last events as JSON.stringify writes their objects', () => {
  test('300 random answers (reasoning, text, refusal; surrogate pairs split between chunks): every .done event and the Response', async () => {
    const next = random(404)
    const halves = ['\ud83c', '\udf31', '🌱', 'é', '"', '\\ud', 'a']
    const textOf = () =>
      Array.from({ length: Math.floor(next() * 6) }, () =>
        next() < 0.5 ? halves[Math.floor(next() * halves.length)]! : pieceOf(next),
      )
    for (let run = 0; run < 300; run++) {
      const reasoning = textOf()
      const content = textOf()
      const refusal = next() < 0.3 ? textOf() : []
      const usage = { prompt_tokens: 3, completion_tokens: 7, total_tokens: 10 }
      const chunks = [
        spell({ ...BASE, choices: [choice({ role: 'assistant', content: '' })] }),
        ...reasoning.map((piece) => spell({ ...BASE, choices: [choice({ reasoning_content: piece })] })),
        ...content.map((piece) => spell({ ...BASE, choices: [choice({ content: piece })] })),
        ...refusal.map((piece) => spell({ ...BASE, choices: [choice({ refusal: piece })] })),
        spell({ ...BASE, choices: [choice({}, 'stop')] }),
        spell({ ...BASE, choices: [], usage }),
      ]
      const { bytes } = await bothWays(chunks, itemsOf(chunks, next))
      const events = bytes.text
        .split('\n\n')
        .filter(Boolean)
        .map((each) => each.slice(each.indexOf('\ndata: ') + 7))
      const typed = (type: string) => events.filter((data) => JSON.parse(data).type === type)
      const ids = typed('response.output_item.added').map((data) => JSON.parse(data).item.id as string)
      const whole = (pieces: string[]) => pieces.join('')
      const output: Record<string, unknown>[] = []
      if (whole(reasoning) !== '')
        output.push({ id: ids[0], type: 'reasoning', summary: [{ type: 'summary_text', text: whole(reasoning) }] })
      // A message when something was said, or when nothing was.
      const parts: Record<string, unknown>[] = []
      if (whole(content) !== '' || (whole(refusal) === '' && output.length === 0)) parts.push(textPart(whole(content)))
      if (whole(refusal) !== '') parts.push({ type: 'refusal', refusal: whole(refusal) })
      if (parts.length > 0)
        output.push({ id: ids.at(-1), type: 'message', status: 'completed', role: 'assistant', content: parts })
      // Each item's .done event holds exactly its JSON.stringify.
      const done = typed('response.output_item.done')
      expect(done.length).toBe(output.length)
      output.forEach((item, i) => expect(done[i]).toContain(`"item":${JSON.stringify(item)},"sequence_number"`))
      for (const data of typed('response.content_part.done'))
        expect(parts.map((part) => `"part":${JSON.stringify(part)},`).some((each) => data.includes(each))).toBe(true)
      const completed = typed('response.completed')[0]!
      const at = JSON.parse(completed).response.completed_at
      const response = responseObject(fields, { status: 'completed' }, output, usageOf(usage), at)
      expect(completed).toContain(`"response":${JSON.stringify(response)},"sequence_number"`)
    }
  })
})

describe('the byte scan accepts only what it can prove', () => {
  const encode = (text: string) => new TextEncoder().encode(text)
  const scan = (text: string) => {
    const bytes = encode(text)
    const found = new TextChunk()
    return scanTextChunk(bytes, 0, bytes.length, found) ? found : undefined
  }
  const text = (delta: string) => `{"id":"c","choices":[{"index":0,"delta":${delta},"finish_reason":null}]}`

  test('a text chunk in OpenAI’s compact form, and its strings where they are', () => {
    const chunk = text('{"content":"hi"}')
    const found = scan(chunk)!
    expect(chunk.slice(found.content, found.contentEnd)).toBe('"hi"')
    expect(found.reasoning).toBe(-1)
  })

  test.each([
    ['a string not spelled as JSON.stringify spells it', text('{"content":"\\u00e9"}')],
    ['an escaped slash', text('{"content":"a\\/b"}')],
    ['uppercase hex of a control character', text('{"content":"\\u001F"}')],
    ['an escaped surrogate pair', text('{"content":"\\ud83c\\udf31"}')],
    ['a finish reason', '{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}'],
    ['usage', '{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"total_tokens":1}}'],
    ['two choices', '{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{}}]}'],
    ['no choices', '{"choices":[]}'],
    ['choice 1', '{"choices":[{"index":1,"delta":{"content":"a"}}]}'],
    ['index 0.0', '{"choices":[{"index":0.0,"delta":{"content":"a"}}]}'],
    ['a refusal', text('{"refusal":"no"}')],
    ['tool calls', text('{"tool_calls":[]}')],
    ['a field the translation does not know', text('{"content":"a","audio":null}')],
    ['a key twice', text('{"content":"a","content":"b"}')],
    ['an escaped key', '{"choices":[{"index":0,"delt\\u0061":{"content":"a"}}]}'],
    ['an escaped index', '{"choices":[{"\\u0069ndex":1,"delta":{"content":"a"}}]}'],
    ['an escaped finish reason', '{"choices":[{"delta":{"content":"a"},"finish_re\\u0061son":"stop"}]}'],
    ['choices twice', '{"choices":[{"delta":{}}],"choices":[{"delta":{"content":"a"}}]}'],
    ['a space', text('{"content": "a"}')],
    ['an object among the members', '{"x":{},"choices":[{"delta":{"content":"a"}}]}'],
    ['a raw control character', text('{"content":"a\tb"}')],
    ['a number that is not JSON', '{"created":01,"choices":[{"delta":{"content":"a"}}]}'],
    ['a literal that is not JSON', '{"x":nul,"choices":[{"delta":{"content":"a"}}]}'],
    ['what follows the object', `${text('{"content":"a"}')} `],
    ['a cut object', text('{"content":"a"}').slice(0, -1)],
  ])('refused: %s', (_, chunk) => {
    expect(scan(chunk)).toBeUndefined()
  })

  test('refused: invalid UTF-8 in the string', () => {
    const bytes = encode(text('{"content":"ab"}'))
    bytes[bytes.indexOf(0x61)] = 0xff
    expect(scanTextChunk(bytes, 0, bytes.length, new TextChunk())).toBe(false)
  })

  test('20,000 random mutations of a text chunk: whatever is accepted parses to exactly what was found', () => {
    const next = random(99)
    const bytes = [...'{}[]",:\\0aenul -.tr1'].map((c) => c.charCodeAt(0))
    const base = encode(
      JSON.stringify({
        ...BASE,
        choices: [choice({ role: 'assistant', reasoning_content: 'r', content: 'é\n"' })],
        usage: null,
      }),
    )
    let accepted = 0
    for (let run = 0; run < 20_000; run++) {
      const mutated = [...base]
      for (let k = 0, edits = 1 + Math.floor(next() * 3); k < edits; k++) {
        const at = Math.floor(next() * mutated.length)
        const roll = next()
        if (roll < 0.4) mutated[at] = bytes[Math.floor(next() * bytes.length)]!
        else if (roll < 0.7) mutated.splice(at, 1)
        else mutated.splice(at, 0, bytes[Math.floor(next() * bytes.length)]!)
      }
      const found = new TextChunk()
      const array = Uint8Array.from(mutated)
      if (!scanTextChunk(array, 0, array.length, found)) continue
      accepted++
      const parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(array))
      expect(parsed.usage ?? null).toBeNull()
      expect(parsed.choices).toHaveLength(1)
      const [only] = parsed.choices
      expect([0, undefined]).toContain(only.index)
      expect(only.finish_reason ?? null).toBeNull()
      const at = (start: number, stop: number) =>
        start < 0 ? null : new TextDecoder().decode(array.slice(start, stop))
      const content = at(found.content, found.contentEnd)
      const reasoning = at(found.reasoning, found.reasoningEnd)
      expect(content === null ? null : JSON.parse(content)).toBe(only.delta.content ?? null)
      expect(reasoning === null ? null : JSON.parse(reasoning)).toBe(only.delta.reasoning_content ?? null)
      // Spliced strings are spelled as JSON.stringify spells them.
      if (content !== null) expect(JSON.stringify(JSON.parse(content))).toBe(content)
      if (reasoning !== null) expect(JSON.stringify(JSON.parse(reasoning))).toBe(reasoning)
      for (const key of Object.keys(only.delta))
        expect(['content', 'reasoning_content', 'role', 'refusal']).toContain(key)
      expect(only.delta.refusal ?? null).toBeNull()
    }
    // Some mutations (a changed letter inside a string, the id) stay text chunks.
    expect(accepted).toBeGreaterThan(500)
  })
})
