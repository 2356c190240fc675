import { HttpError } from './errors'

/**
 * The docs routes (docs.json and the documentation pages) cap request bodies at 1 MiB, whatever the server-wide limit.
 */
export const DOCS_BODY_LIMIT = 1024 * 1024

/**
 * Reads a request body as UTF-8 text, refusing more than `limit` bytes. Checks the
 * declared Content-Length first, then counts while reading, so a chunked upload without
 * a length cannot slip past the limit either.
 *
 * A body with a declared length is read in one call: reading it through `getReader()` costs
 * Bun a fresh 256 KB read buffer per request, which dominated the CPU of small requests and
 * stayed alive as long as the request did (every open chat stream holds one).
 */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit)
  // With a declared length, `request.body` is not touched: that would build a ReadableStream
  // the request then keeps for as long as it lives.
  let bytes: Uint8Array
  if (declared !== null) bytes = await readWhole(request)
  else if (request.body) bytes = await readCounted(request.body, limit)
  else return ''
  // A runtime that does not hold the body to its declared length must not get past the limit either.
  if (bytes.byteLength > limit) throw tooLarge(limit)
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new HttpError(400, 'request body is not valid UTF-8')
  }
}

/**
 * A body of declared length, in one call. Bun's `arrayBuffer()` never settles when the client
 * goes away mid-body, so the request's own abort signal ends the wait; otherwise every truncated
 * upload would hold its handler (and a graceful stop) forever.
 */
async function readWhole(request: Request): Promise<Uint8Array> {
  const signal = request.signal
  if (signal.aborted) throw clientGone()
  let onAbort: (() => void) | undefined
  const gone = new Promise<never>((_, reject) => {
    onAbort = () => reject(clientGone())
    signal.addEventListener('abort', onAbort, { once: true })
  })
  try {
    return new Uint8Array(await Promise.race([request.arrayBuffer(), gone]))
  } finally {
    signal.removeEventListener('abort', onAbort!)
  }
}

function clientGone() {
  return new HttpError(400, 'the client closed the connection before sending the whole body')
}

/** A body of unknown length, read chunk by chunk and refused as soon as it passes `limit`. */
async function readCounted(body: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const bytes = await readLimited(body, limit)
  if (bytes === undefined) throw tooLarge(limit)
  return bytes
}

/**
 * The whole of `body` in one array, or undefined as soon as it passes `limit` bytes (the rest is
 * cancelled, never read). For request bodies and for upstream answers alike: what is buffered is
 * counted as it arrives, so neither a chunked upload nor a decompressed answer can grow past it.
 */
export async function readLimited(body: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | undefined> {
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      return undefined
    }
    chunks.push(value)
  }
  if (chunks.length === 1) return chunks[0]
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}

function tooLarge(limit: number) {
  return new HttpError(413, `request body is larger than the limit of ${limit} bytes`)
}

/** 415 unless the request declares a JSON body (`application/json`, any parameters). */
export function requireJsonContentType(request: Request): void {
  requireContentType(request, ['application/json'])
}

/** 415 unless the request's Content-Type is one of `accepted` (lower case; any parameters). */
export function requireContentType(request: Request, accepted: readonly string[]): void {
  const type = request.headers.get('content-type')
  const mime = (type ?? '').split(';')[0]!.trim().toLowerCase()
  if (accepted.includes(mime)) return
  const expected =
    accepted.length === 1 ? accepted[0] : `one of ${accepted.slice(0, -1).join(', ')} or ${accepted.at(-1)}`
  throw new HttpError(
    415,
    type
      ? `Content-Type must be ${expected}, got "${type}"`
      : `Content-Type must be ${expected}; the header is missing`,
  )
}
