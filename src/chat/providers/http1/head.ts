/**
 * An HTTP/1.x response head (RFC 9112 §4–6): the status line and the header fields, and what
 * they say about the body's framing and the connection's reuse.
 */
export type ResponseHead = {
  status: number
  statusText: string
  headers: [string, string][]
  /** How the body ends: with the last chunk, after `length` bytes, or when the server closes. */
  framing: { kind: 'chunked' } | { kind: 'length'; length: number } | { kind: 'close' }
  /** The server lets the connection carry another request after this response. */
  keepAlive: boolean
}

export class ResponseHeadError extends Error {
  constructor(what: string) {
    super(`Malformed HTTP response: ${what}.`)
    this.name = 'ResponseHeadError'
  }
}

/** Beyond this a head is an attack or a broken server; Bun's own limit is similar. */
export const MAX_HEAD_BYTES = 64 * 1024

/** Where the blank line that ends a head starts, or -1; tolerates bare LF line ends. */
export function headEnd(bytes: Uint8Array, from = 0): { end: number; bodyStart: number } | undefined {
  for (let at = bytes.indexOf(LF, from); at !== -1; at = bytes.indexOf(LF, at + 1)) {
    if (bytes[at + 1] === LF) return { end: at, bodyStart: at + 2 }
    if (bytes[at + 1] === CR && bytes[at + 2] === LF) return { end: at, bodyStart: at + 3 }
  }
  return undefined
}

/** Parses a head (its bytes up to, not including, the blank line), for a request whose method was not HEAD. */
export function parseHead(bytes: Uint8Array): ResponseHead {
  // One character per byte: WHATWG's 'latin1' decoder is windows-1252, which turns UTF-8 bytes into characters Headers refuses.
  const lines = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1').split('\n')
  const statusLine = STATUS_LINE.exec(stripCr(lines[0]))
  if (!statusLine) throw new ResponseHeadError(`bad status line ${JSON.stringify(lines[0].slice(0, 80))}`)
  const [, minor, code, statusText = ''] = statusLine
  const status = Number(code)
  if (status < 100) throw new ResponseHeadError(`bad status code ${code}`)
  const headers: [string, string][] = []
  let transferEncoding: string | undefined
  let contentLength: string | undefined
  let connection = ''
  for (let i = 1; i < lines.length; i++) {
    const line = stripCr(lines[i])
    const colon = line.indexOf(':')
    if (colon <= 0 || !TOKEN.test(line.slice(0, colon))) throw new ResponseHeadError(`bad header line ${JSON.stringify(line.slice(0, 80))}`)
    const name = line.slice(0, colon).toLowerCase()
    const value = line.slice(colon + 1).trim()
    headers.push([name, value])
    if (name === 'transfer-encoding') transferEncoding = transferEncoding === undefined ? value : `${transferEncoding}, ${value}`
    else if (name === 'content-length') {
      if (contentLength !== undefined && contentLength !== value) throw new ResponseHeadError('conflicting Content-Length headers')
      contentLength = value
    } else if (name === 'connection') connection += `,${value.toLowerCase()}`
  }
  const tokens = connection.split(',').map((each) => each.trim())
  const http10 = minor === '0'
  let keepAlive = http10 ? tokens.includes('keep-alive') : !tokens.includes('close')
  let framing: ResponseHead['framing']
  if (NO_BODY(status)) framing = { kind: 'length', length: 0 }
  else if (transferEncoding !== undefined) {
    const codings = transferEncoding.toLowerCase().split(',').map((each) => each.trim())
    if (codings.at(-1) !== 'chunked') throw new ResponseHeadError(`unsupported Transfer-Encoding '${transferEncoding}'`)
    if (codings.length > 1) throw new ResponseHeadError(`unsupported Transfer-Encoding '${transferEncoding}'`)
    framing = { kind: 'chunked' }
    // A message with both may be a smuggling attempt; the RFC says not to reuse the connection.
    if (contentLength !== undefined) keepAlive = false
  } else if (contentLength !== undefined) {
    if (!/^\d{1,15}$/.test(contentLength)) throw new ResponseHeadError(`bad Content-Length '${contentLength}'`)
    framing = { kind: 'length', length: Number(contentLength) }
  } else {
    framing = { kind: 'close' }
    keepAlive = false
  }
  return { status, statusText, headers, framing, keepAlive }
}

const LF = 0x0a
const CR = 0x0d
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
/** Responses that never have a body (RFC 9112 §6.3); a 205 may still frame one. */
const NO_BODY = (status: number) => (status >= 100 && status < 200) || status === 204 || status === 304

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line
}
