import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp, uniqueOwner } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let t: TestApp
let token: string
beforeAll(async () => {
  t = await makeTestApp({ transport: 'listening server' })
  token = await t.tokenFor(uniqueOwner('media'), ['admin'])
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
})
const chat = { model: 'echo', messages: [{ role: 'user', content: 'hi' }] }

// [what, path, init (with the admin token unless anonymous), status, content type or null for none]
const ROWS: [string, string, RequestInit & { anonymous?: boolean }, number, string | null][] = [
  ['a created plant', '/plants', json({ name: 'Typed' }), 200, 'application/json'],
  ['a plant list', '/plants', {}, 200, 'application/json'],
  ['a plant-store 400', '/plants', json({ name: '' }), 400, 'application/json'],
  ['a 401', '/plants', { anonymous: true }, 401, 'application/json'],
  ['a 404 route', '/nowhere', {}, 404, 'application/json'],
  ['a 405', '/health', { method: 'PUT' }, 405, 'application/json'],
  ['a plant-store 404', '/plants/123456789', { method: 'DELETE' }, 404, 'application/json'],
  ['health', '/health', { anonymous: true }, 200, 'application/json'],
  ['a completion', '/chat/completions', json(chat), 200, 'application/json'],
  ['an OpenAI-shaped 400', '/chat/completions', json({ ...chat, n: 0 }), 400, 'application/json'],
  ['a stream', '/chat/completions', json({ ...chat, stream: true }), 200, 'text/event-stream'],
  ['the models', '/v1/models', {}, 200, 'application/json'],
  ['docs.json', '/docs.json', { anonymous: true }, 200, 'application/json'],
  ['a docs.json verdict', '/docs.json/validate', json({ name: 'x' }), 200, 'application/json'],
  ['the docs.json schema', '/docs.json/schema', { anonymous: true }, 200, 'application/schema+json'],
  ['the OpenAPI document', '/openapi.json', { anonymous: true }, 200, 'application/json'],
  ['the reference page', '/openapi', { anonymous: true }, 200, 'text/html; charset=utf-8'],
  ['metrics', '/metrics', {}, 200, 'text/plain; version=0.0.4; charset=utf-8'],
]

test.each(ROWS)('%s (%s) answers %d as %s', async (_, path, init, status, type) => {
  const response = await t.request(path, { ...init, token: init.anonymous ? undefined : token })
  await response.arrayBuffer()
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toBe(type)
})

test('a 204 and a 304 carry no body and no content type', async () => {
  const created = await t.request('/plants', { ...json({ name: 'Gone soon' }), token })
  const deleted = await t.request(created.headers.get('location')!, { method: 'DELETE', token })
  expect(deleted.status).toBe(204)
  expect(deleted.headers.get('content-type')).toBeNull()
  const etag = (await t.request('/docs.json')).headers.get('etag')!
  const notModified = await t.request('/docs.json', { headers: { 'if-none-match': etag } })
  expect(notModified.status).toBe(304)
  expect(notModified.headers.get('content-type')).toBeNull()
})
