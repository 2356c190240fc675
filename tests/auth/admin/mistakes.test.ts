/**
 * What a token could never use is refused when it is made or changed (issue #29 §3), over HTTP and
 * from the CLI alike: an expiry already past, a model this server does not serve, the same scope or
 * model twice.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../../helpers/app'
import { runCli } from '../../helpers/process'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes, which take several times as long beside a parallel run
// (`bun test --parallel=2`, .ci/run); the CLI mistakes test took 12 s there.
setDefaultTimeout(90_000)

let t: TestApp
let admin: string
let existing: string
beforeAll(async () => {
  t = await makeTestApp()
  admin = await t.tokenFor('root', ['admin'])
  const made = await t.request('/admin/tokens', {
    method: 'POST',
    token: admin,
    json: { owner: 'carol', scopes: ['chat'] },
  })
  existing = (await made.json()).id
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const GOOD = { owner: 'dave', scopes: ['chat'] }

describe('POST and PATCH /admin/tokens refuse a token that could never be used', () => {
  test.each([
    ['an expiry in the past', { expires_at: '2020-01-01T00:00:00Z' }, 'expires_at 2020-01-01T00:00:00Z is in the past'],
    ['a model this server does not serve', { models: ['echo', 'gpt-4o'] }, 'models names "gpt-4o", which this server'],
    ['the same model twice', { models: ['echo', 'echo'] }, 'models lists "echo" twice'],
    ['the same scope twice', { scopes: ['chat', 'chat'] }, 'scopes lists "chat" twice'],
  ])('POST with %s: 400 naming it', async (_, fields, message) => {
    const response = await t.request('/admin/tokens', { method: 'POST', token: admin, json: { ...GOOD, ...fields } })
    expect(response.status).toBe(400)
    expect((await response.json()).message).toContain(message)
  })

  // (PATCH may set an expiry in the past: that ends a token now, see tokens.test.ts.)
  test.each([
    ['a model this server does not serve', { models: ['gpt-4o'] }, 'models names "gpt-4o"'],
    ['the same model twice', { models: ['echo', 'echo'] }, 'models lists "echo" twice'],
  ])('PATCH with %s: 400 naming it, the token unchanged', async (_, fields, message) => {
    const response = await t.request(`/admin/tokens/${existing}`, { method: 'PATCH', token: admin, json: fields })
    expect(response.status).toBe(400)
    expect((await response.json()).message).toContain(message)
    const token = await (await t.request(`/admin/tokens/${existing}`, { token: admin })).json()
    expect([token.expires_at, token.models]).toEqual([null, null])
  })

  test('what a token may use is still accepted: served models, a future expiry', async () => {
    const response = await t.request('/admin/tokens', {
      method: 'POST',
      token: admin,
      json: { ...GOOD, models: ['echo', 'echo-reasoner'], expires_at: '2099-01-01T00:00:00Z' },
    })
    expect(response.status).toBe(201)
  })
})

describe('the CLI refuses the same', () => {
  const root = mkdtempSync(join(tmpdir(), 'trellis-cli-models-'))
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  test.each([
    ['a model the configuration does not serve', 'echo,gpt-4o', '--models names "gpt-4o", which this server does not'],
    ['the same model twice', 'echo,echo', '--models lists "echo" twice'],
  ])(
    'token create --models with %s: exit 1, naming it, no token',
    async (_, models, message) => {
      const env = { TRELLIS_DATA_DIR: join(root, 'data') }
      const result = await runCli(['token', 'create', '--owner', 'x', '--scope', 'chat', '--models', models], env)
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(message)
      expect(result.stdout).not.toContain('trl_')
    },
    30_000,
  )
})
