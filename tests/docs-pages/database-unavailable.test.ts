/**
 * The page routes with the database gone (the PGlite or postgres.js handle closed under the app), as
 * tests/http/database-unavailable.test.ts checks the other routes: 503 with Retry-After, in the plant
 * store's contract, and the real cause in the log.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let app: TestApp
let writer: string

beforeAll(async () => {
  app = await makeTestApp()
  writer = await app.tokenFor('alice', ['docs:write'])
  // Verified once, so the PUT below meets the outage in the page store, not in the token lookup.
  await app.request('/docs/pages/warm', {
    method: 'PUT',
    body: '# warm\n',
    token: writer,
    headers: { 'content-type': 'text/markdown' },
  })
  await app.deps.database.close()
}, SETUP_TIMEOUT)

afterAll(async () => {
  await app.close().catch(() => {})
})

const ROWS: { method: string; path: string; body?: string }[] = [
  { method: 'GET', path: '/docs/pages' },
  { method: 'GET', path: '/docs/pages/plants/overview' },
  { method: 'GET', path: '/docs/pages/plants/overview?revision=2' },
  { method: 'PUT', path: '/docs/pages/plants/overview', body: '---\ntitle: Plants\n---\n# Plants\n' },
]

describe('with the database gone, every page route answers 503 with Retry-After', () => {
  test.each(ROWS)('$method $path', async (row) => {
    const response = await app.request(row.path, {
      method: row.method,
      body: row.body,
      token: row.body === undefined ? undefined : writer,
      headers: row.body === undefined ? {} : { 'content-type': 'text/markdown' },
    })
    expect(response.status).toBe(503)
    expect(response.headers.get('retry-after')).toBe('1')
    expect(await response.json()).toEqual({
      error: 503,
      message: 'the database is unavailable right now; retry shortly',
    })
    const line = app.logs.find(
      (entry) => entry.msg === 'database unavailable' && entry.request_id === response.headers.get('x-request-id'),
    )
    expect(line).toBeDefined()
  })
})
