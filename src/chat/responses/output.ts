import { isObject, type JsonObject } from '../providers/provider'
import { tooLarge } from '../sse/writer'
import { functionCallItem, toolName } from './answer'
import type { TextChunk } from './chunk-splice'
import { JsonText, ReadBytes, stringAt } from './read-bytes'
import { itemId } from './input'
import {
  deltaPrefix,
  EMPTY_REFUSAL,
  EMPTY_TEXT,
  isTextItem,
  MESSAGE_ADDED,
  type Part,
  type PartKind,
  REASONING_ADDED,
  type TextItem,
  textItemObject,
  writePart,
  writeString,
  writeTextItem,
} from './text-items'
import type { NamespacedName } from './translate'

/*
 * The output items of a translated answer as they are made, and the events that make them: per
 * item `response.output_item.added`, its parts and deltas and `response.output_item.done`. Every
 * event is `event: <type>\ndata: <one-line JSON>\n\n` with a `sequence_number` from 0, written as
 * bytes into one scratch (see {@link OutputWriter.take}).
 *
 * The deltas are most of a stream, so their text is made from strings prepared once per item
 * rather than by serialising an object per event, and a text delta read on bytes
 * (chunk-splice.ts) is copied between bytes prepared once per part. A part's text is kept as its
 * JSON spelling, in bytes, and copied as such into every event that holds it (the part's `.done`
 * events, the item's, and the Response's), each exactly as `JSON.stringify` of the objects would
 * write it.
 */

/** The next `sequence_number`; shared with the stream's error event (see framing.ts). */
export type Sequence = { next: number }

const encoder = new TextEncoder()

/** One event whose JSON fields (without braces) are `fields`. */
export function event(sequence: Sequence, type: string, fields: string): string {
  return `event: ${type}\ndata: {"type":"${type}",${fields},"sequence_number":${sequence.next++}}\n\n`
}

/**
 * A function call as its deltas arrive: `held` until it has a name (some upstreams send arguments
 * first), then `live` from `response.output_item.added` until the stream ends.
 */
type Call = { id?: string; name?: string; args: string; itemId: string; index: number; prefix: string; live: boolean }

/** A spliced delta's bytes after its string: an `output_text` delta's, and a reasoning summary's. */
const TEXT_TAIL = encoder.encode(',"logprobs":[],"sequence_number":')
const SUMMARY_TAIL = encoder.encode(',"sequence_number":')

/**
 * One scratch for every stream: the events of a chunk or a read are written without awaiting
 * anything, then taken. Each writer makes it its own before writing, so that events a failure cut
 * short can never reach another stream.
 */
const out = new ReadBytes()
let owner: OutputWriter | undefined

/** The output items as they are made, and the events that make them. */
export class OutputWriter {
  /** The items in output order: text items as {@link TextItem}s, calls as their objects (whole once done). */
  readonly #items: (TextItem | JsonObject)[] = []
  readonly #sequence: Sequence
  readonly #namespaced: ReadonlyMap<string, NamespacedName>
  readonly #maxHeld: number
  #open: TextItem | undefined
  /** Function calls by their chat index. */
  readonly #calls = new Map<number, Call>()
  #held = 0
  /** Choice 0 has finished: what an upstream sends after that is not part of the response. */
  #finished = false
  /** The status of an item closed now: `completed`, unless the answer's end cut it. */
  #status: 'completed' | 'incomplete' = 'completed'

  constructor(sequence: Sequence, namespaced: ReadonlyMap<string, NamespacedName>, maxHeld: number) {
    this.#sequence = sequence
    this.#namespaced = namespaced
    this.#maxHeld = maxHeld
  }

  /** Where the events written so far end, for {@link rollBack}. */
  mark(): number {
    this.#own()
    return out.length
  }

  /** Drops what was written after `mark` (a chunk that failed). */
  rollBack(mark: number): void {
    if (owner === this) out.length = mark
  }

  /** The events written since the last take (empty for none). */
  take(): Uint8Array {
    if (owner !== this || out.length === 0) return EMPTY
    owner = undefined
    return out.take()
  }

  /** Events of the caller's own. */
  write(text: string): void {
    this.#own()
    out.text(text)
  }

