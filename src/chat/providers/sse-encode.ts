/*
 * Server-sent events exactly as OpenAI clients parse them: `data: <one-line JSON>\n\n`.
 * JSON.stringify never emits a raw newline, so each event is one line. Bytes are encoded here
 * rather than by the runtime, because Deno rejects string chunks.
 */

const encoder = new TextEncoder()

/** One event: `data: <json>\n\n` as bytes. */
export function encodeEvent(data: unknown): Uint8Array {
  return encoder.encode(`data: ${JSON.stringify(data)}\n\n`)
}

/** Several events as one write, byte for byte what {@link encodeEvent} gives for each in turn. */
export function encodeEvents(batch: readonly unknown[]): Uint8Array {
  if (batch.length === 1) return encodeEvent(batch[0])
  let text = ''
  for (const data of batch) text += `data: ${JSON.stringify(data)}\n\n`
  return encoder.encode(text)
}
