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
