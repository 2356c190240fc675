import { afterAll, beforeAll, expect, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

test('/openapi.json documents every public route of the three APIs', async () => {
  const document = await (await t.request('/openapi.json')).json()
  const operations = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
  )
  for (const expected of [
    'GET /health',
    'GET /ready',
    'POST /plants',
    'GET /plants',
    'DELETE /plants/{id}',
    'POST /chat/completions',
    'GET /models',
    'GET /docs.json',
    'PUT /docs.json',
    'POST /docs.json/validate',
    'GET /docs.json/schema',
    'GET /docs.json/revisions',
  ])
    expect(operations).toContain(expected)
  expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
})

test('the plant operations document every status they can answer', async () => {
  const document = await (await t.request('/openapi.json')).json()
  const statuses = (path: string, method: string) => Object.keys(document.paths[path][method].responses).map(Number).sort()
  expect(statuses('/plants', 'post')).toEqual([200, 400, 401, 403, 409, 413, 415, 500])
  expect(statuses('/plants', 'get')).toEqual([200, 400, 401, 403, 500])
  expect(statuses('/plants/{id}', 'delete')).toEqual([204, 400, 401, 403, 404, 500, 503])
})

test('the reference UI loads only from this origin (no CDN), with or without a trailing slash', async () => {
  for (const path of ['/openapi', '/openapi/']) {
    const page = await t.request(path)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const html = await page.text()
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])
    expect(sources.sort()).toEqual(['/openapi/assets/swagger-ui-bundle.js', '/openapi/assets/swagger-ui.css'])
    // An absolute path: from /openapi/ a relative "openapi.json" would be /openapi/openapi.json, a 404.
    expect(html).toContain("url: '/openapi.json'")
    expect(html).toContain('<meta charset="utf-8">')
    // Every colour in the page's own style is a valid CSS hex colour.
    for (const [colour] of html.matchAll(/#[0-9a-fA-F]+\b/g)) expect([4, 7]).toContain(colour.length)
  }
  for (const [asset, type] of [
    ['swagger-ui-bundle.js', 'text/javascript'],
    ['swagger-ui.css', 'text/css'],
  ]) {
    const response = await t.request(`/openapi/assets/${asset}`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toStartWith(type)
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(100_000)
  }
  expect((await t.request('/openapi/assets/../../etc/passwd')).status).toBe(404)
  expect((await t.request('/openapi/assets/index.html')).status).toBe(404)
})

test('asset names that an object inherits (__proto__, constructor, toString) are 404 in the error contract, not 500', async () => {
  for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    const response = await t.request(`/openapi/assets/${name}`)
    expect(response.status).toBe(404)
    expect(response.headers.get('content-type')).toBe('application/json')
    expect(await response.json()).toEqual({ error: 404, message: `no asset named ${name}` })
  }
  expect(t.logs.filter((line) => line.level === 'error')).toEqual([])
})
