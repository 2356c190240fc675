import {
  type ChatCompletionChunk,
  isObject,
  type JsonObject,
  noteChunk,
  type StreamReport,
} from '../providers/provider'
import { tooLarge } from '../sse/writer'
import {
  endingOf,
  functionCallItem,
  responseObject,
  type ResponseFields,
  textPart,
  toolName,
  unixSeconds,
  usageOf,
} from './answer'
import { renamed } from './errors'
import { itemId } from './input'
import type { NamespacedName } from './translate'

/*
 * A chat chunk stream as the Responses API's events, made as the chunks arrive:
 * `response.created` and `response.in_progress` once the first chunk is in (so that a failure
 * before it can still be retried or fall back), then per output item `response.output_item.added`,
 * its parts and deltas and `response.output_item.done`, and at the end `response.completed` (or
 * `response.incomplete`) with the whole output and the usage. Every event is
 * `event: <type>\ndata: <one-line JSON>\n\n` with a `sequence_number` from 0.
 *
 * The deltas are most of a stream, so their text is made from strings prepared once per item
 * rather than by serialising an object per event.
 */

/** The next `sequence_number`; shared with the stream's error event (see framing.ts). */
export type Sequence = { next: number }

const encoder = new TextEncoder()

/** One event whose JSON fields (without braces) are `fields`. */
function event(sequence: Sequence, type: string, fields: string): string {
  return `event: ${type}\ndata: {"type":"${type}",${fields},"sequence_number":${sequence.next++}}\n\n`
}

/** What a stream's end needs from the route: storing the response before it is announced. */
export type StreamEnd = {
  fields: ResponseFields
  namespaced: ReadonlyMap<string, NamespacedName>
  /** The Responses name of a chat parameter that a provider's error names (see errors.ts `renamed`). */
  param: (chat: string) => string | undefined
  /** Kept before `response.completed` goes out, so that a client may continue from it at once. */
  store?: (response: JsonObject) => Promise<void>
}

/**
 * The events of `chunks`. Each yielded item is the events one chunk made. `maxHeld`: the most bytes
 * of tool-call arguments held back while a call waits for its name (the response's own cap).
 */
export async function* responseEvents(
  chunks: AsyncIterable<ChatCompletionChunk>,
  end: StreamEnd,
  sequence: Sequence,
  report: StreamReport,
  maxHeld: number,
): AsyncGenerator<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]()
  const writer = new OutputWriter(sequence, end.namespaced, maxHeld)
  try {
    let result = await iterator.next()
    const started = `"response":${JSON.stringify(responseObject(end.fields, { status: 'in_progress' }, []))}`
    let text = event(sequence, 'response.created', started)
    text += event(sequence, 'response.in_progress', started)
    while (!result.done) {
      const chunk = result.value
      const finishReason = report.finishReason
      noteChunk(report, chunk)
      const choice = firstChoice(chunk.choices)
      // Another choice's finish reason is not this response's.
      if (chunk.choices?.[0] !== choice) report.finishReason = finishReason
      if (choice) text += writer.chunk(choice)
      if (text !== '') yield encoder.encode(text)
      text = ''
      result = await iterator.next()
    }
    const ending = endingOf(report.finishReason)
    text = writer.finish(ending.status === 'incomplete' ? 'incomplete' : 'completed')
    const response = responseObject(end.fields, ending, writer.output, usageOf(report.usage), unixSeconds())
    if (end.store) {
      // The items' last events go out first, so that an error event for a failed store is numbered after them.
      if (text !== '') yield encoder.encode(text)
      text = ''
      await end.store(response)
    }
    const type = ending.status === 'incomplete' ? 'response.incomplete' : 'response.completed'
    yield encoder.encode(text + event(sequence, type, `"response":${JSON.stringify(response)}`))
  } catch (error) {
    throw renamed(error, end.param)
  } finally {
    await iterator.return?.()
  }
}

/** Choice 0 (an upstream asked for one choice may still send others, whose text must not run into it). */
function firstChoice(choices: unknown): JsonObject | undefined {
  if (!Array.isArray(choices)) return undefined
  // Almost always the first and only one: looked at before any search.
  const first: unknown = choices[0]
  if (isObject(first) && (first.index === 0 || first.index === undefined)) return first
  const choice: unknown = choices.find(
    (candidate) => isObject(candidate) && (candidate.index === 0 || candidate.index === undefined),
  )
  return isObject(choice) ? choice : undefined
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
  text: string
  /** The text of a delta event of the open part, up to its `delta`. */
  prefix: string
}

/**
 * A function call as its deltas arrive: `held` until it has a name (some upstreams send arguments
 * first), then `live` from `response.output_item.added` until the stream ends.
 */
type Call = { id?: string; name?: string; args: string; itemId: string; index: number; prefix: string; live: boolean }

/** The output items as they are made, and the events that make them. */
class OutputWriter {
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
    item.text += delta
    if (delta === '') return text
    const tail = part === 'output_text' ? ',"logprobs":[]' : ''
    return `${text}${item.prefix}${JSON.stringify(delta)}${tail},"sequence_number":${this.#sequence.next++}}\n\n`
  }

  #openText(kind: TextItem['kind']): TextItem {
    const id = itemId(kind)
    const index = this.output.length
    this.output.push(
      kind === 'reasoning'
        ? { id, type: 'reasoning', summary: [] }
        : { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    )
    return (this.#open = { kind, index, id, parts: [], part: undefined, text: '', prefix: '' })
  }

  #openPart(item: TextItem, part: NonNullable<TextItem['part']>): string {
    item.part = part
    item.text = ''
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
    const text = JSON.stringify(item.text)
    if (part === 'summary_text') {
      const where = `${at},"summary_index":${item.parts.length}`
      item.parts.push({ type: 'summary_text', text: item.text })
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
    const whole = part === 'output_text' ? textPart(item.text) : { type: 'refusal', refusal: item.text }
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
