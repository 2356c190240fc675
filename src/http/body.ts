import { HttpError } from './errors'

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
  if (!request.body) return ''
  const bytes = declared !== null ? new Uint8Array(await request.arrayBuffer()) : await readCounted(request.body, limit)
  // A runtime that does not hold the body to its declared length must not get past the limit either.
  if (bytes.byteLength > limit) throw tooLarge(limit)
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new HttpError(400, 'request body is not valid UTF-8')
  }
}

/** A body of unknown length, read chunk by chunk and refused as soon as it passes `limit`. */
async function readCounted(body: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      throw tooLarge(limit)
    }
    chunks.push(value)
  }
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
  const type = request.headers.get('content-type')
  const mime = type?.split(';')[0].trim().toLowerCase()
  if (mime !== 'application/json')
    throw new HttpError(415, type ? `Content-Type must be application/json, got "${type}"` : 'Content-Type must be application/json; the header is missing')
}
