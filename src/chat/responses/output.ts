import { isObject, type JsonObject } from '../providers/provider'
import { tooLarge } from '../sse/writer'
import { functionCallItem, textPart, toolName } from './answer'
import { JsonText, type ReadBytes, stringAt, type TextChunk } from './chunk-splice'
import { itemId } from './input'
import type { NamespacedName } from './translate'

/*
 * The output items of a translated answer as they are made, and the events that make them: per
 * item `response.output_item.added`, its parts and deltas and `response.output_item.done`. Every
 * event is `event: <type>\ndata: <one-line JSON>\n\n` with a `sequence_number` from 0.
 *
 * The deltas are most of a stream, so their text is made from strings prepared once per item
 * rather than by serialising an object per event, and a text delta read on bytes
 * (chunk-splice.ts) is copied between bytes prepared once per part.
 */

/** The next `sequence_number`; shared with the stream's error event (see framing.ts). */
export type Sequence = { next: number }

const encoder = new TextEncoder()

/** One event whose JSON fields (without braces) are `fields`. */
export function event(sequence: Sequence, type: string, fields: string): string {
  return `event: ${type}\ndata: {"type":"${type}",${fields},"sequence_number":${sequence.next++}}\n\n`
}

/** The open reasoning item, or the open message and its open part. */
type TextItem = {
  kind: 'reasoning' | 'message'
  index: number
  id: string
  /** Closed parts of a message. */
  parts: JsonObject[]
  /** The open part: `output_text`, `refusal` or (a reasoning item's) `summary_text`. */
  part: 'output_text' | 'refusal' | 'summary_text' | undefined
  /** The open part's text so far, as its JSON spelling. */
  text: JsonText
  /** The text of a delta event of the open part, up to its `delta`. */
  prefix: string
  /** The same as bytes, for a spliced delta; made on the part's first. */
  prefixBytes: Uint8Array | undefined
}

/**
 * A function call as its deltas arrive: `held` until it has a name (some upstreams send arguments
 * first), then `live` from `response.output_item.added` until the stream ends.
 */
type Call = { id?: string; name?: string; args: string; itemId: string; index: number; prefix: string; live: boolean }

/** A spliced delta's bytes after its string: an `output_text` delta's, and a reasoning summary's. */
const TEXT_TAIL = encoder.encode(',"logprobs":[],"sequence_number":')
const SUMMARY_TAIL = encoder.encode(',"sequence_number":')
const EVENT_END = encoder.encode('}\n\n')

/** The output items as they are made, and the events that make them. */
export class OutputWriter {
  /** The items, in output order: each as added, replaced by its whole self when done. */
  readonly output: JsonObject[] = []
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

  chunk(choice: JsonObject): string {
    if (this.#finished) return ''
    if (typeof choice.finish_reason === 'string') this.#finished = true
    const delta = choice.delta
    if (!isObject(delta)) return ''
    let text = ''
    if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '')
      text += this.#text('reasoning', 'summary_text', delta.reasoning_content)
    if (typeof delta.content === 'string' && delta.content !== '')
      text += this.#text('message', 'output_text', delta.content)
    if (typeof delta.refusal === 'string' && delta.refusal !== '')
      text += this.#text('message', 'refusal', delta.refusal)
    if (Array.isArray(delta.tool_calls))
      for (const call of delta.tool_calls) if (isObject(call)) text += this.#callDelta(call)
    return text
  }

