import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import DEFAULT_DOCS from '../../src/docs-config/default-docs.json'
import { validateDocsConfig } from '../../src/docs-config/validation/validate'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'
import { corpusFiles, issuesOutsideText } from './corpus'
import { unmark } from './marked-text'

const MIB = 1024 * 1024
const config = (name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name, navigation: [{ group: 'Start', pages: ['intro'] }], ...extra }, null, 2)

let t: TestApp
let writer: string

async function open() {
  t = await makeTestApp()
  writer = await t.tokenFor('alice', ['docs:write'])
}
const close = () => t.close()

/** Most tests write: each gets a fresh app and database. */
function freshAppPerTest() {
  beforeEach(open, SETUP_TIMEOUT)
  afterEach(close, SETUP_TIMEOUT)
}

const put = (body: string, init: { token?: string; headers?: Record<string, string>; query?: string } = {}) =>
  t.request(`/docs.json${init.query ?? ''}`, { method: 'PUT', body, token: init.token ?? writer, headers: { 'content-type': 'application/json', ...init.headers } })

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
    expect(body.warnings).toEqual([expect.objectContaining({ path: '/favicn', suggestion: 'favicon', line: 11, column: 3 })])
  })

  const REFUSALS: { case: string; body: () => string; token?: () => Promise<string | undefined>; query?: string; status: number; message: string }[] = [
    { case: 'no token', body: () => config('A'), token: async () => '', status: 401, message: 'Authorization' },
    { case: 'a token without docs:write', body: () => config('A'), token: () => t.tokenFor('bob', ['plants:read', 'chat']), status: 403, message: 'docs:write' },
    { case: 'invalid JSON', body: () => '{ "name": "A", }', status: 400, message: 'docs.json is invalid: 1 error; the first is at line 1, column 14' },
    { case: 'a schema error', body: () => config('A', { colors: { primary: 'red' } }), status: 400, message: 'colors.primary: "red" is not a hex colour' },
    { case: 'an unknown property with ?strict=true', body: () => config('A', { favicn: '/f' }), query: '?strict=true', status: 400, message: 'favicn: unknown property' },
    { case: 'a bad strict value', body: () => config('A'), query: '?strict=yes', status: 400, message: 'strict must be true or false' },
    { case: 'a body over 1 MiB', body: () => ' '.repeat(MIB + 1), status: 413, message: 'larger than the limit' },
  ]
  test.each(REFUSALS.map((row) => [row.case, row] as const))('refuses %s and stores nothing', async (_case, row) => {
    const token = row.token ? await row.token() : writer
    const response = await t.request(`/docs.json${row.query ?? ''}`, { method: 'PUT', body: row.body(), token: token || undefined, headers: { 'content-type': 'application/json' } })
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
    expect(body.errors.map((issue: { path: string; line: number; column: number }) => [issue.path, issue.line, issue.column])).toEqual([
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
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => put(config(`Writer ${i}`), { headers: { 'if-match': etag } })))
    const statuses = responses.map((response) => response.status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(1)
    expect(statuses.filter((status) => status === 412)).toHaveLength(19)
    const winner = responses.find((response) => response.status === 200)!.headers.get('etag')
    for (const response of responses.filter((r) => r.status === 412)) expect(response.headers.get('etag')).toBe(winner)
  })

  // Only a server with several connections can hold the writers' lock while a PUT waits for it.
  test.skipIf(!process.env.DATABASE_URL)('a writer that waits over 5 s for its turn gets 503 with Retry-After, not 412', async () => {
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
  }, 15_000)
})

