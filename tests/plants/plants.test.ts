import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp, TRANSPORTS, uniqueOwner } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

describe.each(TRANSPORTS)('through %s', (transport) => {
  let t: TestApp
  beforeAll(async () => {
    t = await makeTestApp({ transport })
  }, SETUP_TIMEOUT)
  afterAll(() => t.close(), SETUP_TIMEOUT)

  const create = (token: string, json: unknown) => t.request('/plants', { method: 'POST', token, json })
  const list = async (token: string, query = '') => {
    const response = await t.request(`/plants${query}`, { token })
    expect(response.status).toBe(200)
    return { body: (await response.json()) as { name: string; tag?: string }[], link: response.headers.get('link') }
  }

  describe('POST /plants', () => {
    test('answers 200 with name and tag, never the id', async () => {
      const token = await t.tokenFor(uniqueOwner('create'))
      const response = await create(token, { name: 'Monstera', tag: 'tropical', id: 41 })
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toStartWith('application/json')
      expect(await response.json()).toEqual({ name: 'Monstera', tag: 'tropical' })
    })

    test('omits tag when the plant has none', async () => {
      const token = await t.tokenFor(uniqueOwner('notag'))
      const response = await create(token, { name: 'Fern' })
      expect(await response.text()).toBe('{"name":"Fern"}')
    })

    test('assigns an id when none is sent, even when a client already took the next one', async () => {
      const token = await t.tokenFor(uniqueOwner('assign'))
      // The sequence starts at 1; clients grab the first few ids before the service needs them.
      for (const id of [1, 2, 3, 4, 5]) await create(token, { name: `taken ${id}`, id })
      for (let i = 0; i < 8; i++) expect((await create(token, { name: `auto ${i}` })).status).toBe(200)
      expect((await list(token)).body.filter((p) => p.name.startsWith('auto'))).toHaveLength(8)
    })

    test('a duplicate id is 409, and the first plant is kept', async () => {
      const token = await t.tokenFor(uniqueOwner('dup'))
      expect((await create(token, { name: 'first', id: 777001 })).status).toBe(200)
      const second = await create(token, { name: 'second', id: 777001 })
      expect(second.status).toBe(409)
      expect(await second.json()).toEqual({ error: 409, message: 'you already have a plant with id 777001' })
      expect((await list(token)).body.map((p) => p.name)).toEqual(['first'])
    })

    test('stores the name trimmed; unicode, emoji and SQL-looking text verbatim', async () => {
      const token = await t.tokenFor(uniqueOwner('verbatim'))
      const names = ['  Ficus lyrata  ', 'Kaktüs 🌵 サボテン', "Robert'); DROP TABLE plants;--", '🌵'.repeat(200)]
      for (const name of names) expect((await create(token, { name, tag: "' OR 1=1 --" })).status).toBe(200)
      expect((await list(token)).body).toEqual(names.map((name) => ({ name: name.trim(), tag: "' OR 1=1 --" })))
    })

    test.each([
      ['9223372036854775807', 'the largest int64'],
      ['9007199254740993', '2^53 + 1, which JSON.parse would round'],
      ['-9223372036854775808', 'the smallest int64'],
    ])('id %s (%s) round-trips exactly: it can be deleted by the same digits', async (id) => {
      const token = await t.tokenFor(uniqueOwner('int64'))
      expect((await create(token, `{"name":"exact","id":${id}}`)).status).toBe(200)
      // A rounded id would be a different plant: the delete would 404 and the duplicate would not conflict.
      expect((await create(token, `{"name":"again","id":${id}}`)).status).toBe(409)
      expect((await t.request(`/plants/${id}`, { method: 'DELETE', token })).status).toBe(204)
      expect((await t.request(`/plants/${id}`, { method: 'DELETE', token })).status).toBe(404)
    })

    test.each([
      ['a server-assigned id', { name: 'Orphan' }, /^\/plants\/\d+$/],
      ['a chosen id', { name: 'Chosen', id: 424242 }, /^\/plants\/424242$/],
      ['a chosen id above 2^53, exactly', '{"name":"Huge","id":9007199254740993}', /^\/plants\/9007199254740993$/],
      ['a negative chosen id', { name: 'Negative', id: -7 }, /^\/plants\/-7$/],
    ])('every create says where the plant is in Location (%s), and that path deletes it', async (_, json, expected) => {
      const token = await t.tokenFor(uniqueOwner('location'))
      const response = await create(token, json)
      expect(response.status).toBe(200)
      const location = response.headers.get('location')!
      expect(location).toMatch(expected)
      // The body stays the contract's: name and tag only.
      expect(Object.keys(await response.json())).toEqual(['name'])
      expect((await t.request(location, { method: 'DELETE', token })).status).toBe(204)
      expect((await list(token)).body).toEqual([])
    })

    test('ids next to each other above 2^53 stay distinct', async () => {
      const token = await t.tokenFor(uniqueOwner('adjacent'))
      expect((await create(token, '{"name":"a","id":9007199254740992}')).status).toBe(200)
      expect((await create(token, '{"name":"b","id":9007199254740993}')).status).toBe(200)
      expect((await t.request('/plants/9007199254740993', { method: 'DELETE', token })).status).toBe(204)
      expect((await list(token)).body).toEqual([{ name: 'a' }])
    })
  })

  describe('GET /plants', () => {
    test("lists the caller's plants oldest first, default limit 100", async () => {
      const token = await t.tokenFor(uniqueOwner('list'))
      for (let i = 0; i < 105; i++) await create(token, { name: `p${i}` })
      const page = await list(token)
      expect(page.body).toHaveLength(100)
      expect(page.body[0]).toEqual({ name: 'p0' })
      expect(page.body[99]).toEqual({ name: 'p99' })
    })

    test('pages with a Link rel="next" header and an unchanged body shape', async () => {
      const token = await t.tokenFor(uniqueOwner('pages'))
      for (let i = 0; i < 5; i++) await create(token, { name: `n${i}`, tag: 't' })
      const seen: string[] = []
      let next: string | null = '/plants?limit=2'
      let pages = 0
      while (next) {
        const page = await list(token, next.replace('/plants', ''))
        expect(Array.isArray(page.body)).toBe(true)
        seen.push(...page.body.map((p) => p.name))
        next = page.link ? /^<([^>]+)>; rel="next"$/.exec(page.link)![1] : null
        pages++
      }
      expect(seen).toEqual(['n0', 'n1', 'n2', 'n3', 'n4'])
      expect(pages).toBe(3)
    })

    test('no Link header when everything fits', async () => {
      const token = await t.tokenFor(uniqueOwner('fits'))
      await create(token, { name: 'only' })
      expect((await list(token, '?limit=1')).link).toBeNull()
    })

    test('an empty store lists []', async () => {
      expect((await list(await t.tokenFor(uniqueOwner('empty')))).body).toEqual([])
    })
  })

  describe('DELETE /plants/{id}', () => {
    test('204 with no body, then the plant is gone', async () => {
      const token = await t.tokenFor(uniqueOwner('del'))
      await create(token, { name: 'doomed', id: 880001 })
      const response = await t.request('/plants/880001', { method: 'DELETE', token })
      expect(response.status).toBe(204)
      expect(await response.text()).toBe('')
      expect((await list(token)).body).toEqual([])
    })

    test('an unknown id is 404', async () => {
      const response = await t.request('/plants/880999', {
        method: 'DELETE',
        token: await t.tokenFor(uniqueOwner('none')),
      })
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ error: 404, message: 'no plant with id 880999' })
    })
  })

  describe('visibility between owners (OWASP API1, BOLA)', () => {
    test("owner B can neither list nor delete owner A's plants; the answer equals a missing plant", async () => {
      const alice = await t.tokenFor(uniqueOwner('alice'))
      const bob = await t.tokenFor(uniqueOwner('bob'))
      await create(alice, { name: 'alice plant', id: 990001 })
      expect((await list(bob)).body).toEqual([])
      const stolen = await t.request('/plants/990001', { method: 'DELETE', token: bob })
      const missing = await t.request('/plants/990002', { method: 'DELETE', token: bob })
      expect(stolen.status).toBe(404)
      expect(missing.status).toBe(404)
      expect(Object.keys(await stolen.json())).toEqual(Object.keys(await missing.json()))
      expect((await list(alice)).body).toEqual([{ name: 'alice plant' }])
    })

    test("an admin token sees every owner's plants, and deletes another owner's by naming the owner", async () => {
      const aliceName = uniqueOwner('alice')
      const alice = await t.tokenFor(aliceName)
      const admin = await t.tokenFor(uniqueOwner('root'), ['admin'])
      await create(alice, { name: 'visible to admin', id: 990101 })
      expect((await list(admin, '?limit=1000')).body).toContainEqual({ name: 'visible to admin' })
      // Without ?owner= an admin names its own plants, like anyone.
      expect((await t.request('/plants/990101', { method: 'DELETE', token: admin })).status).toBe(404)
      expect((await t.request(`/plants/990101?owner=${aliceName}`, { method: 'DELETE', token: admin })).status).toBe(
        204,
      )
      expect((await list(alice)).body).toEqual([])
    })

    test('?owner= is for admins: anyone else naming another owner is 403', async () => {
      const bob = await t.tokenFor(uniqueOwner('bob'))
      const response = await t.request('/plants/1?owner=alice', { method: 'DELETE', token: bob })
      expect(response.status).toBe(403)
      expect((await response.json()).message).toContain('only an admin token')
    })

    test('ids are per owner: an id another owner holds is free for you, so 409 tells nothing about strangers', async () => {
      const alice = await t.tokenFor(uniqueOwner('alice'))
      const bob = await t.tokenFor(uniqueOwner('bob'))
      expect((await create(alice, { name: 'alice 42', id: 990042 })).status).toBe(200)
      // Once an oracle: a 409 here told bob that someone had plant 990042.
      expect((await create(bob, { name: 'bob 42', id: 990042 })).status).toBe(200)
      expect((await create(bob, { name: 'bob again', id: 990042 })).status).toBe(409)
      expect((await t.request('/plants/990042', { method: 'DELETE', token: bob })).status).toBe(204)
      expect((await list(alice)).body).toEqual([{ name: 'alice 42' }])
    })
  })

  describe('around the store', () => {
    test('every response carries X-Request-Id; a plain incoming one is echoed', async () => {
      const fresh = await t.request('/health')
      expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
      const echoed = await t.request('/plants', { headers: { 'x-request-id': 'trace-42' } })
      expect(echoed.status).toBe(401)
      expect(echoed.headers.get('x-request-id')).toBe('trace-42')
      // An id that is not plain is replaced by a fresh one. (Not "does not contain 'bad'":
      // a random UUID holds the hex letters b, a, d in a row now and then.)
      const refused = await t.request('/health', { headers: { 'x-request-id': 'bad id\twith tabs' } })
      expect(refused.headers.get('x-request-id')).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      )
    })

    test('one structured log line per request with time, id, method, path, status, duration, owner', async () => {
      const owner = uniqueOwner('logged')
      const response = await t.request('/plants', { token: await t.tokenFor(owner) })
      await new Promise((resolve) => setTimeout(resolve, 20))
      const line = t.logs.find((l) => l.request_id === response.headers.get('x-request-id'))
      expect(line).toMatchObject({ level: 'info', msg: 'request', method: 'GET', path: '/plants', status: 200, owner })
      expect(typeof line!.time).toBe('string')
      expect(typeof line!.duration_ms).toBe('number')
    })

    test('/health is alive and /ready checks the database', async () => {
      expect(await (await t.request('/health')).json()).toEqual({ status: 'ok' })
      const ready = await t.request('/ready')
      expect(ready.status).toBe(200)
      expect((await ready.json()).status).toBe('ready')
    })

    test('/ready is 503 when the database does not answer', async () => {
      const broken = await makeTestApp()
      await broken.close()
      const response = await broken.request('/ready')
      expect(response.status).toBe(503)
      expect(response.headers.get('retry-after')).toBe('1')
      expect((await response.json()).message).toBe('the database does not answer')
    })

    test('unknown routes are 404 and wrong methods 405 with Allow, in the error contract', async () => {
      const unknown = await t.request('/nowhere')
      expect(unknown.status).toBe(404)
      expect(await unknown.json()).toEqual({ error: 404, message: 'no route for GET /nowhere' })
      const wrong = await t.request('/plants', { method: 'PATCH' })
      expect(wrong.status).toBe(405)
      expect(wrong.headers.get('allow')).toBe('GET, HEAD, POST')
      expect((await wrong.json()).error).toBe(405)
    })
  })
})
