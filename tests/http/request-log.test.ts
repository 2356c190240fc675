/**
 * The request log records the status that was sent. It once logged an unknown route (404) and a
 * 405 as 200, a 415 as 400 and a 400 for `?limit=0` as Elysia's 422.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { RequestGate } from '../../src/http/drain'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let t: TestApp
let token: string
let chatOnly: string
beforeAll(async () => {
  t = await makeTestApp()
  token = await t.tokenFor('logged')
  chatOnly = await t.tokenFor('chatter', ['chat'])
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

type Row = { name: string; path: string; init?: RequestInit & { token?: string; json?: unknown } }
const ROWS: Row[] = [
  { name: 'a plant created', path: '/plants', init: { method: 'POST', json: { name: 'Fern' } } },
  { name: 'an unknown route', path: '/nowhere' },
  { name: 'an unknown route under /v1', path: '/v1/nowhere' },
  { name: 'a method the route does not allow', path: '/plants', init: { method: 'PATCH' } },
  {
    name: 'a body that is not JSON',
    path: '/plants',
    init: { method: 'POST', body: '{"name":"a"}', headers: { 'content-type': 'text/plain' } },
  },
  { name: 'limit=0', path: '/plants?limit=0' },
  { name: 'malformed JSON', path: '/plants', init: { method: 'POST', json: '{"name":' } },
  { name: 'no token', path: '/plants', init: { token: '' } },
  {
    name: 'a chat request with a bad temperature',
    path: '/v1/chat/completions',
    init: { method: 'POST', json: { model: 'echo', temperature: 9, messages: [{ role: 'user', content: 'x' }] } },
  },
  {
    name: 'an unknown model',
    path: '/v1/chat/completions',
    init: { method: 'POST', json: { model: 'nope', messages: [{ role: 'user', content: 'x' }] } },
  },
  { name: 'a missing scope', path: '/v1/models', init: { token: 'plants-only' } },
  { name: 'a docs.json revision that does not exist', path: '/docs.json/revisions/99' },
  { name: 'an asset that does not exist', path: '/openapi/assets/nope.js' },
  { name: 'health', path: '/health' },
]

for (const row of ROWS) {
  test(`${row.name}: the status logged is the status sent`, async () => {
    const init = {
      ...row.init,
      token:
        row.init?.token === ''
          ? undefined
          : row.init?.token === 'plants-only'
            ? token
            : (row.init?.token ?? (row.path.startsWith('/v1/chat') ? chatOnly : token)),
    }
    const response = await t.request(row.path, init)
    const id = response.headers.get('x-request-id')
    let line: Record<string, unknown> | undefined
    for (let i = 0; i < 50 && !line; i++) {
      line = t.logs.find((entry) => entry.msg === 'request' && entry.request_id === id)
      if (!line) await Bun.sleep(5)
    }
    expect(line).toBeDefined()
    expect(line!.status).toBe(response.status)
  })
}

test('a request refused while draining is logged as the 503 it was', async () => {
  const gate = new RequestGate()
  const draining = await makeTestApp({ deps: { gate } })
  try {
    gate.startDraining()
    const response = await draining.request('/health')
    expect(response.status).toBe(503)
    await Bun.sleep(20)
    expect(draining.logs.find((entry) => entry.msg === 'request')?.status).toBe(503)
  } finally {
    await draining.close()
  }
})
