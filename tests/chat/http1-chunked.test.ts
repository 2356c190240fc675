import { describe, expect, test } from 'bun:test'
import { ChunkedDecoder } from '../../src/chat/providers/http1/chunked'
import { random } from '../helpers/random'

/*
 * The decoder cuts the framing out of each read in place, so what matters is: for any body, any
 * way of framing it in chunks, and any way the network splits the bytes into reads, the data
 * that comes out is the body, in order, and nothing after the last chunk is taken for data.
 */

const encoder = new TextEncoder()

/** `body` framed as chunks of random sizes, with random (legal) extensions, line ends and trailers. */
function frame(body: Uint8Array, next: () => number): Uint8Array {
  let wire = ''
  const parts: Uint8Array[] = []
  const flush = () => {
    parts.push(encoder.encode(wire))
    wire = ''
  }
  const eol = () => (next() < 0.9 ? '\r\n' : '\n')
  for (let at = 0; at < body.length; ) {
    const size = Math.min(body.length - at, 1 + Math.floor(next() * 300))
    const hex = size.toString(16)
    wire += `${next() < 0.5 ? hex : hex.toUpperCase().padStart(hex.length + Math.floor(next() * 3), '0')}${next() < 0.2 ? ' ;name=value' : ''}${eol()}`
    flush()
    parts.push(body.slice(at, at + size))
    wire += eol()
    at += size
  }
  wire += `0${eol()}${next() < 0.3 ? `x-trailer: 1${eol()}` : ''}${eol()}`
  flush()
  return Buffer.concat(parts)
}

/** `wire` split into reads at random places, each a fresh buffer, as sockets deliver them. */
function split(wire: Uint8Array, next: () => number): Uint8Array[] {
  const reads: Uint8Array[] = []
  for (let at = 0; at < wire.length; ) {
    const size = 1 + Math.floor(next() * (next() < 0.3 ? 4 : 700))
    reads.push(wire.slice(at, at + size))
    at += size
  }
  return reads
}

describe('chunked decoding', () => {
  test('2,000 random bodies, framings and read splits all decode to the body, in place', () => {
    const next = random(7)
    for (let run = 0; run < 2000; run++) {
      const body = new Uint8Array(Math.floor(next() * 3000)).map(() => Math.floor(next() * 256))
      const after = next() < 0.2 ? encoder.encode('HTTP/1.1 200 OK\r\n') : new Uint8Array(0)
      const decoder = new ChunkedDecoder()
      const out: Uint8Array[] = []
      let rest: Uint8Array | undefined
      for (const read of split(Buffer.concat([frame(body, next), after]), next)) {
        if (decoder.done) {
          rest = rest ? Buffer.concat([rest, read]) : read
          continue
        }
        const decoded = decoder.push(read)
        out.push(decoded.data.slice())
        if (decoded.rest) rest = decoded.rest.slice()
      }
      expect(decoder.done).toBe(true)
      expect(Buffer.concat(out).equals(Buffer.from(body))).toBe(true)
      expect(Buffer.from(rest ?? new Uint8Array(0)).equals(Buffer.from(after))).toBe(true)
    }
  })

  test('a read of many small chunks comes out as one view of that read, with no copy', () => {
    const read = encoder.encode('3\r\nabc\r\n2;x=y\r\nde\r\n1\r\nf\r\n')
    const { data } = new ChunkedDecoder().push(read)
    expect(new TextDecoder().decode(data)).toBe('abcdef')
    expect(data.buffer).toBe(read.buffer)
  })

  test.each([
    ['a size that is not hex', 'zz\r\nab\r\n', 'bad chunk size'],
    ['a size with trailing junk', '2 x\r\nab\r\n', 'bad chunk size'],
    ['no size at all', '\r\nab\r\n', 'bad chunk size'],
    ['more than twelve hex digits', '1000000000000\r\n', 'bad chunk size'],
    ['data longer than its size', '2\r\nabc\r\n', 'longer than its size'],
    ['a size line that never ends', `1${' '.repeat(5000)}`, 'too long'],
  ])('%s is an error', (_, wire, message) => {
    const decoder = new ChunkedDecoder()
    expect(() => {
      for (const read of [encoder.encode(wire.slice(0, 3)), encoder.encode(wire.slice(3))]) decoder.push(read)
    }).toThrow(message)
  })
})
