/**
 * Token administration over HTTP (`/admin/tokens`, scope admin), on whichever database the suite
 * runs: on the embedded PGlite this is how tokens are made while the server holds it.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let t: TestApp
let admin: string
beforeAll(async () => {
  t = await makeTestApp()
  admin = await t.tokenFor('root', ['admin'])
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const create = (json: unknown, token = admin) => t.request('/admin/tokens', { method: 'POST', token, json })

describe('POST /admin/tokens', () => {
  test('201 with the secret, shown once, and everything else; the secret works at once', async () => {
    const response = await create({
      owner: 'alice',
      scopes: ['chat', 'plants:read'],
      limits: { rpm: 60, tpm: 100_000 },
      models: ['echo'],
      expires_at: '2099-01-01T00:00:00Z',
      cost_header: true,
    })
    expect(response.status).toBe(201)
    const body = await response.json()
    expect(body).toEqual({
      id: expect.stringMatching(/^tok_[A-Za-z0-9_-]{12}$/),
      token: expect.stringMatching(/^trl_[A-Za-z0-9_-]{43}$/),
      owner: 'alice',
      scopes: ['chat', 'plants:read'],
      limits: { rpm: 60, tpm: 100_000 },
      models: ['echo'],
      expires_at: '2099-01-01T00:00:00.000Z',
      cost_header: true,
      created_at: expect.any(String),
      revoked_at: null,
    })
    expect((await t.request('/plants', { token: body.token })).status).toBe(200)
    // Never again: not in the list, not in the record.
    const listed = await (await t.request('/admin/tokens', { token: admin })).json()
    expect(JSON.stringify(listed)).not.toContain(body.token)
    expect(listed.data.find((row: { id: string }) => row.id === body.id)).toMatchObject({
      owner: 'alice',
      limits: { rpm: 60, tpm: 100_000 },
    })
  })

  // One row per bad request: status and a fragment of the message.
  const BAD: { name: string; json?: unknown; raw?: string; token?: 'plain'; status: number; message: string }[] = [
    { name: 'no owner', json: { scopes: ['chat'] }, status: 400, message: 'owner is required' },
    {
      name: 'a cost header that is not a boolean',
      json: { owner: 'x', scopes: ['chat'], cost_header: 'yes' },
      status: 400,
      message: 'cost_header must be true or false',
    },
    {
      name: 'an empty scope list',
      json: { owner: 'x', scopes: [] },
      status: 400,
      message: 'scopes must be a non-empty list',
    },
    { name: 'an unknown scope', json: { owner: 'x', scopes: ['root'] }, status: 400, message: 'scopes' },
    {
      name: 'an unknown field',
      json: { owner: 'x', scopes: ['chat'], color: 'red' },
      status: 400,
      message: 'unknown field "color"',
    },
    {
      name: 'a limit of 0',
      json: { owner: 'x', scopes: ['chat'], limits: { rpm: 0 } },
      status: 400,
      message: 'limits.rpm',
    },
    {
      name: 'an unknown limit',
      json: { owner: 'x', scopes: ['chat'], limits: { rpd: 5 } },
      status: 400,
      message: 'unknown field "limits.rpd"',
    },
    {
      name: 'a date that is not one',
      json: { owner: 'x', scopes: ['chat'], expires_at: 'tomorrow' },
      status: 400,
      message: 'expires_at must be an RFC 3339 date-time',
    },
    { name: 'malformed JSON', raw: '{"owner":', status: 400, message: 'malformed JSON' },
    {
      name: 'an rpm past 2^53 (a bigint inside limits)',
      raw: '{"owner":"x","scopes":["chat"],"limits":{"rpm":9007199254740993}}',
      status: 400,
      message: 'limits.rpm',
    },
    {
      name: '201 characters of emoji',
      json: { owner: '🌱'.repeat(201), scopes: ['chat'] },
      status: 400,
      message: 'owner must be 1 to 200 characters',
    },
    {
      name: 'a token without the admin scope',
      json: { owner: 'x', scopes: ['chat'] },
      token: 'plain',
      status: 403,
      message: 'lacks the "admin" scope',
    },
  ]
  for (const row of BAD) {
    test(`${row.name}: ${row.status}`, async () => {
      const token = row.token === 'plain' ? await t.tokenFor('plain', ['chat', 'plants:write']) : admin
      const response =
        row.raw !== undefined
          ? await t.request('/admin/tokens', { method: 'POST', token, json: row.raw })
          : await create(row.json, token)
      expect(response.status).toBe(row.status)
      const body = await response.json()
      expect(body.error).toBe(row.status)
      expect(body.message).toContain(row.message)
    })
  }

  test('an owner of 150 emoji is 150 characters, as the schema counts: 201', async () => {
    const response = await create({ owner: '🌱'.repeat(150), scopes: ['chat'] })
    expect(response.status).toBe(201)
    expect((await response.json()).owner).toBe('🌱'.repeat(150))
  })

  test('no token at all is 401', async () => {
    expect((await t.request('/admin/tokens', { method: 'POST', json: { owner: 'x', scopes: ['chat'] } })).status).toBe(
      401,
    )
  })
})

describe('PATCH and DELETE /admin/tokens/{id}', () => {
  test('limits merge field by field, null removes one; models and expiry are replaced or cleared', async () => {
    const { id } = await (
      await create({ owner: 'bob', scopes: ['chat'], limits: { rpm: 10, tpm: 500 }, models: ['echo'] })
    ).json()
    const patch = (json: unknown) => t.request(`/admin/tokens/${id}`, { method: 'PATCH', token: admin, json })
    expect(await (await patch({ limits: { rpm: 120, streams: 4 } })).json()).toMatchObject({
      limits: { rpm: 120, tpm: 500, streams: 4 },
      models: ['echo'],
    })
    expect(await (await patch({ limits: { tpm: null } })).json()).toMatchObject({ limits: { rpm: 120, streams: 4 } })
    expect(await (await patch({ models: null, expires_at: '2030-05-01T00:00:00Z' })).json()).toMatchObject({
      models: null,
      expires_at: '2030-05-01T00:00:00.000Z',
    })
    expect(await (await patch({ limits: null, expires_at: null })).json()).toMatchObject({
      limits: null,
      expires_at: null,
    })
    expect(await (await patch({ cost_header: true })).json()).toMatchObject({ cost_header: true, limits: null })
    expect(await (await patch({ cost_header: false })).json()).toMatchObject({ cost_header: false })
    expect((await patch({ scopes: ['admin'] })).status).toBe(400)
    // An integer past 2^53 is a bigint inside the parsed limits: the message still names the field.
    const huge = await patch('{"limits":{"rpm":9007199254740993}}')
    expect(huge.status).toBe(400)
    expect((await huge.json()).message).toBe('limits.rpm must be at most 9007199254740991, got 9007199254740993')
    expect((await (await patch({ limits: { rpm: 0 } })).json()).message).toBe(
      'limits.rpm: expected integer to be greater or equal to 1, got the number 0',
    )
    expect((await (await patch({ limits: 'x' })).json()).message).toBe(
      'limits: expected object or null, got the string "x"',
    )
  })

  test('a change reaches the token at once in this process: a new limit is enforced on the next request', async () => {
    const { id, token } = await (await create({ owner: 'carol', scopes: ['plants:read'] })).json()
    expect((await t.request('/plants', { token })).status).toBe(200)
    await t.request(`/admin/tokens/${id}`, { method: 'PATCH', token: admin, json: { limits: { rpm: 1 } } })
    expect((await t.request('/plants', { token })).status).toBe(200)
    expect((await t.request('/plants', { token })).status).toBe(429)
  })

  test('DELETE revokes (204); the token is refused at once; a second DELETE and a PATCH are 404', async () => {
    const { id, token } = await (await create({ owner: 'dave', scopes: ['plants:read'] })).json()
    expect((await t.request('/plants', { token })).status).toBe(200)
    expect((await t.request(`/admin/tokens/${id}`, { method: 'DELETE', token: admin })).status).toBe(204)
    expect((await t.request('/plants', { token })).status).toBe(401)
    expect((await t.request(`/admin/tokens/${id}`, { method: 'DELETE', token: admin })).status).toBe(404)
    expect(
      (await t.request(`/admin/tokens/${id}`, { method: 'PATCH', token: admin, json: { models: null } })).status,
    ).toBe(404)
    expect(await (await t.request(`/admin/tokens/${id}`, { token: admin })).json()).toMatchObject({
      id,
      revoked_at: expect.any(String),
    })
  })

  test('an id that is not one is 400', async () => {
    expect((await t.request('/admin/tokens/nope', { method: 'DELETE', token: admin })).status).toBe(400)
  })
})

describe('expiry', () => {
  test('an expired token is refused like a revoked one', async () => {
    const { id, token } = await (
      await create({ owner: 'erin', scopes: ['plants:read'], expires_at: new Date(Date.now() + 60_000).toISOString() })
    ).json()
    expect((await t.request('/plants', { token })).status).toBe(200)
    await t.request(`/admin/tokens/${id}`, {
      method: 'PATCH',
      token: admin,
      json: { expires_at: new Date(Date.now() - 1_000).toISOString() },
    })
    const refused = await t.request('/plants', { token })
    expect(refused.status).toBe(401)
    expect((await refused.json()).message).toContain('expired')
  })
})
