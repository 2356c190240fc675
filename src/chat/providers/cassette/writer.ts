import { appendFileSync, existsSync, readFileSync, statSync } from 'node:fs'
import { type CassetteHeader, cassetteLine, type Exchange, parseCassette } from './format'

/** Default of `maxCassetteBytes`: the most a cassette file may grow to (recording) or hold (replay). */
export const DEFAULT_MAX_CASSETTE_BYTES = 64 * 1024 * 1024

/** Header names whose values never reach a cassette, whatever `redact:` says. */
const ALWAYS_REDACTED = ['authorization', 'proxy-authorization', 'x-api-key', 'api-key', 'cookie', 'set-cookie']

/** What stands in a cassette for a redacted value. */
const REDACTED = '[redacted]'

/** Secrets shorter than this are not searched for in bodies: replacing every `ab` would wreck a cassette. */
const MIN_SECRET_LENGTH = 8

/**
 * What a recording keeps out of its cassette: the values of credential headers (and of the `redact:` names) in
 * requests and responses, and the API key, and those values, wherever else they appear (a body that echoes them).
 */
export class Redaction {
  readonly #names: Set<string>
  readonly #secrets: string[]

  constructor(names: readonly string[], secrets: readonly (string | undefined)[]) {
    this.#names = new Set([...ALWAYS_REDACTED, ...names.map((name) => name.toLowerCase())])
    this.#secrets = secrets.filter((secret): secret is string => (secret?.length ?? 0) >= MIN_SECRET_LENGTH)
  }

  /** Headers with lower-case names, the redacted ones' values replaced; their values are secrets from then on. */
  headers(headers: Iterable<[string, string]>): Record<string, string> {
    const kept: Record<string, string> = {}
    for (const [name, value] of headers) {
      const lower = name.toLowerCase()
      if (!this.#names.has(lower)) kept[lower] = value
      else {
        kept[lower] = REDACTED
        const bare = value.replace(/^(Bearer|Basic)\s+/i, '')
        for (const secret of [value, bare])
          if (secret.length >= MIN_SECRET_LENGTH && !this.#secrets.includes(secret)) this.#secrets.push(secret)
      }
    }
    return kept
  }

  /** A cassette line with every secret replaced, as it appears inside JSON strings. */
  line(text: string): string {
    let redacted = text
    // Longest first: a key inside a longer header value must not leave the rest of that value behind.
    for (const secret of [...this.#secrets].sort((a, b) => b.length - a.length))
      redacted = redacted.replaceAll(JSON.stringify(secret).slice(1, -1), REDACTED)
    return redacted
  }
}

/**
 * Appends exchanges to a cassette file, one line each, with one `appendFile` (O_APPEND, one write): a crash of the
 * process leaves the lines written before it whole. The file never grows past `maxBytes`: an exchange that would take
 * it there is served but not written (and a warning says so, once).
 */
export class CassetteWriter {
  readonly #path: string
  readonly #maxBytes: number
  #warned = false

  constructor(path: string, maxBytes: number, header: CassetteHeader) {
    this.#path = path
    this.#maxBytes = maxBytes
    const existing = existsSync(path) ? parseCassette(path, readFileSync(path, 'utf8')) : undefined
    const from = (h: CassetteHeader) => `provider '${h.provider}' (kind ${h.kind})`
    if (existing && from(existing.header) !== from(header))
      throw new Error(`${path} was recorded from ${from(existing.header)}, not ${from(header)}; use another file`)
    if (!existing) appendFileSync(path, cassetteLine(header))
  }

  /** How many more bytes the file may take. */
  room(): number {
    return this.#maxBytes - statSync(this.#path).size
  }

  /** Writes `exchange` when it fits; false when it did not (the cap). */
  write(exchange: Exchange, redaction: Redaction): boolean {
    const line = redaction.line(cassetteLine(exchange))
    if (Buffer.byteLength(line) > this.room()) {
      this.full()
      return false
    }
    appendFileSync(this.#path, line)
    return true
  }

  /** An exchange did not fit: warns, once. */
  full(): void {
    if (this.#warned) return
    this.#warned = true
    process.emitWarning(
      `cassette ${this.#path} reached its maxCassetteBytes (${this.#maxBytes}); later exchanges are not recorded`,
    )
  }
}
