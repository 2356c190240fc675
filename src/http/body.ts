import { HttpError } from './errors'

/**
 * Reads a request body as UTF-8 text, refusing more than `limit` bytes. Checks the
 * declared Content-Length first, then counts while reading, so a chunked upload without
 * a length cannot slip past the limit either.
 */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit)
  if (!request.body) return ''
  const reader = request.body.getReader()
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
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new HttpError(400, 'request body is not valid UTF-8')
  }
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
