import type { JsonObject } from '../providers/provider'
import { textPart } from './answer'
import type { JsonText, ReadBytes } from './read-bytes'

/*
 * A translated answer's text items as JSON, written into the events' bytes with each part's text
 * copied from its kept spelling: exactly what `JSON.stringify` of the item's object writes (its
 * members in the same order), which {@link textItemObject} makes when the Response is stored.
 */

const QUOTE = new Uint8Array([0x22])

export type PartKind = 'output_text' | 'refusal' | 'summary_text'

/** A closed part: its kind and its text. */
export type Part = { kind: PartKind; text: JsonText }

/** The open reasoning item, or the open message and its open part; kept whole once closed. */
export type TextItem = {
  kind: 'reasoning' | 'message'
  index: number
  id: string
  /** Closed parts. */
  parts: Part[]
  /** The open part: `output_text`, `refusal` or (a reasoning item's) `summary_text`. */
  part: PartKind | undefined
  /** The open part's text so far, as its JSON spelling. */
  text: JsonText
  /** The text of a delta event of the open part, up to its `delta`. */
  prefix: string
  /** The same as bytes, for a spliced delta; made on the part's first. */
  prefixBytes: Uint8Array | undefined
  /** A message's status once closed. */
  status: string
}

export const isTextItem = (item: TextItem | JsonObject): item is TextItem => 'prefixBytes' in item

/** A text item as `output_item.added` has it: exactly `JSON.stringify` of the item with no content. */
export const MESSAGE_ADDED = (id: string) =>
  JSON.stringify({ id, type: 'message', status: 'in_progress', role: 'assistant', content: [] })
export const REASONING_ADDED = (id: string) => JSON.stringify({ id, type: 'reasoning', summary: [] })
/** An empty part as `content_part.added` has it. */
export const EMPTY_TEXT = JSON.stringify(textPart(''))
export const EMPTY_REFUSAL = JSON.stringify({ type: 'refusal', refusal: '' })

/** The text of a delta event up to the value of its `delta`. */
export function deltaPrefix(type: string, where: string): string {
  return `event: ${type}\ndata: {"type":"${type}",${where},"delta":`
}

/** A closed text item as JSON: exactly `JSON.stringify` of {@link textItemObject}. */
export function writeTextItem(out: ReadBytes, item: TextItem): void {
  out.text(
    item.kind === 'reasoning'
      ? `{"id":${JSON.stringify(item.id)},"type":"reasoning","summary":[`
      : `{"id":${JSON.stringify(item.id)},"type":"message","status":${JSON.stringify(item.status)},"role":"assistant","content":[`,
  )
  item.parts.forEach((part, i) => {
    if (i > 0) out.text(',')
    writePart(out, part)
  })
  out.text(']}')
}

/** A part as JSON: exactly `JSON.stringify` of {@link partObject}. */
export function writePart(out: ReadBytes, part: Part): void {
  if (part.kind === 'output_text') {
    out.text('{"type":"output_text","text":')
    writeString(out, part.text)
    out.text(',"annotations":[],"logprobs":[]}')
  } else if (part.kind === 'refusal') {
    out.text('{"type":"refusal","refusal":')
    writeString(out, part.text)
    out.text('}')
  } else {
    out.text('{"type":"summary_text","text":')
    writeString(out, part.text)
    out.text('}')
  }
}

/** A text as `JSON.stringify` spells it: its spelling as kept, when that is exactly it. */
export function writeString(out: ReadBytes, text: JsonText): void {
  if (!text.canonical) return out.text(JSON.stringify(text.value()))
  out.bytes(QUOTE)
  text.writeTo(out)
  out.bytes(QUOTE)
}

function partObject(part: Part): JsonObject {
  const text = part.text.value()
  if (part.kind === 'output_text') return textPart(text)
  return part.kind === 'refusal' ? { type: 'refusal', refusal: text } : { type: 'summary_text', text }
}

export function textItemObject(item: TextItem): JsonObject {
  const parts = item.parts.map(partObject)
  return item.kind === 'reasoning'
    ? { id: item.id, type: 'reasoning', summary: parts }
    : { id: item.id, type: 'message', status: item.status, role: 'assistant', content: parts }
}
