/**
 * Every route that needs the database, with the database gone (an in-process stand-in for an
 * outage: the PGlite handle closed under the app). The real outage, on a private PostgreSQL
 * cluster, is tests/e2e/database-faults.test.ts; this runs in every pass of the suite.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let app: TestApp
const tokens: string[] = []

beforeAll(async () => {
  app = await makeTestApp()
  for (let i = 0; i < 16; i++) tokens.push(await app.tokenFor(`down-${i}`, ['admin']))
  await app.deps.database.close()
}, SETUP_TIMEOUT)

afterAll(async () => {
  await app.close().catch(() => {})
})

// What each driver says once its handle is closed: the cause the log line must keep.
const CLOSED_CODE = { pglite: 'PGLITE_CLOSED', postgres: 'CONNECTION_ENDED' } as const

// Bodies are valid, so the only thing wrong is the database. Each row gets a token never used
// before: a verified token is cached, and then a route would not need the database to say 401/403.
const ROWS: {
  method: string
  path: string
  json?: unknown
  raw?: string
  contract: 'plant store' | 'openai' | 'anthropic'
}[] = [
  { method: 'POST', path: '/plants', json: { name: 'Fern' }, contract: 'plant store' },
  { method: 'GET', path: '/plants', contract: 'plant store' },
  { method: 'DELETE', path: '/plants/5', contract: 'plant store' },
  { method: 'PUT', path: '/docs.json', json: '{"name":"x","navigation":[]}', contract: 'plant store' },
  { method: 'POST', path: '/docs.json/validate', raw: '{"name":"x"}', contract: 'plant store' },
  { method: 'GET', path: '/docs.json/revisions', contract: 'plant store' },
  { method: 'GET', path: '/docs.json', contract: 'plant store' },
  {
    method: 'POST',
    path: '/v1/chat/completions',
    json: { model: 'echo', messages: [{ role: 'user', content: 'hi' }] },
    contract: 'openai',
  },
  {
    method: 'POST',
    path: '/chat/completions',
    json: { model: 'echo', stream: true, messages: [{ role: 'user', content: 'hi' }] },
    contract: 'openai',
  },
  { method: 'GET', path: '/v1/models', contract: 'openai' },
  {
    method: 'POST',
    path: '/v1/messages',
    json: { model: 'echo', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
    contract: 'anthropic',
  },
  {
    method: 'POST',
    path: '/v1/messages/count_tokens',
    json: { model: 'echo', messages: [{ role: 'user', content: 'hi' }] },
    contract: 'anthropic',
  },
  { method: 'POST', path: '/v1/responses', json: { model: 'echo', input: 'hi' }, contract: 'openai' },
  { method: 'GET', path: '/v1/responses/resp_1', contract: 'openai' },
  { method: 'GET', path: '/responses/resp_1/input_items', contract: 'openai' },
  { method: 'DELETE', path: '/v1/responses/resp_1', contract: 'openai' },
]

describe('with the database gone, every route that needs it answers 503 with Retry-After, in its own contract', () => {
  for (const [i, row] of ROWS.entries()) {
    test(`${row.method} ${row.path}`, async () => {
      const response = await app.request(row.path, {
        method: row.method,
        token: tokens[i],
        json: row.json,
        body: row.raw,
      })
      expect(response.status).toBe(503)
      expect(response.headers.get('retry-after')).toBe('1')
      const body = await response.json()
      if (row.contract === 'openai')
        expect(body).toEqual({
          error: { message: expect.any(String), type: 'server_error', param: null, code: 'service_unavailable' },
        })
      else if (row.contract === 'anthropic')
        expect(body).toEqual({
          type: 'error',
          error: { type: 'overloaded_error', message: expect.any(String) },
          request_id: response.headers.get('request-id'),
        })
      else expect(body).toEqual({ error: 503, message: 'the database is unavailable right now; retry shortly' })
      // The log line keeps the real cause, under the request id the client was given.
      const line = app.logs.find(
        (entry) => entry.msg === 'database unavailable' && entry.request_id === response.headers.get('x-request-id'),
      )
      expect(line).toMatchObject({ cause: { code: CLOSED_CODE[app.deps.database.kind] } })
    })
  }

  test('/ready: 503, and the body says nothing of the ORM', async () => {
    const response = await app.request('/ready')
    expect(response.status).toBe(503)
    expect(await response.json()).toEqual({ error: 503, message: 'the database does not answer' })
  })
})
