import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import DEFAULT_DOCS from '../../src/docs-config/default-docs.json'
import { validateDocsConfig } from '../../src/docs-config/validation/validate'
import { allSources, config, freshAppPerTest, MIB, put, t, writer } from './routes-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

describe('GET /docs.json', () => {
  freshAppPerTest()

  test('before any PUT it is the built-in default, normalised, public, with an ETag', async () => {
    const response = await t.request('/docs.json')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toStartWith('application/json')
    expect(response.headers.get('etag')).toMatch(/^"r0-[0-9a-f]{16}"$/)
    const body = await response.json()
    expect(body).toEqual(validateDocsConfig(JSON.stringify(DEFAULT_DOCS)).config as object)
    expect(body).toMatchObject({ name: 'Trellis', api: { auth: { method: 'bearer' } }, openapi: '/openapi.json' })
    expect(body.topAnchor).toEqual({ name: 'Documentation', icon: 'book-open', iconType: 'duotone' })
  })

  const CONDITIONAL_ROWS: [string, (etag: string) => string, number][] = [
    ['the current ETag', (etag) => etag, 304],
    ['the current ETag, weak', (etag) => `W/${etag}`, 304],
    ['a list holding the current ETag', (etag) => `"other", ${etag}`, 304],
    ['*', () => '*', 304],
    ['a stale ETag', () => '"r0-0000000000000000"', 200],
  ]
  test.each(CONDITIONAL_ROWS)('If-None-Match with %s answers %d', async (_case, header, status) => {
    const etag = (await t.request('/docs.json')).headers.get('etag') ?? ''
    const response = await t.request('/docs.json', { headers: { 'if-none-match': header(etag) } })
    expect(response.status).toBe(status)
    expect(response.headers.get('etag')).toBe(etag)
    if (status === 304) expect(await response.text()).toBe('')
  })

  test('after a PUT it serves the new config, keys in the order they were written, with the new ETag', async () => {
    const stored = await put(config('Acme', { favicon: '/f.svg', colors: { primary: '#16A34A' } }))
    const response = await t.request('/docs.json')
    expect(response.headers.get('etag')).toBe(stored.headers.get('etag'))
    const text = await response.text()
    expect(Object.keys(JSON.parse(text)).slice(0, 4)).toEqual(['name', 'navigation', 'favicon', 'colors'])
    expect(JSON.parse(text).feedback).toEqual({ suggestEdit: false, raiseIssue: false })
  })
})

