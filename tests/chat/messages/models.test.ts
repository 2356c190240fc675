/**
 * `GET /v1/models` and `GET /v1/models/{id}` answer in Anthropic's shape when the request carries
 * `anthropic-version` (and then take `x-api-key`, and fail in Anthropic's shape), with Anthropic's
 * pagination; without it, in OpenAI's shape as before.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createEchoProvider } from '../../../src/chat/providers/echo/echo'
import { SETUP_TIMEOUT } from '../../helpers/app'
import { makeChatApp, registryOf } from '../chat-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const NAMES = ['m1', 'm2', 'm3', 'm4', 'm5']
const LISTED_AT = new Date('2026-11-26T10:11:12.345Z')

let t: Awaited<ReturnType<typeof makeChatApp>>
beforeAll(async () => {
  const echo = createEchoProvider()
  t = await makeChatApp({
    chat: { registry: registryOf(Object.fromEntries(NAMES.map((name) => [name, echo]))), keepAliveMs: 15_000 },
    deps: { clock: () => LISTED_AT },
  })
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const ANTHROPIC = { 'anthropic-version': '2023-06-01' }
const get = (path: string, headers: Record<string, string> = { ...ANTHROPIC, 'x-api-key': t.token }) =>
  t.app.handle(new Request(`http://localhost${path}`, { headers }))

const model = (id: string) => ({
  type: 'model',
  id,
  display_name: id,
  created_at: '2026-11-26T10:11:12Z',
  capabilities: null,
  deprecated_at: null,
  lifecycle: 'active',
  line: null,
  max_input_tokens: null,
  max_tokens: null,
  retires_at: null,
})

describe("with anthropic-version: Anthropic's shape", () => {
  test("the list: every field of the SDK's ModelInfo, the page's cursors, request-id", async () => {
    const response = await get('/v1/models')
    expect(response.status).toBe(200)
    expect(response.headers.get('request-id')).toBe(response.headers.get('x-request-id'))
    expect(await response.json()).toEqual({ data: NAMES.map(model), has_more: false, first_id: 'm1', last_id: 'm5' })
  })

  test('one model', async () => {
    const response = await get('/v1/models/m3')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(model('m3'))
  })

  /** One row per query: the ids on the page, and whether there are more in that direction. */
  const PAGES: [query: string, ids: string[], hasMore: boolean][] = [
    ['limit=2', ['m1', 'm2'], true],
    ['limit=2&after_id=m2', ['m3', 'm4'], true],
    ['limit=2&after_id=m4', ['m5'], false],
    ['after_id=m5', [], false],
    ['limit=2&before_id=m5', ['m3', 'm4'], true],
    ['limit=2&before_id=m2', ['m1'], false],
    ['limit=1000', NAMES, false],
    ['lifecycle[]=active&lifecycle[]=deprecated', NAMES, false],
    ['lifecycle[]=retired', [], false],
  ]
  for (const [query, ids, hasMore] of PAGES) {
    test(`?${query}`, async () => {
      const page = await (await get(`/v1/models?${query}`)).json()
      expect(page.data.map((entry: { id: string }) => entry.id)).toEqual(ids)
      expect(page.has_more).toBe(hasMore)
      expect([page.first_id, page.last_id]).toEqual([ids[0] ?? null, ids.at(-1) ?? null])
    })
  }

  /** One row per failure: the request, its status, Anthropic's error type and the start of the message. */
  const FAILURES: [name: string, send: () => Promise<Response>, status: number, type: string, message: string][] = [
    ['limit 0', () => get('/v1/models?limit=0'), 400, 'invalid_request_error', 'limit: Input should be an integer'],
    ['limit 1001', () => get('/v1/models?limit=1001'), 400, 'invalid_request_error', 'limit: Input should be'],
    ['limit not a number', () => get('/v1/models?limit=x'), 400, 'invalid_request_error', 'limit: Input should be'],
    [
      'an unknown after_id',
      () => get('/v1/models?after_id=zz'),
      400,
      'invalid_request_error',
      "after_id: no model 'zz'",
    ],
    [
      'after_id and before_id',
      () => get('/v1/models?after_id=m1&before_id=m3'),
      400,
      'invalid_request_error',
      'before_id: give after_id or before_id, not both',
    ],
    ['an unknown model', () => get('/v1/models/nope'), 404, 'not_found_error', 'The model `nope` does not exist'],
    ['no credentials', () => get('/v1/models', ANTHROPIC), 401, 'authentication_error', 'missing credentials'],
    [
      'both x-api-key and a bearer',
      () => get('/v1/models', { ...ANTHROPIC, 'x-api-key': t.token, authorization: `Bearer ${t.token}` }),
      400,
      'invalid_request_error',
      'send one credential',
    ],
    [
      'a path under /v1/models that does not exist',
      () => get('/v1/models/m1/extra'),
      404,
      'not_found_error',
      'Invalid URL',
    ],
  ]
  for (const [name, send, status, type, message] of FAILURES) {
    test(`${name}: ${status} ${type}`, async () => {
      const response = await send()
      expect(response.status).toBe(status)
      const body = await response.json()
      expect(body).toEqual({
        type: 'error',
        error: { type, message: expect.any(String) },
        request_id: expect.any(String),
      })
      expect(body.error.message).toStartWith(message)
      expect(response.headers.get('request-id')).toBe(body.request_id)
    })
  }

  test('a model outside the allow-list is 404, like one that does not exist, and is not listed', async () => {
    const { token: narrow } = await t.deps.tokens.create({ owner: 'narrow', scopes: ['chat'], models: ['m2'] })
    const headers = { ...ANTHROPIC, 'x-api-key': narrow }
    expect((await (await get('/v1/models', headers)).json()).data.map((entry: { id: string }) => entry.id)).toEqual([
      'm2',
    ])
    const hidden = await get('/v1/models/m3', headers)
    expect(hidden.status).toBe(404)
    expect((await hidden.json()).error.type).toBe('not_found_error')
  })

  test('a bearer works too, with anthropic-version', async () => {
    const response = await get('/v1/models/m1', { ...ANTHROPIC, authorization: `Bearer ${t.token}` })
    expect(await response.json()).toEqual(model('m1'))
  })
})

describe("without anthropic-version: OpenAI's shape, as before", () => {
  const bearer = () => ({ authorization: `Bearer ${t.token}` })

  test('the list and one model, under /v1 and at the root', async () => {
    for (const prefix of ['/v1', '']) {
      const list = await (await get(`${prefix}/models`, bearer())).json()
      expect(list).toEqual({
        object: 'list',
        data: NAMES.map((id) => ({
          id,
          object: 'model',
          created: Math.floor(LISTED_AT.getTime() / 1000),
          owned_by: 'trellis',
        })),
      })
      expect(await (await get(`${prefix}/models/m2`, bearer())).json()).toEqual(list.data[1])
    }
  })

  test("an unknown model is OpenAI's 404 model_not_found", async () => {
    const response = await get('/v1/models/nope', bearer())
    expect(response.status).toBe(404)
    expect((await response.json()).error).toMatchObject({ code: 'model_not_found', param: 'model' })
  })

  test("x-api-key alone is not a credential here: a 401 in OpenAI's shape", async () => {
    const response = await get('/v1/models', { 'x-api-key': t.token })
    expect(response.status).toBe(401)
    expect((await response.json()).error.message).toContain('missing Authorization header')
  })
})