/** The submitted text of every revision, oldest first. */
async function allSources(): Promise<string[]> {
  const { revisions } = await (await t.request('/docs.json/revisions', { token: writer })).json()
  return Promise.all(
    revisions.map(async (revision: { revision: number }) => (await (await t.request(`/docs.json/revisions/${revision.revision}`, { token: writer })).json()).source),
  )
}

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
      const request = new Request('http://localhost/docs.json', { method: 'PUT', body: new TextEncoder().encode(config('A')), headers: { authorization: `Bearer ${writer}`, ...(row.type ? { 'content-type': row.type } : {}) } })
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
    { name: 'NUL in the name', body: '{"name":"Do\\u0000cs","navigation":[{"group":"G","pages":["a"]}]}', path: '/name', message: 'name must not contain the NUL character' },
    { name: 'a lone high surrogate in a page', body: '{"name":"D","navigation":[{"group":"G","pages":["a\\ud800"]}]}', path: '/navigation/0/pages/0', message: 'a lone surrogate (U+D800)' },
    { name: 'a lone low surrogate in a colour', body: '{"name":"D","navigation":[{"group":"G","pages":["a"]}],"colors":{"primary":"\\udc00"}}', path: '/colors/primary', message: 'a lone surrogate (U+DC00)' },
    { name: 'an integer beyond 2^53 in an unknown property (it would be served rounded)', body: '{"name":"D","navigation":[{"group":"G","pages":["a"]}],"extra":{"big":12345678901234567890}}', path: '/extra/big', message: 'extra.big is an integer at or beyond 2^53' },
    { name: 'the same written with an exponent and no 16-digit run', body: '{"name":"D","navigation":[{"group":"G","pages":["a"]}],"extra":{"big":9.007199254740993e15}}', path: '/extra/big', message: 'extra.big is an integer at or beyond 2^53' },
    { name: '1e20, whatever else the text holds', body: '{"name":"D","navigation":[{"group":"G","pages":["a"]}],"x-n":1e20}', path: '/x-n', message: 'x-n is an integer at or beyond 2^53' },
    { name: 'NUL in an unknown key', body: '{"name":"D","navigation":[{"group":"G","pages":["a"]}],"x\\u0000":1}', path: '/x\u0000', message: 'a key must not contain the NUL character' },
  ]
  for (const row of ROWS) {
    test(`${row.name}: /docs.json/validate says invalid, PUT says 400, nothing is stored`, async () => {
      const validated = await (await t.request('/docs.json/validate', { method: 'POST', body: row.body, token: writer })).json()
      expect(validated.valid).toBe(false)
      expect(validated.errors).toContainEqual(expect.objectContaining({ path: row.path, message: expect.stringContaining(row.message) }))
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
    const body = '{"name":"Docs 12345678901234567890","navigation":[{"group":"G","pages":["a"]}],"extra":{"n":9007199254740991}}'
    const response = await put(body, { headers: { 'content-type': 'application/json' } })
    expect(response.status).toBe(200)
    expect((await response.json()).config.extra).toEqual({ n: 9007199254740991 })
  })
})