describe('PUT /docs.json', () => {
  freshAppPerTest()

  test('stores a valid config as a new revision and answers with it', async () => {
    const text = config('Acme', { favicn: '/f.svg' })
    const response = await put(text)
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body).toMatchObject({ revision: 1, author: 'alice', size: new TextEncoder().encode(text).byteLength })
    expect(response.headers.get('etag')).toBe(body.etag)
    expect(body.etag).toMatch(/^"r1-[0-9a-f]{16}"$/)
    expect(new Date(body.createdAt).toString()).not.toBe('Invalid Date')
    expect(body.config).toMatchObject({ name: 'Acme', modeToggle: { isHidden: false } })
    expect(body.warnings).toEqual([
      expect.objectContaining({ path: '/favicn', suggestion: 'favicon', line: 11, column: 3 }),
    ])
  })

  const REFUSALS: {
    case: string
    body: () => string
    token?: () => Promise<string | undefined>
    query?: string
    status: number
    message: string
  }[] = [
    { case: 'no token', body: () => config('A'), token: async () => '', status: 401, message: 'Authorization' },
    {
      case: 'a token without docs:write',
      body: () => config('A'),
      token: () => t.tokenFor('bob', ['plants:read', 'chat']),
      status: 403,
      message: 'docs:write',
    },
    {
      case: 'invalid JSON',
      body: () => '{ "name": "A", }',
      status: 400,
      message: 'docs.json is invalid: 1 error; the first is at line 1, column 14',
    },
    {
      case: 'a schema error',
      body: () => config('A', { colors: { primary: 'red' } }),
      status: 400,
      message: 'colors.primary: "red" is not a hex colour',
    },
    {
      case: 'an unknown property with ?strict=true',
      body: () => config('A', { favicn: '/f' }),
      query: '?strict=true',
      status: 400,
      message: 'favicn: unknown property',
    },
    {
      case: 'a bad strict value',
      body: () => config('A'),
      query: '?strict=yes',
      status: 400,
      message: 'strict must be true or false',
    },
    { case: 'a body over 1 MiB', body: () => ' '.repeat(MIB + 1), status: 413, message: 'larger than the limit' },
  ]
  test.each(REFUSALS.map((row) => [row.case, row] as const))('refuses %s and stores nothing', async (_case, row) => {
    const token = row.token ? await row.token() : writer
    const response = await t.request(`/docs.json${row.query ?? ''}`, {
      method: 'PUT',
      body: row.body(),
      token: token || undefined,
      headers: { 'content-type': 'application/json' },
    })
    expect(response.status).toBe(row.status)
    const body = await response.json()
    expect(body.error).toBe(row.status)
    expect(body.message).toContain(row.message)
    const revisions = await (await t.request('/docs.json/revisions', { token: writer })).json()
    expect(revisions).toEqual({ revisions: [] })
  })

  test('an invalid config answers 400 with every error, located in the text as sent', async () => {
    const text = '{\r\n  "name": 7,\r\n  "navigation": [],\r\n  "colors": { "primary": "red" }\r\n}'
    const response = await put(text)
    const body = await response.json()
    expect(response.status).toBe(400)
    expect(
      body.errors.map((issue: { path: string; line: number; column: number }) => [
        issue.path,
        issue.line,
        issue.column,
      ]),
    ).toEqual([
      ['/name', 2, 11],
      ['/navigation', 3, 17],
      ['/colors/primary', 4, 26],
    ])
  })

  test('an unknown property is a warning without ?strict and with ?strict=false', async () => {
    expect((await put(config('A', { favicn: '/f' }))).status).toBe(200)
    expect((await put(config('B', { favicn: '/f' }), { query: '?strict=false' })).status).toBe(200)
  })

  const IF_MATCH_ROWS: [string, (current: string) => string, number][] = [
    ['the current ETag', (etag) => etag, 200],
    ['*', () => '*', 200],
    ['a list holding the current ETag', (etag) => `"r9-0000000000000000", ${etag}`, 200],
    ['a stale ETag', () => '"r0-0000000000000000"', 412],
    ['the current ETag marked weak (If-Match compares strongly)', (etag) => `W/${etag}`, 412],
  ]
  test.each(IF_MATCH_ROWS)('If-Match with %s answers %d', async (_case, header, status) => {
    const current = (await t.request('/docs.json')).headers.get('etag') ?? ''
    const response = await put(config('Acme'), { headers: { 'if-match': header(current) } })
    expect(response.status).toBe(status)
    if (status === 412) {
      const body = await response.json()
      expect(body).toMatchObject({ error: 412, message: expect.stringContaining(current) })
      expect(response.headers.get('etag')).toBe(current)
    }
  })

  test('an ETag goes stale once another revision is stored', async () => {
    const first = (await put(config('One'))).headers.get('etag') ?? ''
    expect((await put(config('Two'), { headers: { 'if-match': first } })).status).toBe(200)
    expect((await put(config('Three'), { headers: { 'if-match': first } })).status).toBe(412)
  })

  test('two concurrent PUTs with the same If-Match: exactly one 200 and one 412, and history keeps both the base and the winner', async () => {
    const base = await put(config('Base'))
    const etag = base.headers.get('etag') ?? ''
    for (let round = 0; round < 5; round++) {
      const current = round === 0 ? etag : ((await t.request('/docs.json')).headers.get('etag') ?? '')
      const [left, right] = await Promise.all([
        put(config(`Left ${round}`), { headers: { 'if-match': current } }),
        put(config(`Right ${round}`), { headers: { 'if-match': current } }),
      ])
      expect([left.status, right.status].sort()).toEqual([200, 412])
      const winner = left.status === 200 ? `Left ${round}` : `Right ${round}`
      const loser = left.status === 200 ? `Right ${round}` : `Left ${round}`
      expect((await (await t.request('/docs.json')).json()).name).toBe(winner)
      const sources = await allSources()
      expect(sources).toContain(config(winner))
      expect(sources).not.toContain(config(loser))
    }
    const { revisions } = await (await t.request('/docs.json/revisions', { token: writer })).json()
    expect(revisions.map((revision: { revision: number }) => revision.revision)).toEqual([1, 2, 3, 4, 5, 6])
    expect((await allSources())[0]).toBe(config('Base'))
  })

  test('concurrent PUTs without If-Match are both stored, one after the other', async () => {
    const responses = await Promise.all([put(config('A')), put(config('B')), put(config('C'))])
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200])
    const numbers = await Promise.all(responses.map(async (response) => (await response.json()).revision))
    expect(numbers.sort()).toEqual([1, 2, 3])
  })

  test('20 concurrent writers without If-Match: none is told 412; each gets its own revision, 1 to 20', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `Writer ${i}`)
    const responses = await Promise.all(names.map((name) => put(config(name))))
    expect(responses.map((response) => response.status)).toEqual(names.map(() => 200))
    const numbers = await Promise.all(responses.map(async (response) => (await response.json()).revision as number))
    expect(numbers.sort((a, b) => a - b)).toEqual(names.map((_, i) => i + 1))
    expect((await allSources()).sort()).toEqual(names.map((name) => config(name)).sort())
  })

  test('20 concurrent writers with the same If-Match: exactly one wins, the others get 412 with the new ETag', async () => {
    const etag = (await put(config('Base'))).headers.get('etag') ?? ''
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => put(config(`Writer ${i}`), { headers: { 'if-match': etag } })),
    )
    const statuses = responses.map((response) => response.status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(1)
    expect(statuses.filter((status) => status === 412)).toHaveLength(19)
    const winner = responses.find((response) => response.status === 200)!.headers.get('etag')
    for (const response of responses.filter((r) => r.status === 412)) expect(response.headers.get('etag')).toBe(winner)
  })

  // Only a server with several connections can hold the writers' lock while a PUT waits for it.
  test.skipIf(!process.env.DATABASE_URL)(
    'a writer that waits over 5 s for its turn gets 503 with Retry-After, not 412',
    async () => {
      let release!: () => void
      const held = new Promise<void>((resolve) => (release = resolve))
      let locked!: () => void
      const lockTaken = new Promise<void>((resolve) => (locked = resolve))
      const holder = t.deps.database.db.transaction(async (tx) => {
        await tx.execute(sql`SELECT pg_advisory_xact_lock(${0x7472_6c64_6f63})`)
        locked()
        await held
      })
      await lockTaken
      const response = await put(config('Patient'))
      release()
      await holder
      expect(response.status).toBe(503)
      expect(response.headers.get('retry-after')).toBe('1')
      expect(await response.json()).toMatchObject({ error: 503, message: expect.stringContaining('Retry') })
      expect((await put(config('Later'))).status).toBe(200)
    },
    15_000,
  )
})

