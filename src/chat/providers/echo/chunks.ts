import type { ChunkChoice, Usage } from '../../model'
import type { ChatCompletionChunk } from '../provider'
import { spelledOut, type Step } from './answer'

/** How echo turns its planned steps into chunks: as objects, or straight into event bytes. */

export const SYSTEM_FINGERPRINT = 'fp_trellis_echo'

/**
 * The choice's `stop_reason` (vLLM's field: the stop sequence that ended it), only when a stop sequence did; OpenAI has
 * no such field, and answers without one stay exactly OpenAI's shape.
 */
export const stopReason = (sequence: string | undefined): { stop_reason?: string } =>
  sequence === undefined ? {} : { stop_reason: sequence }

/** What every chunk of one stream shares. `usage` is null on each chunk when the stream ends with a usage chunk. */
export type ChunkHead = { id: string; created: number; model: string; indexes: number[]; usage: null | undefined }
export type ChunkEmitter<T> = { step(step: Step): T; usage(usage: Usage): T }

/** A step as chunk objects, one per choice. */
export function chunkObjects(head: ChunkHead): ChunkEmitter<ChatCompletionChunk[]> {
  const { id, created, model, indexes } = head
  // One object literal per chunk (not a spread of a template), so every chunk has one shape.
  const chunk = (choices: ChunkChoice[], usage?: Usage | null): ChatCompletionChunk =>
    usage === undefined
      ? { id, object: 'chat.completion.chunk', created, model, system_fingerprint: SYSTEM_FINGERPRINT, choices }
      : { id, object: 'chat.completion.chunk', created, model, system_fingerprint: SYSTEM_FINGERPRINT, choices, usage }
  return {
    step: (bare) => {
      const step = spelledOut(bare)
      const logprobs = step.logprobs ?? null
      const finishReason = step.finishReason ?? null
      const stop = stopReason(step.stopSequence)
      return indexes.map((index) =>
        chunk([{ index, delta: step.delta, logprobs, finish_reason: finishReason, ...stop }], head.usage),
      )
    },
    usage: (usage) => [chunk([], usage)],
  }
}

/**
 * A step as the bytes of its events: exactly `encodeEvent` of each of `chunkObjects(head).step(step)`,
 * but the envelope every chunk shares is serialised once per stream, and no chunk objects are
 * built. Held streams make one of these per token each, so the garbage saved is most of it.
 * A class, so a held stream keeps one object rather than closures and their scope.
 */
export class ChunkEvents implements ChunkEmitter<Uint8Array> {
  readonly #open: string
  readonly #close: string
  readonly #indexes: number[]
  /** With one choice, a content token's event is these bytes around the token as a JSON string. */
  readonly #tokenHead: Uint8Array | undefined
  readonly #tokenTail: Uint8Array | undefined

  constructor(head: ChunkHead) {
    this.#open =
      `data: {"id":${JSON.stringify(head.id)},"object":"chat.completion.chunk","created":${head.created},` +
      `"model":${JSON.stringify(head.model)},"system_fingerprint":${JSON.stringify(SYSTEM_FINGERPRINT)},"choices":`
    this.#close = head.usage === null ? ',"usage":null}\n\n' : '}\n\n'
    this.#indexes = head.indexes
    if (head.indexes.length === 1) {
      this.#tokenHead = eventBytes.encode(`${this.#open}[{"index":${head.indexes[0]},"delta":{"content":`)
      this.#tokenTail = eventBytes.encode(`},"logprobs":null,"finish_reason":null}]${this.#close}`)
    }
  }

  step(bare: Step): Uint8Array {
    if (typeof bare === 'string' && this.#tokenHead) return this.#tokenEvent(bare)
    const step = spelledOut(bare)
    const delta = JSON.stringify(step.delta)
    const logprobs = JSON.stringify(step.logprobs ?? null)
    const stop = step.stopSequence === undefined ? '' : `,"stop_reason":${JSON.stringify(step.stopSequence)}`
    const rest = `,"delta":${delta},"logprobs":${logprobs},"finish_reason":${JSON.stringify(step.finishReason ?? null)}${stop}}]${this.#close}`
    let text = ''
    for (const index of this.#indexes) text += `${this.#open}[{"index":${index}${rest}`
    return eventBytes.encode(text)
  }

  usage(usage: Usage): Uint8Array {
    return eventBytes.encode(`${this.#open}[],"usage":${JSON.stringify(usage)}}\n\n`)
  }

  /**
   * One allocation per token: the bytes, written straight in; JSON.stringify only for tokens it would escape or that
   * are not ASCII.
   */
  #tokenEvent(token: string): Uint8Array {
    const head = this.#tokenHead!
    const tail = this.#tokenTail!
    if (!isPlainAscii(token)) {
      const json = eventBytes.encode(JSON.stringify(token))
      const bytes = new Uint8Array(head.length + json.length + tail.length)
      bytes.set(head)
      bytes.set(json, head.length)
      bytes.set(tail, head.length + json.length)
      return bytes
    }
    const bytes = new Uint8Array(head.length + token.length + 2 + tail.length)
    bytes.set(head)
    let at = head.length
    bytes[at++] = QUOTE
    for (let i = 0; i < token.length; i++) bytes[at++] = token.charCodeAt(i)
    bytes[at++] = QUOTE
    bytes.set(tail, at)
    return bytes
  }
}

const QUOTE = 0x22

/** ASCII that JSON.stringify writes as it is: no control characters, quotes or backslashes. */
function isPlainAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x20 || code === QUOTE || code === 0x5c || code > 0x7f) return false
  }
  return true
}

const eventBytes = new TextEncoder()
