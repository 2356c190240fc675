import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { hashToken, TokenService } from '../../src/auth/service'
import { tokens as tokensTable } from '../../src/db/schema'
import { makeTestApp, SETUP_TIMEOUT, type TestApp, uniqueOwner } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const challenge = (response: Response) => response.headers.get('www-authenticate')

describe('RFC 6750 on every plant operation', () => {
  const operations = [
    ['GET', '/plants'],
    ['POST', '/plants'],
    ['DELETE', '/plants/1'],
  ] as const

  test.each(operations)('%s %s without a header: 401 with a bare Bearer challenge', async (method, path) => {
    const response = await t.request(path, { method, json: method === 'POST' ? { name: 'x' } : undefined })
    expect(response.status).toBe(401)
    expect(challenge(response)).toBe('Bearer realm="trellis"')
  })

  test.each(operations)('%s %s with a malformed header: 400 invalid_request', async (method, path) => {
    const response = await t.request(path, { method, headers: { authorization: 'Bearer' } })
    expect(response.status).toBe(400)
    expect(challenge(response)).toContain('error="invalid_request"')
  })

  test.each(operations)('%s %s with an unknown token: 401 invalid_token', async (method, path) => {
    const response = await t.request(path, { method, token: 'trl_' + 'B'.repeat(43) })
    expect(response.status).toBe(401)
    expect(challenge(response)).toContain('error="invalid_token"')
  })

  test('a missing scope is 403 insufficient_scope naming the scope', async () => {
    const reader = await t.tokenFor(uniqueOwner('reader'), ['plants:read'])
    expect((await t.request('/plants', { token: reader })).status).toBe(200)
    const response = await t.request('/plants', { method: 'POST', token: reader, json: { name: 'no' } })
    expect(response.status).toBe(403)
    expect(challenge(response)).toBe('Bearer realm="trellis", error="insufficient_scope", scope="plants:write"')
    expect(await response.json()).toEqual({ error: 403, message: 'this token lacks the "plants:write" scope' })
    const chatOnly = await t.tokenFor(uniqueOwner('chatter'), ['chat'])
    expect((await t.request('/plants', { token: chatOnly })).status).toBe(403)
  })

  test('admin implies every scope', async () => {
    const admin = await t.tokenFor(uniqueOwner('admin'), ['admin'])
    expect((await t.request('/plants', { method: 'POST', token: admin, json: { name: 'ok' } })).status).toBe(200)
  })

  test.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('the scheme word "%s" is accepted', async (scheme) => {
    const token = await t.tokenFor(uniqueOwner('scheme'))
    expect((await t.request('/plants', { headers: { authorization: `${scheme} ${token}` } })).status).toBe(200)
  })

  test.each([
    ['an empty value', '?access_token='],
    ['no value at all', '?access_token'],
    ['among other parameters', '?limit=5&access_token=&after=1'],
  ])('access_token with %s in the query string is refused like any other', async (_, query) => {
    const token = await t.tokenFor(uniqueOwner('query'))
    const response = await t.request(`/plants${query}`, { token })
    expect(response.status).toBe(400)
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_request"')
  })

  test('a valid token in the query string is refused, not used', async () => {
    const token = await t.tokenFor(uniqueOwner('query'))
    const response = await t.request(`/plants?access_token=${token}`)
    expect(response.status).toBe(400)
    const both = await t.request(`/plants?access_token=${token}`, { token })
    expect(both.status).toBe(400)
  })

  test('public routes need no token', async () => {
    for (const path of ['/health', '/ready', '/openapi', '/openapi.json'])
      expect((await t.request(path)).status).toBe(200)
  })
})

describe('tokens', () => {
  test('look like trl_ + 43 base64url characters (32 random bytes) and are stored only as a SHA-256 hash', async () => {
    const service = new TokenService(t.deps.database.db)
    const created = await service.create({ owner: 'shape', scopes: ['chat'] })
    expect(created.token).toMatch(/^trl_[A-Za-z0-9_-]{43}$/)
    const [row] = await t.deps.database.db.select().from(tokensTable).where(eq(tokensTable.id, created.id))
    expect(row.hash).toBe(await hashToken(created.token))
    expect(JSON.stringify(row)).not.toContain(created.token.slice(4))
  })

  test('list never shows secrets', async () => {
    const service = new TokenService(t.deps.database.db)
    const created = await service.create({ owner: 'listed', scopes: ['plants:read'] })
    const listed = await service.list()
    const mine = listed.find((row) => row.id === created.id)
    expect(mine).toMatchObject({ owner: 'listed', scopes: ['plants:read'], revokedAt: null })
    expect(JSON.stringify(listed)).not.toContain(created.token)
  })

  test('revoking through the same service takes effect at once', async () => {
    const owner = uniqueOwner('revoked')
    const service = t.deps.tokens
    const created = await service.create({ owner, scopes: ['plants:read'] })
    expect((await t.request('/plants', { token: created.token })).status).toBe(200)
    expect(await service.revoke(created.id)).toBe(true)
    const response = await t.request('/plants', { token: created.token })
    expect(response.status).toBe(401)
    expect(challenge(response)).toContain('invalid_token')
    expect(await service.revoke(created.id)).toBe(false)
  })

  test('revoking from another process is seen within the 5 s cache window, and not before the cache expires', async () => {
    let now = 1_000_000
    const server = new TokenService(t.deps.database.db, { now: () => now })
    const cli = new TokenService(t.deps.database.db)
    const created = await cli.create({ owner: 'elsewhere', scopes: ['chat'] })
    expect(await server.verify(created.token)).not.toBeNull()
    await cli.revoke(created.id)
    now += 4_999
    expect(await server.verify(created.token)).not.toBeNull()
    now += 2
    expect(await server.verify(created.token)).toBeNull()
  })

  test('a cached token costs no database round trip', async () => {
    const service = new TokenService(t.deps.database.db)
    const created = await service.create({ owner: 'cached', scopes: ['chat'] })
    expect(await service.verify(created.token)).not.toBeNull()
    // With the rows gone, only the cache can still answer.
    await t.deps.database.db.delete(tokensTable).where(eq(tokensTable.id, created.id))
    expect((await service.verify(created.token))?.owner).toBe('cached')
    expect(await new TokenService(t.deps.database.db).verify(created.token)).toBeNull()
  })

  test('the cache is bounded, and a flood of unknown tokens evicts no live one', async () => {
    const service = new TokenService(t.deps.database.db, { cacheSize: 3, unknownCacheSize: 3 })
    const kept = await service.create({ owner: 'bounded', scopes: ['chat'] })
    await service.verify(kept.token)
    for (let i = 0; i < 50; i++) await service.verify('trl_' + String(i % 10).repeat(43))
    await t.deps.database.db.delete(tokensTable).where(eq(tokensTable.id, kept.id))
    // Still cached: unknown tokens are remembered apart from live ones.
    expect((await service.verify(kept.token))?.owner).toBe('bounded')
    // Live tokens past the bound do evict the oldest live one, so its deletion is now visible.
    for (let i = 0; i < 3; i++)
      await service.verify((await service.create({ owner: `more${i}`, scopes: ['chat'] })).token)
    expect(await service.verify(kept.token)).toBeNull()
  })
})

test('token hashes are the unpadded base64url SHA-256 of the secret', async () => {
  for (const secret of ['', 'a', 'ab', 'abc', 'trl_' + 'x'.repeat(43)]) {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(secret)))
    expect(await hashToken(secret)).toBe(Buffer.from(digest).toString('base64url'))
  }
})