describe('PUT /docs.json media types', () => {
  freshAppPerTest()

  // The plant store's rule: a stored JSON body is declared as JSON. Parameters are fine.
  const ROWS: { type: string | undefined; status: number; message?: string }[] = [
    { type: 'application/json', status: 200 },
    { type: 'application/json; charset=utf-8', status: 200 },
    { type: 'text/plain', status: 415, message: 'Content-Type must be application/json, got "text/plain"' },
    { type: 'application/x-www-form-urlencoded', status: 415, message: 'got "application/x-www-form-urlencoded"' },
    { type: undefined, status: 415, message: 'the header is missing' },
  ]
  for (const row of ROWS) {
    test(`${row.type ?? 'no Content-Type'} → ${row.status}`, async () => {
      const request = new Request('http://localhost/docs.json', {
        method: 'PUT',
        body: new TextEncoder().encode(config('A')),
        headers: { authorization: `Bearer ${writer}`, ...(row.type ? { 'content-type': row.type } : {}) },
      })
      const response = await t.app.handle(request)
      expect(response.status).toBe(row.status)
      if (row.message) expect((await response.json()).message).toContain(row.message)
    })
  }
})

describe('what storage cannot keep as written (text PostgreSQL refuses, integers JSON rounds): validation and storage agree', () => {
  freshAppPerTest()

  // The body as sent (JSON escapes), the pointer and a fragment of the error.
  const ROWS = [
    {
      name: 'NUL in the name',
      body: '{"name":"Do\\u0000cs","navigation":[{"group":"G","pages":["a"]}]}',
      path: '/name',
      message: 'name must not contain the NUL character',
    },
    {
      name: 'a lone high surrogate in a page',
      body: '{"name":"D","navigation":[{"group":"G","pages":["a\\ud800"]}]}',
      path: '/navigation/0/pages/0',
      message: 'a lone surrogate (U+D800)',
    },
    {
      name: 'a lone low surrogate in a colour',
      body: '{"name":"D","navigation":[{"group":"G","pages":["a"]}],"colors":{"primary":"\\udc00"}}',
      path: '/colors/primary',
      message: 'a lone surrogate (U+DC00)',
    },
    {
      name: 'an integer beyond 2^53 in an unknown property (it would be served rounded)',
      body: '{"name":"D","navigation":[{"group":"G","pages":["a"]}],"extra":{"big":12345678901234567890}}',
      path: '/extra/big',
      message: 'extra.big is an integer at or beyond 2^53',
    },
    {
      name: 'the same written with an exponent and no 16-digit run',
      body: '{"name":"D","navigation":[{"group":"G","pages":["a"]}],"extra":{"big":9.007199254740993e15}}',
      path: '/extra/big',
      message: 'extra.big is an integer at or beyond 2^53',
    },
    {
      name: '1e20, whatever else the text holds',
      body: '{"name":"D","navigation":[{"group":"G","pages":["a"]}],"x-n":1e20}',
      path: '/x-n',
      message: 'x-n is an integer at or beyond 2^53',
    },
    {
      name: 'NUL in an unknown key',
      body: '{"name":"D","navigation":[{"group":"G","pages":["a"]}],"x\\u0000":1}',
      path: '/x\u0000',
      message: 'a key must not contain the NUL character',
    },
  ]
  for (const row of ROWS) {
    test(`${row.name}: /docs.json/validate says invalid, PUT says 400, nothing is stored`, async () => {
      const validated = await (
        await t.request('/docs.json/validate', { method: 'POST', body: row.body, token: writer })
      ).json()
      expect(validated.valid).toBe(false)
      expect(validated.errors).toContainEqual(
        expect.objectContaining({ path: row.path, message: expect.stringContaining(row.message) }),
      )
      const stored = await put(row.body, { headers: { 'content-type': 'application/json' } })
      expect(stored.status).toBe(400)
      expect((await stored.json()).errors).toContainEqual(expect.objectContaining({ path: row.path }))
      expect((await (await t.request('/docs.json/revisions', { token: writer })).json()).revisions).toEqual([])
    })
  }

  test('a pair of surrogates (an emoji written as escapes) is a character, and is stored as written', async () => {
    const body = '{"name":"Docs \\ud83c\\udf31","navigation":[{"group":"G","pages":["a"]}]}'
    const response = await put(body, { headers: { 'content-type': 'application/json' } })
    expect(response.status).toBe(200)
    expect((await response.json()).config.name).toBe('Docs 🌱')
  })

  test('a 16-digit integer within 2^53, and long digit runs inside strings, pass', async () => {
    const body =
      '{"name":"Docs 12345678901234567890","navigation":[{"group":"G","pages":["a"]}],"extra":{"n":9007199254740991}}'
    const response = await put(body, { headers: { 'content-type': 'application/json' } })
    expect(response.status).toBe(200)
    expect((await response.json()).config.extra).toEqual({ n: 9007199254740991 })
  })
})
