/** One request a client sent to a test server, as `requests()` returns it. */
export type RecordedRequest = {
  method: string
  /** The path and query, e.g. `/v1/chat/completions`. */
  path: string
  /** Lower-case names; credentials (`authorization`, `x-api-key`, cookies…) are redacted. */
  headers: Record<string, string>
  /** The body parsed as JSON when it is JSON, its text otherwise; undefined when there was none. */
  body: unknown
  /** The status the server answered (undefined while it has not answered yet). */
  status: number | undefined
  /** When it arrived. */
  at: Date
}

/** Headers that carry a credential: their values never appear in what is recorded. */
const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'cookie',
])

/** An `authorization` value keeps its scheme (`Bearer [redacted]`), which tests may want to check. */
function redacted(name: string, value: string): string {
  if (!SECRET_HEADERS.has(name)) return value
  const scheme = /^(\w+)\s+\S/.exec(value)
  return name.endsWith('authorization') && scheme ? `${scheme[1]} [redacted]` : '[redacted]'
}

/**
 * Records what clients send, in order of arrival. The body is read from a clone before the app reads the request,
 * at most `maxBytes` of it (the server's body limit: a larger body is refused anyway, and must not be buffered
 * whole here), so every request the server has answered is complete in the record.
 */
export class RequestRecorder {
  readonly #entries: RecordedRequest[] = []
  readonly #maxBytes: number

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes
  }

  /** Everything recorded so far, oldest first (a copy: the caller may keep or change it). */
  list(): RecordedRequest[] {
    return this.#entries.map((entry) => ({ ...entry, headers: { ...entry.headers } }))
  }

  clear(): void {
    this.#entries.length = 0
  }

  /** Records `request` (reading a clone of its body) and returns the entry, to be given its status. */
  async record(request: Request): Promise<RecordedRequest> {
    const url = new URL(request.url)
    const headers: Record<string, string> = {}
    request.headers.forEach((value, name) => {
      headers[name] = redacted(name, value)
    })
    const entry: RecordedRequest = {
      method: request.method,
      path: url.pathname + url.search,
      headers,
      body: undefined,
      status: undefined,
      at: new Date(),
    }
    this.#entries.push(entry)
    if (request.body) entry.body = await this.#bodyOf(request.clone(), headers['content-type'])
    return entry
  }

  async #bodyOf(copy: Request, contentType: string | undefined): Promise<unknown> {
    const reader = copy.body!.getReader()
    const chunks: Uint8Array[] = []
    let size = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > this.#maxBytes) {
        await reader.cancel()
        return `[not recorded: more than ${this.#maxBytes} bytes]`
      }
      chunks.push(value)
    }
    if (size === 0) return undefined
    const text = new TextDecoder().decode(Buffer.concat(chunks))
    if (!/\bjson\b/i.test(contentType ?? '')) return text
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }
}
