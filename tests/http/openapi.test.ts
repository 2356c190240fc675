import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

test('/openapi.json documents every public route of the three APIs', async () => {
  const document = await (await t.request('/openapi.json')).json()
  const operations = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(
    ([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
  )
  for (const expected of [
    'GET /health',
    'GET /ready',
    'POST /plants',
    'GET /plants',
    'DELETE /plants/{id}',
    'POST /chat/completions',
    'GET /models',
    'POST /embeddings',
    'POST /v1/embeddings',
    'POST /v1/messages',
    'POST /v1/messages/count_tokens',
    'POST /v1/responses',
    'POST /responses',
    'GET /v1/responses/{id}',
    'GET /v1/responses/{id}/input_items',
    'DELETE /v1/responses/{id}',
    'GET /docs.json',
    'PUT /docs.json',
    'POST /docs.json/validate',
    'GET /docs.json/schema',
    'GET /docs.json/revisions',
  ])
    expect(operations).toContain(expected)
  expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
  expect(document.components.securitySchemes.apiKeyAuth).toMatchObject({
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
  })
})

test('the plant operations document every status they can answer', async () => {
  const document = await (await t.request('/openapi.json')).json()
  const statuses = (path: string, method: string) =>
    Object.keys(document.paths[path][method].responses).map(Number).sort()
  expect(statuses('/plants', 'post')).toEqual([200, 400, 401, 403, 409, 413, 415, 429, 500, 503])
  expect(statuses('/plants', 'get')).toEqual([200, 400, 401, 403, 429, 500, 503])
  expect(statuses('/plants/{id}', 'delete')).toEqual([204, 400, 401, 403, 404, 429, 500, 503])
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

type Operation = { security?: unknown[]; requestBody?: unknown; responses: Record<string, { description: string }> }

const operationsOf = (document: { paths: Record<string, Record<string, Operation>> }) =>
  Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
  )

test('every operation says its security, and documents the failures any route of its kind can send, each with a real description', async () => {
  const document = await (await t.request('/openapi.json')).json()
  for (const { name, operation } of operationsOf(document)) {
    const statuses = Object.keys(operation.responses)
    expect({ name, security: Array.isArray(operation.security) }).toEqual({ name, security: true })
    // Draining (any route) and the database (any route that reads it, tokens included) answer 503.
    expect({ name, has503: statuses.includes('503') }).toEqual({ name, has503: true })
    if (operation.security!.length > 0)
      for (const status of ['400', '401', '429', '500'])
        expect({ name, status, documented: statuses.includes(status) }).toEqual({ name, status, documented: true })
    if (operation.requestBody)
      for (const status of ['400', '413'])
        expect({ name, status, documented: statuses.includes(status) }).toEqual({ name, status, documented: true })
    for (const [status, response] of Object.entries(operation.responses)) {
      expect({ name, status, generic: /^Response for status/.test(response.description) }).toEqual({
        name,
        status,
        generic: false,
      })
      expect(response.description.length).toBeGreaterThan(8)
    }
  }
})

test('the chat routes are documented under / and under /v1, with request bodies and OpenAI-shaped errors', async () => {
  const document = await (await t.request('/openapi.json')).json()
  for (const prefix of ['', '/v1']) {
    const completion = document.paths[`${prefix}/chat/completions`].post
    expect(completion.requestBody.content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['model', 'messages']),
    )
    expect(Object.keys(completion.responses)).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '413',
      '415',
      '429',
      '500',
      '502',
      '503',
      '504',
    ])
    expect(completion.responses['404'].content['application/json'].schema.properties.error.required).toEqual([
      'message',
      'type',
      'param',
      'code',
    ])
    expect(document.paths[`${prefix}/models/{model}`].get.parameters).toEqual([
      { name: 'model', in: 'path', required: true, schema: { type: 'string' } },
    ])
  }
  // Each operation has its own id, so a generated client has one method per route.
  const ids = operationsOf(document).map(({ operation }) => (operation as { operationId?: string }).operationId)
  expect(new Set(ids).size).toBe(ids.length)
})

test('the Messages routes take x-api-key or a bearer, and document Anthropic-shaped errors', async () => {
  const document = await (await t.request('/openapi.json')).json()
  for (const path of ['/v1/messages', '/v1/messages/count_tokens']) {
    const operation = document.paths[path].post
    expect(operation.security).toEqual([{ bearerAuth: [] }, { apiKeyAuth: [] }])
    expect(operation.requestBody.content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['model', 'messages']),
    )
    expect(Object.keys(operation.responses)).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '413',
      '415',
      '429',
      '500',
      '502',
      '503',
      '504',
    ])
    const error = operation.responses['429'].content['application/json'].schema
    expect(error.required).toEqual(['type', 'error', 'request_id'])
    expect(error.properties.error.required).toEqual(['type', 'message'])
    expect(Object.keys(operation.responses['503'].headers)).toEqual(['Retry-After'])
  }
  expect(document.paths['/v1/messages'].post.requestBody.content['application/json'].schema.required).toEqual(
    expect.arrayContaining(['max_tokens']),
  )
  expect(Object.keys(document.paths['/v1/messages'].post.responses['200'].content)).toEqual([
    'application/json',
    'text/event-stream',
  ])
})

test('info carries the package version and explains the auth model; servers is relative, so it holds behind any proxy', async () => {
  const document = await (await t.request('/openapi.json')).json()
  const { version } = await Bun.file(new URL('../../package.json', import.meta.url)).json()
  expect(document.info.version).toBe(version)
  for (const phrase of ['Authorization: Bearer', 'plants:write', 'chat', 'docs:write', 'admin', '401', '403'])
    expect(document.info.description).toContain(phrase)
  expect(document.servers).toEqual([{ url: '/', description: expect.any(String) }])
})

test('a body integer is only a JSON integer: "max_tokens": "5" is a 400 naming the field, as OpenAI answers it', async () => {
  const token = await t.tokenFor('strict-integers', ['chat'])
  const response = await t.request('/chat/completions', {
    method: 'POST',
    token,
    json: { model: 'echo', messages: [{ role: 'user', content: 'hi' }], max_tokens: '5' },
  })
  expect(response.status).toBe(400)
  expect((await response.json()).error.param).toBe('max_tokens')
})

test('the document says which operations are public, and it is true: anonymous requests get 401 exactly where it lists security', async () => {
  const document = await (await t.request('/openapi.json')).json()
  for (const { name, operation } of operationsOf(document)) {
    const [method, path] = name.split(' ') as [string, string]
    const response = await t.request(path.replace(/\{[^}]+\}/g, '1'), { method })
    await response.arrayBuffer()
    expect({ name, anonymous: response.status === 401 }).toEqual({ name, anonymous: operation.security!.length > 0 })
  }
})

describe('GET /, the first address a newcomer tries', () => {
  test('a browser is sent to the documentation site', async () => {
    const response = await t.request('/', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } })
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toBe('/docs/')
  })

  test('a program gets the addresses to go on from, as JSON', async () => {
    const response = await t.request('/', { headers: { accept: 'application/json' } })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      name: 'Trellis',
      docs: '/docs/',
      api_reference: '/openapi',
      openapi: '/openapi.json',
      health: '/health',
      ready: '/ready',
    })
    expect((await t.request('/')).status).toBe(200)
  })
})