describe('revisions', () => {
  freshAppPerTest()

  test('the list comes in pages, oldest first, each linking to the next', async () => {
    for (const name of ['A', 'B', 'C', 'D', 'E']) expect((await put(config(name))).status).toBe(200)
    const seen: number[][] = []
    let next: string | null = '/docs.json/revisions?limit=2'
    while (next) {
      const response: Response = await t.request(next, { token: writer })
      expect(response.status).toBe(200)
      seen.push((await response.json()).revisions.map((revision: { revision: number }) => revision.revision))
      next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1] ?? null
    }
    expect(seen).toEqual([[1, 2], [3, 4], [5]])
    expect((await (await t.request('/docs.json/revisions', { token: writer })).json()).revisions).toHaveLength(5)
  })

  test.each([
    ['?limit=0', 'limit must be an integer from 1 to 1000'],
    ['?limit=1001', 'limit must be an integer from 1 to 1000'],
    ['?after=-1', 'after must be a revision number'],
    ['?after=x', 'after must be a revision number'],
  ])('GET /docs.json/revisions%s is a 400: %s', async (query, message) => {
    const response = await t.request(`/docs.json/revisions${query}`, { token: writer })
    expect(response.status).toBe(400)
    expect((await response.json()).message).toBe(message)
  })

  test('every PUT is kept, exactly as submitted; history is never rewritten', async () => {
    const texts = [config('One'), `  ${config('Two', { favicon: '/two.svg' })}\n`, config('Three')]
    for (const text of texts) expect((await put(text)).status).toBe(200)
    const { revisions } = await (await t.request('/docs.json/revisions', { token: writer })).json()
    expect(revisions).toHaveLength(3)
    expect(revisions[1]).toMatchObject({ revision: 2, author: 'alice', size: new TextEncoder().encode(texts[1]).byteLength })
    expect(Object.keys(revisions[0]).sort()).toEqual(['author', 'createdAt', 'etag', 'revision', 'size'])
    expect(await allSources()).toEqual(texts)
    const second = await (await t.request('/docs.json/revisions/2', { token: writer })).json()
    expect(second.config).toMatchObject({ name: 'Two', favicon: '/two.svg', feedback: { suggestEdit: false } })
    expect(second.etag).toBe(revisions[1].etag)
  })

  test('the author is the owner of the writing token', async () => {
    const admin = await t.tokenFor('root', ['admin'])
    await put(config('A'), { token: admin })
    const { revisions } = await (await t.request('/docs.json/revisions', { token: writer })).json()
    expect(revisions[0].author).toBe('root')
  })

  const LOOKUP_ROWS: [string, string, number, string][] = [
    ['a revision that does not exist', '/docs.json/revisions/99', 404, 'no docs.json revision 99'],
    ['revision 0', '/docs.json/revisions/0', 404, 'no docs.json revision 0'],
    ['a number that is not one', '/docs.json/revisions/abc', 400, 'n'],
  ]
  test.each(LOOKUP_ROWS)('%s: %s answers %d', async (_case, path, status, message) => {
    const response = await t.request(path, { token: writer })
    expect(response.status).toBe(status)
    expect(await response.json()).toMatchObject({ error: status, message: expect.stringContaining(message) })
  })

  test('listing and reading revisions need a valid token', async () => {
    expect((await t.request('/docs.json/revisions')).status).toBe(401)
    expect((await t.request('/docs.json/revisions/1')).status).toBe(401)
  })
})

describe('POST /docs.json/validate', () => {
  freshAppPerTest()

  test('needs a token, but any valid token will do', async () => {
    expect((await t.request('/docs.json/validate', { method: 'POST', body: config('A') })).status).toBe(401)
    const chatOnly = await t.tokenFor('carol', ['chat'])
    const response = await t.request('/docs.json/validate', { method: 'POST', body: config('A'), token: chatOnly })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ valid: true, errors: [], warnings: [] })
  })

  test('an invalid config is still 200, with the result; line and column refer to the text as sent', async () => {
    const { text, line, column } = unmark('{\n\n\n   "name": "A",\n      "navigation": ¦{}\n}')
    const response = await t.request('/docs.json/validate', { method: 'POST', body: text, token: writer, headers: { 'content-type': 'text/plain' } })
    expect(response.status).toBe(200)
    const result = await response.json()
    expect(result.valid).toBe(false)
    expect(result.config).toBeUndefined()
    expect(result.errors).toEqual([expect.objectContaining({ path: '/navigation', line, column })])
  })

  test('?strict=true turns warnings into errors; nothing is stored either way', async () => {
    const text = config('A', { analytics: { ga4: { measurementId: 'G-1' } } })
    const relaxed = await (await t.request('/docs.json/validate', { method: 'POST', body: text, token: writer })).json()
    const strict = await (await t.request('/docs.json/validate?strict=true', { method: 'POST', body: text, token: writer })).json()
    expect(relaxed).toMatchObject({ valid: true, warnings: [expect.objectContaining({ path: '/analytics' })] })
    expect(strict).toMatchObject({ valid: false, warnings: [], errors: [expect.objectContaining({ path: '/analytics' })] })
    expect((await (await t.request('/docs.json/revisions', { token: writer })).json()).revisions).toEqual([])
  })

  test('a body of exactly 1 MiB is read; one byte more is 413, with or without Content-Length', async () => {
    const padded = (size: number) => {
      const text = config('Big')
      return text + ' '.repeat(size - text.length)
    }
    const atLimit = await t.request('/docs.json/validate', { method: 'POST', body: padded(MIB), token: writer })
    expect(atLimit.status).toBe(200)
    expect((await atLimit.json()).valid).toBe(true)
    const over = await t.request('/docs.json/validate', { method: 'POST', body: padded(MIB + 1), token: writer })
    expect(over.status).toBe(413)
    expect(await over.json()).toMatchObject({ error: 413 })
    const bytes = new TextEncoder().encode(padded(MIB + 1))
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 64 * 1024) controller.enqueue(bytes.subarray(offset, offset + 64 * 1024))
        controller.close()
      },
    })
    const chunked = await t.request('/docs.json/validate', { method: 'POST', body: stream, token: writer })
    expect(chunked.status).toBe(413)
  })

})

