import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrate } from '../../src/db/migrate'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'
import { runCli } from '../helpers/process'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes, which take several times as long beside a parallel run
// (`bun test --parallel=2`, .ci/run); the CLI mistakes test took 12 s there.
setDefaultTimeout(90_000)

/*
 * A database nobody migrated (MIGRATE_ON_START=false, then no `trellis migrate`), as a new user met it (issue #29
 * §3): /ready answered 200 and the routes 500. Now /ready is 503 with the reason, every route a 503 in its own
 * contract that says to run `trellis migrate`, and no message anywhere carries a query's parameters.
 */

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp({ migrated: false })
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const BEARER = 'trl_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'
const SAYS = 'the database is not migrated: run `trellis migrate`'

describe('before `trellis migrate`', () => {
  test('/ready is 503 and says why; /health still answers', async () => {
    const ready = await t.request('/ready')
    expect(ready.status).toBe(503)
    expect((await ready.json()).message).toContain(SAYS)
    expect(Number(ready.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await t.request('/health')).status).toBe(200)
  })

  test.each([
    ['GET /plants', '/plants', {}],
    ['GET /docs.json', '/docs.json', {}],
    ['GET /docs/pages', '/docs/pages', {}],
    ['GET /admin/tokens', '/admin/tokens', {}],
    ['GET /docs/ (the site, where GET / sends a browser)', '/docs/', {}],
    ['GET /docs/introduction', '/docs/introduction', {}],
  ])("%s: 503 in the plant store's contract, naming trellis migrate", async (_, path, init) => {
    const response = await t.request(path, { ...init, headers: { authorization: `Bearer ${BEARER}` } })
    expect(response.status).toBe(503)
    const body = await response.json()
    expect(body).toEqual({ error: 503, message: expect.stringContaining(SAYS) })
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0)
  })

  test("POST /v1/chat/completions: 503 in OpenAI's shape, code database_not_migrated", async () => {
    const response = await t.request('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${BEARER}` },
      json: { model: 'echo', messages: [{ role: 'user', content: 'hi' }] },
    })
    expect(response.status).toBe(503)
    expect((await response.json()).error).toMatchObject({
      code: 'database_not_migrated',
      message: expect.stringContaining(SAYS),
    })
  })

  test("POST /v1/messages: 503 in Anthropic's shape", async () => {
    const response = await t.request('/v1/messages', {
      method: 'POST',
      headers: { 'x-api-key': BEARER, 'anthropic-version': '2023-06-01' },
      json: { model: 'echo', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
    })
    expect(response.status).toBe(503)
    const body = await response.json()
    expect(body.type).toBe('error')
    expect(body.error.message).toContain(SAYS)
  })

  test('once migrated, /ready is 200', async () => {
    await migrate(t.deps.database.db)
    expect((await t.request('/ready')).status).toBe(200)
  })
})

describe('the CLI on a database nobody migrated', () => {
  const root = mkdtempSync(join(tmpdir(), 'trellis-unmigrated-'))
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  test('token create says to run trellis migrate, and prints no SQL, no parameters, no hash', async () => {
    const env = { TRELLIS_DATA_DIR: join(root, 'data'), MIGRATE_ON_START: 'false' }
    const result = await runCli(['token', 'create', '--owner', 'alice', '--scope', 'admin'], env)
    expect(result.code).toBe(1)
    expect(result.stderr.trim()).toBe(`trellis: ${SAYS} (or start the server with MIGRATE_ON_START=true)`)
    expect(result.stdout).not.toContain('trl_')
  }, 30_000)
})
