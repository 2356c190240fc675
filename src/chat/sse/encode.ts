/*
 * Server-sent events exactly as OpenAI clients parse them: `data: <one-line JSON>\n\n`.
 * JSON.stringify never emits a raw newline, so each event is one line. Bytes are encoded here
 * rather than by the runtime, because Deno rejects string chunks.
 */

const encoder = new TextEncoder()

/**
 * One event in Anthropic's form, `event: <type>\ndata: <one-line JSON>\n\n`, as text: what the
 * Messages route writes and what the anthropic provider writes out again for an event it had to decode.
 */
export function namedEventText(type: string, json: string): string {
  return `event: ${type}\ndata: ${json}\n\n`
}

/** One event: `data: <json>\n\n` as bytes. */
export function encodeEvent(data: unknown): Uint8Array {
  return encoder.encode(`data: ${JSON.stringify(data)}\n\n`)
}
