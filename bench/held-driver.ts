/**
 * The load side of bench/chat-held-streams.ts: one stream over its own raw socket, and the small statistics and
 * process readings its rounds share. Not part of the product.
 */
import { readFileSync } from 'node:fs'
import type { Socket } from 'bun'
import { median as medianOf } from './relay-driver'

export type Outcome = {
  ok: boolean
  reason?: string
  events: number
  firstEventAt: number
  endedAt: number
  startedAt: number
}

/**
 * One streaming request over its own socket. Decodes chunked transfer encoding and counts
 * SSE events; `onOpen` fires at the first event.
 */
export function oneStream(port: number, request: Uint8Array, tokens: number, onOpen?: () => void): Promise<Outcome> {
  const startedAt = performance.now()
  return new Promise((resolve) => {
    const decoder = new TextDecoder()
    let raw = ''
    let headersDone = false
    let status = 0
    let sse = ''
    let events = 0
    let done = false
    let error = false
    let firstEventAt = 0
    let settled = false
    const finish = (reason?: string) => {
      if (settled) return
      settled = true
      const ok = !reason && done && !error && events === tokens + 2
      resolve({
        ok,
        reason: ok ? undefined : (reason ?? (error ? 'error event' : !done ? 'no [DONE]' : `${events} events`)),
        events,
        firstEventAt,
        endedAt: performance.now(),
        startedAt,
      })
    }
    const consume = () => {
      if (!headersDone) {
        const end = raw.indexOf('\r\n\r\n')
        if (end < 0) return
        status = Number(raw.slice(9, 12))
        headersDone = true
        raw = raw.slice(end + 4)
        if (status !== 200) return finish(`status ${status}`)
      }
      // chunked transfer encoding: <hex size>\r\n<data>\r\n
      for (;;) {
        const line = raw.indexOf('\r\n')
        if (line < 0) return
        const size = parseInt(raw.slice(0, line), 16)
        if (raw.length < line + 2 + size + 2) return
        sse += raw.slice(line + 2, line + 2 + size)
        raw = raw.slice(line + 2 + size + 2)
        let boundary: number
        while ((boundary = sse.indexOf('\n\n')) >= 0) {
          const event = sse.slice(0, boundary)
          sse = sse.slice(boundary + 2)
          if (event === 'data: [DONE]') done = true
          else if (event.startsWith('data: {"error"')) error = true
          else if (event.startsWith('data: ')) {
            if (events++ === 0) {
              firstEventAt = performance.now()
              onOpen?.()
            }
          }
        }
        // The zero-size chunk ends the body; the server may keep the connection open regardless.
        if (size === 0) return finish()
      }
    }
    Bun.connect({
      hostname: '127.0.0.1',
      port,
      socket: {
        open(socket: Socket) {
          socket.write(request)
        },
        data(_socket, data) {
          raw += decoder.decode(data, { stream: true })
          consume()
        },
        close() {
          finish()
        },
        error(_socket, cause) {
          finish(`socket error: ${cause.message}`)
        },
        connectError(_socket, cause) {
          finish(`connect error: ${cause.message}`)
        },
      },
    }).catch((cause: Error) => finish(`connect error: ${cause.message}`))
  })
}

export function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(match![1]) * 1024
}

/** The median of the rounds that measured something (a round never all open is NaN, and left out). */
export const median = (values: number[]): number => medianOf(values.filter((value) => !Number.isNaN(value)))

export async function waitUntilServing(port: number) {
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return
    } catch {}
    await Bun.sleep(100)
  }
  throw new Error('server did not start')
}
