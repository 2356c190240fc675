import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/** Requests no fetch client can produce, written byte by byte to a real listening server. */
let t: TestApp
beforeAll(async () => {
  t = await makeTestApp({ transport: 'listening server' })
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

async function raw(request: string): Promise<string> {
  const { hostname, port } = new URL(t.origin!)
  const chunks: Uint8Array[] = []
  let done: () => void
  const closed = new Promise<void>((resolve) => (done = resolve))
  const socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: { data: (_s, data) => void chunks.push(data), close: () => done(), error: () => done() },
  })
  socket.write(request)
  await Promise.race([closed, Bun.sleep(3000)])
  socket.end()
  return new TextDecoder().decode(Buffer.concat(chunks))
}

test('two Authorization header lines, each holding a valid token, are a 400 invalid_request', async () => {
  const token = await t.tokenFor('twice')
  const response = await raw(
    `GET /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
  )
  expect(response).toStartWith('HTTP/1.1 400')
  expect(response.toLowerCase()).toContain('www-authenticate: bearer realm="trellis", error="invalid_request"')
  expect(response).toContain('"error":400')
})

test('one Authorization line with the same token is fine', async () => {
  const token = await t.tokenFor('once')
  const response = await raw(
    `GET /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
  )
  expect(response).toStartWith('HTTP/1.1 200')
})

test('a body shorter than its Content-Length never reaches a handler as valid JSON', async () => {
  const token = await t.tokenFor('short')
  const response = await raw(
    `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 40\r\nConnection: close\r\n\r\n{"name":"cut`,
  )
  // The client stops sending; the server either waits (no response within the window) or answers 400.
  expect(response === '' || response.startsWith('HTTP/1.1 400')).toBe(true)
  expect(response).not.toContain('HTTP/1.1 200')
  expect(response).not.toContain('HTTP/1.1 500')
})

test.each(['x', 'api', 'db:80', 'localhost:3000', '10.0.0.1'])(
  'routing works whatever the Host header (%s)',
  async (host) => {
    const response = await raw(`GET /health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)
    expect(response).toStartWith('HTTP/1.1 200')
    expect(response).toEndWith('{"status":"ok"}')
  },
)

test("unknown paths under /v1 answer in OpenAI's error shape, for OpenAI SDKs", async () => {
  const response = await t.request('/v1/audio/speech', { method: 'POST', json: {} })
  expect(response.status).toBe(404)
  expect(await response.json()).toEqual({
    error: {
      message: 'Invalid URL (POST /v1/audio/speech)',
      type: 'invalid_request_error',
      param: null,
      code: 'not_found',
    },
  })
  const wrongMethod = await t.request('/v1/chat/completions')
  expect(wrongMethod.status).toBe(405)
  expect(wrongMethod.headers.get('allow')).toContain('POST')
  expect((await wrongMethod.json()).error.type).toBe('invalid_request_error')
})