  /**
   * The events of a chunk that says only text (see chunk-splice.ts), added to `out`: the same as
   * {@link chunk} of it parsed. A piece the open part takes is copied from `bytes` as it is; one
   * that opens an item or a part goes the parsed way.
   */
  spliced(bytes: Uint8Array, found: TextChunk, out: ReadBytes): void {
    if (this.#finished) return
    if (found.reasoning >= 0 && found.reasoningEnd - found.reasoning > 2)
      this.#splicedText('reasoning', 'summary_text', bytes, found.reasoning, found.reasoningEnd, out)
    if (found.content >= 0 && found.contentEnd - found.content > 2)
      this.#splicedText('message', 'output_text', bytes, found.content, found.contentEnd, out)
  }

  #splicedText(
    kind: TextItem['kind'],
    part: 'output_text' | 'summary_text',
    bytes: Uint8Array,
    quote: number,
    after: number,
    out: ReadBytes,
  ): void {
    const item = this.#open
    if (item?.kind !== kind || item.part !== part) {
      out.text(this.#text(kind, part, stringAt(bytes, quote, after)))
      return
    }
    item.text.appendSpelled(bytes, quote + 1, after - 1)
    out.bytes((item.prefixBytes ??= encoder.encode(item.prefix)))
    out.piece(bytes, quote, after)
    out.bytes(part === 'output_text' ? TEXT_TAIL : SUMMARY_TAIL)
    out.integer(this.#sequence.next++)
    out.bytes(EVENT_END)
  }

  /**
   * Closes what is open, `status` being how the answer ended (`incomplete` when it was cut, which
   * the items still open at the end were); calls still held (never named) are the upstream's fault.
   */
  finish(status: 'completed' | 'incomplete'): string {
    this.#status = status
    let text = this.#closeText()
    for (const call of this.#calls.values()) if (!call.live) text += this.#startCall(call)
    for (const call of [...this.#calls.values()].sort((a, b) => a.index - b.index)) text += this.#endCall(call)
    // A message even when nothing was said: a client that finds no output asks again (the Agents SDK does).
    if (this.output.length === 0) {
      text += this.#text('message', 'output_text', '')
      text += this.#closeText()
    }
    return text
  }

  #text(kind: TextItem['kind'], part: NonNullable<TextItem['part']>, delta: string): string {
    let text = ''
    let item = this.#open
    if (item?.kind !== kind) {
      text += this.#closeText()
      item = this.#openText(kind)
      text += this.#added(item.index, this.output[item.index]!)
    }
    if (item.part !== part) text += this.#closePart(item) + this.#openPart(item, part)
    if (delta === '') return text
    const spelled = JSON.stringify(delta)
    item.text.appendQuoted(spelled)
    const tail = part === 'output_text' ? ',"logprobs":[]' : ''
    return `${text}${item.prefix}${spelled}${tail},"sequence_number":${this.#sequence.next++}}\n\n`
  }

  #openText(kind: TextItem['kind']): TextItem {
    const id = itemId(kind)
    const index = this.output.length
    this.output.push(
      kind === 'reasoning'
        ? { id, type: 'reasoning', summary: [] }
        : { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    )
    return (this.#open = {
      kind,
      index,
      id,
      parts: [],
      part: undefined,
      text: new JsonText(),
      prefix: '',
      prefixBytes: undefined,
    })
  }

  #openPart(item: TextItem, part: NonNullable<TextItem['part']>): string {
    item.part = part
    item.text = new JsonText()
    item.prefixBytes = undefined
    const at = `"item_id":"${item.id}","output_index":${item.index}`
    if (part === 'summary_text') {
      const where = `${at},"summary_index":${item.parts.length}`
      item.prefix = deltaPrefix('response.reasoning_summary_text.delta', where)
      return event(
        this.#sequence,
        'response.reasoning_summary_part.added',
        `${where},"part":{"type":"summary_text","text":""}`,
      )
    }
    const where = `${at},"content_index":${item.parts.length}`
    const type = part === 'output_text' ? 'response.output_text.delta' : 'response.refusal.delta'
    item.prefix = deltaPrefix(type, where)
    const empty = part === 'output_text' ? textPart('') : { type: 'refusal', refusal: '' }
    return event(this.#sequence, 'response.content_part.added', `${where},"part":${JSON.stringify(empty)}`)
  }

  #closePart(item: TextItem): string {
    const part = item.part
    if (part === undefined) return ''
    item.part = undefined
    const at = `"item_id":"${item.id}","output_index":${item.index}`
    const value = item.text.value()
    const text = JSON.stringify(value)
    if (part === 'summary_text') {
      const where = `${at},"summary_index":${item.parts.length}`
      item.parts.push({ type: 'summary_text', text: value })
      return (
        event(this.#sequence, 'response.reasoning_summary_text.done', `${where},"text":${text}`) +
        event(
          this.#sequence,
          'response.reasoning_summary_part.done',
          `${where},"part":{"type":"summary_text","text":${text}}`,
        )
      )
    }
    const where = `${at},"content_index":${item.parts.length}`
    const whole = part === 'output_text' ? textPart(value) : { type: 'refusal', refusal: value }
    item.parts.push(whole)
    const done =
      part === 'output_text'
        ? event(this.#sequence, 'response.output_text.done', `${where},"text":${text},"logprobs":[]`)
        : event(this.#sequence, 'response.refusal.done', `${where},"refusal":${text}`)
    return done + event(this.#sequence, 'response.content_part.done', `${where},"part":${JSON.stringify(whole)}`)
  }

  #closeText(): string {
    const item = this.#open
    if (!item) return ''
    this.#open = undefined
    const text = this.#closePart(item)
    const whole: JsonObject =
      item.kind === 'reasoning'
        ? { id: item.id, type: 'reasoning', summary: item.parts }
        : { id: item.id, type: 'message', status: this.#status, role: 'assistant', content: item.parts }
    return text + this.#done(item.index, whole)
  }

  #callDelta(delta: JsonObject): string {
    const fn = (isObject(delta.function) ? delta.function : {}) as { name?: unknown; arguments?: unknown }
    const index = typeof delta.index === 'number' ? delta.index : 0
    let call = this.#calls.get(index)
    if (!call) this.#calls.set(index, (call = { args: '', itemId: '', index: -1, prefix: '', live: false }))
    if (call.id === undefined && typeof delta.id === 'string' && delta.id !== '') call.id = delta.id
    if (call.name === undefined && typeof fn.name === 'string' && fn.name !== '') call.name = fn.name
    const piece = typeof fn.arguments === 'string' ? fn.arguments : ''
    call.args += piece
    if (call.live)
      return piece === ''
        ? ''
        : `${call.prefix}${JSON.stringify(piece)},"sequence_number":${this.#sequence.next++}}\n\n`
    this.#held += piece.length
    if (this.#held > this.#maxHeld) throw tooLarge(this.#maxHeld)
    if (call.name === undefined) return ''
    this.#held -= call.args.length
    return this.#closeText() + this.#startCall(call)
  }

  /** Adds a call's item, with what it held as one delta. */
  #startCall(call: Call): string {
    call.live = true
    call.itemId = itemId('function_call')
    call.index = this.output.length
    const item = functionCallItem(
      call.itemId,
      { id: call.id, name: toolName(call.name), arguments: '' },
      this.#namespaced,
      'in_progress',
    )
    // The call's id is fixed now: the one made for an upstream that sent none must not change at the end.
    call.id = item.call_id as string
    this.output.push(item)
    call.prefix = deltaPrefix(
      'response.function_call_arguments.delta',
      `"item_id":"${call.itemId}","output_index":${call.index}`,
    )
    const added = this.#added(call.index, item)
    if (call.args === '') return added
    return `${added}${call.prefix}${JSON.stringify(call.args)},"sequence_number":${this.#sequence.next++}}\n\n`
  }

  #endCall(call: Call): string {
    const item: JsonObject = { ...this.output[call.index]!, status: this.#status, arguments: call.args }
    const done = event(
      this.#sequence,
      'response.function_call_arguments.done',
      `"item_id":"${call.itemId}","output_index":${call.index},"name":${JSON.stringify(item.name)},"arguments":${JSON.stringify(call.args)}`,
    )
    return done + this.#done(call.index, item)
  }

  #added(index: number, item: JsonObject): string {
    return event(this.#sequence, 'response.output_item.added', `"output_index":${index},"item":${JSON.stringify(item)}`)
  }

  #done(index: number, item: JsonObject): string {
    this.output[index] = item
    return event(this.#sequence, 'response.output_item.done', `"output_index":${index},"item":${JSON.stringify(item)}`)
  }
}

/** The text of a delta event up to the value of its `delta`. */
function deltaPrefix(type: string, where: string): string {
  return `event: ${type}\ndata: {"type":"${type}",${where},"delta":`
}