  /** The events of choice 0 of a parsed chunk. */
  chunk(choice: JsonObject): void {
    this.#own()
    if (this.#finished) return
    if (typeof choice.finish_reason === 'string') this.#finished = true
    const delta = choice.delta
    if (!isObject(delta)) return
    if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '')
      this.#text('reasoning', 'summary_text', delta.reasoning_content)
    if (typeof delta.content === 'string' && delta.content !== '') this.#text('message', 'output_text', delta.content)
    if (typeof delta.refusal === 'string' && delta.refusal !== '') this.#text('message', 'refusal', delta.refusal)
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) if (isObject(call)) this.#callDelta(call)
  }

  /**
   * The events of a chunk that says only text (see chunk-splice.ts): the same as {@link chunk} of
   * it parsed. A piece the open part takes is copied from `bytes` as it is; one that opens an item
   * or a part goes the parsed way.
   */
  spliced(bytes: Uint8Array, found: TextChunk): void {
    this.#own()
    if (this.#finished) return
    if (found.reasoning >= 0 && found.reasoningEnd - found.reasoning > 2)
      this.#splicedText('reasoning', 'summary_text', bytes, found.reasoning, found.reasoningEnd)
    if (found.content >= 0 && found.contentEnd - found.content > 2)
      this.#splicedText('message', 'output_text', bytes, found.content, found.contentEnd)
  }

  /**
   * Closes what is open, `status` being how the answer ended (`incomplete` when it was cut, which
   * the items still open at the end were); calls still held (never named) are the upstream's fault.
   */
  finish(status: 'completed' | 'incomplete'): void {
    this.#own()
    this.#status = status
    this.#closeText()
    for (const call of this.#calls.values()) if (!call.live) this.#startCall(call)
    for (const call of [...this.#calls.values()].sort((a, b) => a.index - b.index)) this.#endCall(call)
    // A message even when nothing was said: a client that finds no output asks again (the Agents SDK does).
    if (this.#items.length === 0) {
      this.#text('message', 'output_text', '')
      this.#closeText()
    }
  }

  /**
   * The terminal event `type` of the Response `response`, whose `output` (whatever it holds) is
   * written as these items, once {@link finish} has closed every one: exactly `JSON.stringify` of the
   * Response with {@link output} in it.
   */
  completed(type: string, response: JsonObject): void {
    this.#own()
    // The members before `output` and after it, each serialised as they are.
    const before: JsonObject = {}
    const after: JsonObject = {}
    let past = false
    for (const key of Object.keys(response)) {
      if (key === 'output') past = true
      else (past ? after : before)[key] = response[key]
    }
    const head = JSON.stringify(before)
    const tail = JSON.stringify(after)
    out.text(`event: ${type}\ndata: {"type":"${type}","response":`)
    out.text(head.length > 2 ? `${head.slice(0, -1)},"output":[` : '{"output":[')
    this.#items.forEach((item, i) => {
      if (i > 0) out.text(',')
      this.#writeItem(item)
    })
    out.text(tail.length > 2 ? `],${tail.slice(1)}` : ']}')
    out.text(`,"sequence_number":${this.#sequence.next++}}\n\n`)
  }

  /** The items as objects, their text decoded: the Response's `output`. */
  output(): JsonObject[] {
    return this.#items.map((item) => (isTextItem(item) ? textItemObject(item) : item))
  }

  #own(): void {
    if (owner === this) return
    owner = this
    out.length = 0
  }

  #splicedText(
    kind: TextItem['kind'],
    part: 'output_text' | 'summary_text',
    bytes: Uint8Array,
    quote: number,
    after: number,
  ): void {
    const item = this.#open
    if (item?.kind !== kind || item.part !== part) {
      this.#text(kind, part, stringAt(bytes, quote, after))
      return
    }
    item.text.appendSpelled(bytes, quote + 1, after - 1)
    const head = (item.prefixBytes ??= encoder.encode(item.prefix))
    out.delta(head, bytes, quote, after, part === 'output_text' ? TEXT_TAIL : SUMMARY_TAIL, this.#sequence.next++)
  }

  #text(kind: TextItem['kind'], part: PartKind, delta: string): void {
    let item = this.#open
    if (item?.kind !== kind) {
      this.#closeText()
      item = this.#openText(kind)
      this.#added(item.index, kind === 'reasoning' ? REASONING_ADDED(item.id) : MESSAGE_ADDED(item.id))
    }
    if (item.part !== part) {
      this.#closePart(item)
      this.#openPart(item, part)
    }
    if (delta === '') return
    const spelled = JSON.stringify(delta)
    item.text.appendQuoted(spelled)
    const tail = part === 'output_text' ? ',"logprobs":[]' : ''
    out.text(`${item.prefix}${spelled}${tail},"sequence_number":${this.#sequence.next++}}\n\n`)
  }

  #openText(kind: TextItem['kind']): TextItem {
    const item: TextItem = {
      kind,
      index: this.#items.length,
      id: itemId(kind),
      parts: [],
      part: undefined,
      text: new JsonText(),
      prefix: '',
      prefixBytes: undefined,
      status: 'in_progress',
    }
    this.#items.push(item)
    return (this.#open = item)
  }

  #openPart(item: TextItem, part: PartKind): void {
    item.part = part
    item.text = new JsonText()
    item.prefixBytes = undefined
    const at = `"item_id":"${item.id}","output_index":${item.index}`
    if (part === 'summary_text') {
      const where = `${at},"summary_index":${item.parts.length}`
      item.prefix = deltaPrefix('response.reasoning_summary_text.delta', where)
      out.text(
        event(
          this.#sequence,
          'response.reasoning_summary_part.added',
          `${where},"part":{"type":"summary_text","text":""}`,
        ),
      )
      return
    }
    const where = `${at},"content_index":${item.parts.length}`
    const type = part === 'output_text' ? 'response.output_text.delta' : 'response.refusal.delta'
    item.prefix = deltaPrefix(type, where)
    const empty = part === 'output_text' ? EMPTY_TEXT : EMPTY_REFUSAL
    out.text(event(this.#sequence, 'response.content_part.added', `${where},"part":${empty}`))
  }

  #closePart(item: TextItem): void {
    const kind = item.part
    if (kind === undefined) return
    item.part = undefined
    const part: Part = { kind, text: item.text }
    const at = `"item_id":"${item.id}","output_index":${item.index}`
    const index = item.parts.length
    item.parts.push(part)
    if (kind === 'summary_text') {
      const where = `${at},"summary_index":${index}`
      this.#textEvent('response.reasoning_summary_text.done', `${where},"text":`, part.text, '')
      this.#start('response.reasoning_summary_part.done', `${where},"part":`)
      writePart(out, part)
      this.#end()
      return
    }
    const where = `${at},"content_index":${index}`
    if (kind === 'output_text')
      this.#textEvent('response.output_text.done', `${where},"text":`, part.text, ',"logprobs":[]')
    else this.#textEvent('response.refusal.done', `${where},"refusal":`, part.text, '')
    this.#start('response.content_part.done', `${where},"part":`)
    writePart(out, part)
    this.#end()
  }

  #closeText(): void {
    const item = this.#open
    if (!item) return
    this.#open = undefined
    this.#closePart(item)
    item.status = this.#status
    this.#start('response.output_item.done', `"output_index":${item.index},"item":`)
    writeTextItem(out, item)
    this.#end()
  }

  /** An event's start, up to a value the caller writes; {@link end} closes it. */
  #start(type: string, fields: string): void {
    out.text(`event: ${type}\ndata: {"type":"${type}",${fields}`)
  }

  #end(): void {
    out.text(`,"sequence_number":${this.#sequence.next++}}\n\n`)
  }

  /** An event whose `fields` end with a text, `after` after it. */
  #textEvent(type: string, fields: string, text: JsonText, after: string): void {
    this.#start(type, fields)
    writeString(out, text)
    if (after !== '') out.text(after)
    this.#end()
  }

  #callDelta(delta: JsonObject): void {
    const fn = (isObject(delta.function) ? delta.function : {}) as { name?: unknown; arguments?: unknown }
    const index = typeof delta.index === 'number' ? delta.index : 0
    let call = this.#calls.get(index)
    if (!call) this.#calls.set(index, (call = { args: '', itemId: '', index: -1, prefix: '', live: false }))
    if (call.id === undefined && typeof delta.id === 'string' && delta.id !== '') call.id = delta.id
    if (call.name === undefined && typeof fn.name === 'string' && fn.name !== '') call.name = fn.name
    const piece = typeof fn.arguments === 'string' ? fn.arguments : ''
    call.args += piece
    if (call.live) {
      if (piece !== '')
        out.text(`${call.prefix}${JSON.stringify(piece)},"sequence_number":${this.#sequence.next++}}\n\n`)
      return
    }
    this.#held += piece.length
    if (this.#held > this.#maxHeld) throw tooLarge(this.#maxHeld)
    if (call.name === undefined) return
    this.#held -= call.args.length
    this.#closeText()
    this.#startCall(call)
  }

  /** Adds a call's item, with what it held as one delta. */
  #startCall(call: Call): void {
    call.live = true
    call.itemId = itemId('function_call')
    call.index = this.#items.length
    const item = functionCallItem(
      call.itemId,
      { id: call.id, name: toolName(call.name), arguments: '' },
      this.#namespaced,
      'in_progress',
    )
    // The call's id is fixed now: the one made for an upstream that sent none must not change at the end.
    call.id = item.call_id as string
    this.#items.push(item)
    call.prefix = deltaPrefix(
      'response.function_call_arguments.delta',
      `"item_id":"${call.itemId}","output_index":${call.index}`,
    )
    this.#added(call.index, JSON.stringify(item))
    if (call.args !== '')
      out.text(`${call.prefix}${JSON.stringify(call.args)},"sequence_number":${this.#sequence.next++}}\n\n`)
  }

  #endCall(call: Call): void {
    const item: JsonObject = { ...(this.#items[call.index] as JsonObject), status: this.#status, arguments: call.args }
    out.text(
      event(
        this.#sequence,
        'response.function_call_arguments.done',
        `"item_id":"${call.itemId}","output_index":${call.index},"name":${JSON.stringify(item.name)},"arguments":${JSON.stringify(call.args)}`,
      ),
    )
    this.#items[call.index] = item
    out.text(
      event(this.#sequence, 'response.output_item.done', `"output_index":${call.index},"item":${JSON.stringify(item)}`),
    )
  }

  #added(index: number, item: string): void {
    out.text(event(this.#sequence, 'response.output_item.added', `"output_index":${index},"item":${item}`))
  }

  #writeItem(item: TextItem | JsonObject): void {
    if (isTextItem(item)) writeTextItem(out, item)
    else out.text(JSON.stringify(item))
  }
}

const EMPTY = new Uint8Array(0)