describe('POST /docs.json/validate with the corpus (read-only: one app for all)', () => {
  beforeAll(open, SETUP_TIMEOUT)
  afterAll(close, SETUP_TIMEOUT)

  test.each(corpusFiles())('corpus %s: the same result as the validator, every position inside the file', async (_name, text) => {
    const response = await t.request('/docs.json/validate', { method: 'POST', body: text, token: writer })
    expect(response.status).toBe(200)
    const result = await response.json()
    expect(result).toEqual(JSON.parse(JSON.stringify(validateDocsConfig(text))))
    expect(issuesOutsideText(text, [...result.errors, ...result.warnings])).toEqual([])
  })
})

describe('PUT /docs.json with the corpus', () => {
  freshAppPerTest()

  test('every valid corpus file is stored and served back; every invalid one is refused with its errors', async () => {
    for (const [name, text] of corpusFiles()) {
      const expected = validateDocsConfig(text)
      const response = await put(text)
      expect({ name, status: response.status }).toEqual({ name, status: expected.valid ? 200 : 400 })
      const body = await response.json()
      if (expected.valid) expect(body.config).toEqual(JSON.parse(JSON.stringify(expected.config)))
      else expect(body.errors).toEqual(JSON.parse(JSON.stringify(expected.errors)))
    }
  })
})

describe('GET /docs.json/schema', () => {
  freshAppPerTest()

  test('is public and serves a draft-07 JSON Schema generated from the TypeBox schema', async () => {
    const response = await t.request('/docs.json/schema')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/schema+json')
    const schema = await response.json()
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#')
    expect(schema.required).toEqual(['name', 'navigation'])
    expect(schema.properties.navigation.items).toEqual({ $ref: '#/definitions/NavigationGroup' })
    expect(schema.definitions.NavigationGroup.properties.pages.items.anyOf[1]).toEqual({ $ref: '#/definitions/NavigationGroup' })
    expect(schema.properties.colors.properties.primary.pattern).toBe('^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$')
    expect(schema.properties.footerSocials.additionalProperties).toBe(false)
    expect(Object.keys(schema.properties.footerSocials.properties)).toEqual(['website', 'facebook', 'x', 'discord', 'slack', 'github', 'linkedin', 'instagram', 'hacker-news'])
    expect(schema.properties.api.properties.auth.properties.method.anyOf.map((branch: { const: string }) => branch.const)).toEqual(['bearer', 'basic', 'key'])
    expect(schema.properties.topAnchor.default).toEqual({ name: 'Documentation', icon: 'book-open', iconType: 'duotone' })
    expect(schema.properties.logo.anyOf[1].properties.href.default).toBe('/')
  })

  test('every property has a description, for hover docs', async () => {
    const schema = await (await t.request('/docs.json/schema')).json()
    const missing: string[] = []
    const visit = (node: Record<string, unknown>, path: string) => {
      for (const [key, value] of Object.entries((node.properties ?? {}) as Record<string, Record<string, unknown>>)) {
        if (typeof value.description !== 'string' || value.description === '') missing.push(`${path}/${key}`)
        visit(value, `${path}/${key}`)
      }
      for (const branch of (node.anyOf ?? []) as Record<string, unknown>[]) visit(branch, path)
      if (node.items) visit(node.items as Record<string, unknown>, `${path}/items`)
    }
    visit(schema, '')
    visit(schema.definitions.NavigationGroup, '#NavigationGroup')
    expect(missing).toEqual([])
  })
})
