/**
 * Draining (after SIGTERM), in the app: what arrives is refused with 503 and Retry-After in its
 * route's contract, and responses say Connection: close. The real signal, with keep-alive load,
 * is tests/e2e/shutdown.test.ts.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { RequestGate } from '../../src/http/drain'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let app: TestApp
let gate: RequestGate
let token: string

beforeAll(async () => {
  gate = new RequestGate()
  app = await makeTestApp({ deps: { gate } })
  token = await app.tokenFor('drain', ['admin'])
}, SETUP_TIMEOUT)
afterAll(() => app.close(), SETUP_TIMEOUT)

const handle =
  (gate_: RequestGate) =>
  (path: string, init: RequestInit = {}) =>
    gate_.track(app.app.fetch)(
      new Request(`http://localhost${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
      }),
    )

describe('while draining', () => {
  test('a request in flight when draining starts completes, and its response says Connection: close', async () => {
    // A body that arrives slowly keeps the request in its handler.
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await Bun.sleep(60)
        controller.enqueue(new TextEncoder().encode('{"name":"Slow fern"}'))
        controller.close()
      },
    })
    const inFlight = handle(gate)('/plants', { method: 'POST', body })
    await Bun.sleep(20)
    expect(gate.inFlight).toBe(1)
    gate.startDraining()
    const response = await inFlight
    expect(response.status).toBe(200)
    expect(response.headers.get('connection')).toBe('close')
    expect(await gate.idle(1000)).toBe(true)
  })

  const ROWS = [
    { path: '/plants', init: { method: 'POST', body: '{"name":"Fern"}' }, contract: 'plant store' },
    { path: '/docs.json', init: {}, contract: 'plant store' },
    { path: '/health', init: {}, contract: 'plant store' },
    {
      path: '/v1/chat/completions',
      init: { method: 'POST', body: '{"model":"echo","messages":[{"role":"user","content":"hi"}]}' },
      contract: 'openai',
    },
    { path: '/models', init: {}, contract: 'openai' },
    {
      path: '/v1/messages',
      init: { method: 'POST', body: '{"model":"echo","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}' },
      contract: 'anthropic',
    },
  ]
  for (const row of ROWS) {
    test(`a request that arrives after it started is a 503 with Retry-After in its contract: ${row.path}`, async () => {
      gate.startDraining()
      const response = await handle(gate)(row.path, row.init)
      expect(response.status).toBe(503)
      expect(response.headers.get('retry-after')).toBe('1')
      expect(response.headers.get('connection')).toBe('close')
      expect(response.headers.get('x-request-id')).toBeTruthy()
      const body = await response.json()
      if (row.contract === 'openai')
        expect(body.error).toMatchObject({ type: 'server_error', code: 'service_unavailable' })
      else if (row.contract === 'anthropic')
        expect(body).toEqual({
          type: 'error',
          error: { type: 'overloaded_error', message: 'this server is shutting down; retry the request' },
          request_id: response.headers.get('request-id'),
        })
      else expect(body).toEqual({ error: 503, message: 'this server is shutting down; retry the request' })
    })
  }
})

test('a gate counts requests until their Response exists, and idle() waits for the last', async () => {
  const local = new RequestGate()
  let release: () => void = () => {}
  const slow = local.track(() => new Promise<Response>((resolve) => (release = () => resolve(new Response('ok')))))
  const pending = slow(new Request('http://localhost/'))
  expect(local.inFlight).toBe(1)
  expect(await local.idle(20)).toBe(false)
  const idle = local.idle(5_000)
  release()
  await pending
  expect(await idle).toBe(true)
  expect(local.inFlight).toBe(0)
})
