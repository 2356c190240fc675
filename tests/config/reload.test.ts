import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROVIDER_KINDS } from '../../src/chat/providers'
import { configSchemaText } from '../../src/config/json-schema'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * `POST /admin/config/reload` and `GET /config/schema` (issue #29 §2), over a listening server: providers, models
 * and default limits change for the requests that start after a reload, never for one in flight; a file that
 * does not validate is refused and the running configuration stays.
 */

const SLOW = `
chat: { echoTokenDelayMs: 60 }
models:
  chat: [{ provider: echo, model: echo }]
`
const NEXT = `
echo: false
models:
  chat: [{ provider: echo, model: echo-reasoner }]
  fresh: [{ provider: echo, model: echo }]
limits: { rpm: 1000 }
`

let dir: string
let file: string
let t: TestApp
let admin: string
let user: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trellis-reload-'))
  file = join(dir, 'trellis.yaml')
  writeFileSync(file, SLOW)
  t = await makeTestApp({ env: { TRELLIS_CONFIG: file }, transport: 'listening server' })
  admin = await t.tokenFor('ops', ['admin'])
  user = await t.tokenFor('reader', ['chat'])
}, SETUP_TIMEOUT)
afterAll(async () => {
  await t.close()
  rmSync(dir, { recursive: true, force: true })
}, SETUP_TIMEOUT)

const reload = () => t.request('/admin/config/reload', { method: 'POST', token: admin })
const models = async () =>
  ((await (await t.request('/v1/models', { token: user })).json()).data as { id: string }[]).map((model) => model.id)
const ask = (model: string, stream = false) =>
  t.request('/v1/chat/completions', {
    method: 'POST',
    token: user,
    json: { model, stream, messages: [{ role: 'user', content: 'one two three four five six seven eight nine ten' }] },
  })

describe('POST /admin/config/reload', () => {
  test('a stream in flight keeps the configuration it started with; requests after the reload get the new one', async () => {
    writeFileSync(file, SLOW)
    expect((await reload()).status).toBe(200)
    expect(await models()).toEqual(['chat', 'echo', 'echo-reasoner'])
    const streaming = await ask('chat', true)
    expect(streaming.status).toBe(200)
    const reader = streaming.body!.getReader()
    const first = new TextDecoder().decode((await reader.read()).value)
    expect(first).toContain('data: ')

    writeFileSync(file, NEXT)
    const reloaded = await reload()
    const reloadedAt = performance.now()
    expect(reloaded.status).toBe(200)
    expect(await reloaded.json()).toEqual({
      reloaded: true,
      file,
      changed: ['models', 'limits', 'chat'],
      needs_restart: [],
      models: ['chat', 'fresh'],
    })

    // The stream goes on to its end, from the old registry: echo (no reasoning), at its old pace.
    let rest = ''
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      rest += new TextDecoder().decode(value)
    }
    // It was still streaming, well after the reload (about 20 events at 60 ms).
    expect(performance.now() - reloadedAt).toBeGreaterThan(400)
    expect(rest).toContain('data: [DONE]')
    expect(first + rest).not.toContain('reasoning_content')
    expect(first + rest).toContain('ten')

    // New requests: the new models, the new route of `chat`, echo gone, and the new default limits.
    expect(await models()).toEqual(['chat', 'fresh'])
    const now = await ask('chat')
    expect(
      ((await now.json()) as { choices: { message: { reasoning_content?: string } }[] }).choices[0]!.message
        .reasoning_content,
    ).toBeTruthy()
    expect(now.headers.get('x-ratelimit-limit-requests')).toBe('1000')
    expect((await ask('echo')).status).toBe(404)
    expect((await ask('fresh')).status).toBe(200)
    // Token administration checks model allow-lists against the models served now.
    const token = (models: string[]) =>
      t.request('/admin/tokens', { method: 'POST', token: admin, json: { owner: 'alice', scopes: ['chat'], models } })
    expect((await token(['fresh'])).status).toBe(201)
    expect((await token(['echo'])).status).toBe(400)
  })

  test('a file that does not validate is refused with its findings; the running configuration stays', async () => {
    writeFileSync(file, NEXT)
    expect((await reload()).status).toBe(200)
    writeFileSync(file, 'models:\n  chat: [{ provider: echo, modle: echo }]\n')
    const refused = await reload()
    expect(refused.status).toBe(400)
    const body = await refused.json()
    expect(body).toEqual({
      error: 400,
      message: `the configuration was not reloaded, and the running one stays: ${file} does not validate (2 errors)`,
      findings: [
        { file, line: 2, column: 10, path: 'models.chat[0]', message: 'models.chat[0]: model is required' },
        {
          file,
          line: 2,
          column: 28,
          path: 'models.chat[0].modle',
          message: 'models.chat[0].modle: unknown setting',
          suggestion: 'model',
        },
      ],
    })
    expect(t.logs.find((line) => line.msg === 'configuration reload refused')).toMatchObject({
      level: 'error',
      trigger: 'http',
    })
    expect(await models()).toEqual(['chat', 'fresh'])
    expect((await ask('fresh')).status).toBe(200)
  })

  test('a setting that needs a restart is named, not applied', async () => {
    writeFileSync(file, `${NEXT}server: { port: 4321, bodyLimit: 2mb }\ndatabase: { poolSize: 3 }\n`)
    const reloaded = await reload()
    expect(await reloaded.json()).toMatchObject({
      reloaded: true,
      changed: [],
      needs_restart: ['server.port (PORT)', 'server.bodyLimit (BODY_LIMIT)', 'database.poolSize (DB_POOL_SIZE)'],
    })
    expect(t.deps.config.port).not.toBe(4321)
    expect(
      t.logs.find((line) => line.msg === 'configuration changes that need a restart were not applied'),
    ).toBeDefined()
  })

  test('admin only', async () => {
    expect((await t.request('/admin/config/reload', { method: 'POST' })).status).toBe(401)
    expect((await t.request('/admin/config/reload', { method: 'POST', token: user })).status).toBe(403)
  })
})

describe('GET /config/schema', () => {
  test('public, and the same as schemas/trellis.schema.json in the repository', async () => {
    const response = await t.request('/config/schema')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/schema+json')
    const served = await response.text()
    expect(served).toBe(configSchemaText(PROVIDER_KINDS))
    // Stale after a change of settings? Run `bun scripts/config-schema.ts`.
    expect(served).toBe(readFileSync(join(import.meta.dir, '../../schemas/trellis.schema.json'), 'utf8'))
  })
})
