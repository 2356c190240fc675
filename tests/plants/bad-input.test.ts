import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp, TRANSPORTS, uniqueOwner } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

describe.each(TRANSPORTS)('through %s', (transport) => {
  let t: TestApp
  let token: string
  beforeAll(async () => {
    t = await makeTestApp({ transport })
    token = await t.tokenFor(uniqueOwner('bad'))
  }, SETUP_TIMEOUT)
  afterAll(() => t.close(), SETUP_TIMEOUT)

  type Row = {
    name: string
    method?: string
    path?: string
    body?: string
    headers?: Record<string, string>
    auth?: 'token' | 'none'
    status: number
    message: string
  }

  const json = { 'content-type': 'application/json' }
  const TWO_MIB = 'x'.repeat(2 * 1024 * 1024)

  /** One row per bad input: the status and a fragment of the specific message it must produce. */
  const ROWS: Row[] = [
    { name: 'malformed JSON', body: '{"name": Fern}', status: 400, message: 'malformed JSON at line 1, column 10' },
    { name: 'truncated JSON', body: '{"name": "Fern"', status: 400, message: "expected ',' or '}'" },
    { name: 'JSON on a second line', body: '{\n  "name": "a",,\n}', status: 400, message: 'line 2, column 15' },
    { name: 'trailing garbage', body: '{"name":"a"} x', status: 400, message: 'after the JSON value' },
    { name: 'empty body', body: '', status: 400, message: 'the body is empty' },
    { name: 'a JSON array instead of an object', body: '[]', status: 400, message: 'request body' },
    { name: 'name missing', body: '{"tag":"x"}', status: 400, message: 'name is required' },
    {
      name: 'name of the wrong type',
      body: '{"name":42}',
      status: 400,
      message: 'name must be a string of 1 to 200 characters',
    },
    { name: 'name only blanks', body: '{"name":"   "}', status: 400, message: 'after trimming' },
    {
      name: 'name of 201 characters',
      body: JSON.stringify({ name: 'n'.repeat(201) }),
      status: 400,
      message: 'name must be a string of 1 to 200',
    },
    {
      name: 'tag of 101 characters',
      body: JSON.stringify({ name: 'a', tag: 't'.repeat(101) }),
      status: 400,
      message: 'tag must be a string of at most 100',
    },
    { name: 'tag of the wrong type', body: '{"name":"a","tag":7}', status: 400, message: 'tag must be a string' },
    { name: 'unknown field', body: '{"name":"a","color":"green"}', status: 400, message: 'unknown field "color"' },
    {
      name: 'id of 2^63',
      body: '{"name":"a","id":9223372036854775808}',
      status: 400,
      message: 'id must be an integer from -9223372036854775808 to 9223372036854775807',
    },
    {
      name: 'id below -2^63',
      body: '{"name":"a","id":-9223372036854775809}',
      status: 400,
      message: 'id must be an integer',
    },
    { name: 'id as a string "12"', body: '{"name":"a","id":"12"}', status: 400, message: 'id must be an integer' },
    { name: 'id as a fraction', body: '{"name":"a","id":1.5}', status: 400, message: 'id must be an integer' },
    {
      name: 'id in exponent form beyond 2^53',
      body: '{"name":"a","id":1e300}',
      status: 400,
      message: 'id must be an integer',
    },
    { name: 'id null', body: '{"name":"a","id":null}', status: 400, message: 'id must be an integer' },
    {
      name: 'text/plain body',
      body: '{"name":"a"}',
      headers: { 'content-type': 'text/plain' },
      status: 415,
      message: 'Content-Type must be application/json, got "text/plain"',
    },
    { name: 'no Content-Type', body: '{"name":"a"}', headers: {}, status: 415, message: 'the header is missing' },
    {
      name: 'a 2 MiB body',
      body: JSON.stringify({ name: TWO_MIB }),
      status: 413,
      message: 'larger than the limit of 1048576 bytes',
    },
    { name: 'invalid UTF-8', body: '\u0000', headers: json, status: 400, message: 'malformed JSON' },
    {
      name: 'limit=0',
      method: 'GET',
      path: '/plants?limit=0',
      status: 400,
      message: 'limit must be an integer from 1 to 1000',
    },
    {
      name: 'limit=-1',
      method: 'GET',
      path: '/plants?limit=-1',
      status: 400,
      message: 'limit must be an integer from 1 to 1000',
    },
    {
      name: 'limit=1001',
      method: 'GET',
      path: '/plants?limit=1001',
      status: 400,
      message: 'limit must be an integer from 1 to 1000',
    },
    {
      name: 'limit=abc',
      method: 'GET',
      path: '/plants?limit=abc',
      status: 400,
      message: 'limit must be an integer from 1 to 1000',
    },
    {
      name: 'limit=1.5',
      method: 'GET',
      path: '/plants?limit=1.5',
      status: 400,
      message: 'limit must be an integer from 1 to 1000',
    },
    {
      name: 'a forged cursor',
      method: 'GET',
      path: '/plants?after=abc',
      status: 400,
      message: 'after must be a cursor',
    },
    {
      name: 'a cursor above int64',
      method: 'GET',
      path: '/plants?after=9223372036854775808',
      status: 400,
      message: 'after must be a cursor',
    },
    {
      name: 'a cursor of 25 digits',
      method: 'GET',
      path: '/plants?after=9999999999999999999999999',
      status: 400,
      message: 'after must be a cursor',
    },
    {
      name: 'an id beyond 2^53 next to an unknown field (a bigint in the validation error)',
      body: '{"name":"x","id":9007199254740993,"zz":1}',
      status: 400,
      message: 'unknown field "zz"',
    },
    {
      name: 'an id with a fraction JavaScript would drop',
      body: '{"name":"x","id":4503599627370496.5}',
      status: 400,
      message: 'cannot be carried exactly',
    },
    {
      name: 'an id of 1e-400, which JavaScript reads as 0',
      body: '{"name":"x","id":1e-400}',
      status: 400,
      message: 'cannot be carried exactly',
    },
    {
      name: 'an id of 400-odd digits',
      body: `{"name":"x","id":${'9'.repeat(420)}}`,
      status: 400,
      message: 'a number longer than 400 characters',
    },
    {
      name: 'the name given twice (JSON.parse would keep the second silently)',
      body: '{"name":"a","name":"b"}',
      status: 400,
      message: 'the property name "name" appears twice',
    },
    {
      name: 'an id of 2^64 next to a bad name',
      body: '{"name":42,"id":18446744073709551616}',
      status: 400,
      message: 'must be',
    },
    {
      name: 'a NUL character in the name',
      body: '{"name":"Fe\\u0000rn"}',
      status: 400,
      message: 'name must not contain the NUL character',
    },
    {
      name: 'a NUL character in the tag',
      body: '{"name":"Fern","tag":"a\\u0000"}',
      status: 400,
      message: 'tag must not contain the NUL character',
    },
    {
      name: 'a lone surrogate in the name',
      body: '{"name":"\\ud800"}',
      status: 400,
      message: 'name must not contain a lone surrogate',
    },
    {
      name: 'a lone low surrogate in the tag',
      body: '{"name":"a","tag":"x\\udfff"}',
      status: 400,
      message: 'tag must not contain a lone surrogate',
    },
    {
      name: 'delete id of 2^63',
      method: 'DELETE',
      path: '/plants/9223372036854775808',
      status: 400,
      message: 'id must be an integer',
    },
    {
      name: 'delete id that is a word',
      method: 'DELETE',
      path: '/plants/fern',
      status: 400,
      message: 'id must be an integer',
    },
    {
      name: 'delete id with a fraction',
      method: 'DELETE',
      path: '/plants/1.5',
      status: 400,
      message: 'id must be an integer',
    },
    {
      name: 'delete id with leading zeros',
      method: 'DELETE',
      path: '/plants/007',
      status: 400,
      message: 'id must be an integer',
    },
    { name: 'no Authorization header', auth: 'none', status: 401, message: 'missing Authorization header' },
    {
      name: 'Authorization header twice',
      auth: 'none',
      headers: { ...json, authorization: 'Bearer trl_a, Bearer trl_b' },
      status: 400,
      message: 'exactly one credential',
    },
    {
      name: 'Basic scheme',
      auth: 'none',
      headers: { ...json, authorization: 'Basic YTpi' },
      status: 400,
      message: 'scheme must be Bearer',
    },
    {
      name: 'scheme without token',
      auth: 'none',
      headers: { ...json, authorization: 'Bearer' },
      status: 400,
      message: 'must be "Bearer <token>"',
    },
    {
      name: 'garbled token characters',
      auth: 'none',
      headers: { ...json, authorization: 'Bearer trl_"<script>' },
      status: 400,
      message: 'characters a token cannot have',
    },
    {
      name: 'token with spaces inside',
      auth: 'none',
      headers: { ...json, authorization: 'Bearer trl_a trl_b' },
      status: 400,
      message: 'must be "Bearer <token>"',
    },
    {
      name: 'unknown token',
      auth: 'none',
      headers: { ...json, authorization: 'Bearer trl_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
      status: 401,
      message: 'unknown, revoked, expired or malformed',
    },
    {
      name: 'token of the wrong shape',
      auth: 'none',
      headers: { ...json, authorization: 'Bearer abc.def' },
      status: 401,
      message: 'unknown, revoked, expired or malformed',
    },
    {
      name: 'anonymous, with malformed JSON too: auth comes first',
      auth: 'none',
      body: '{bad',
      status: 401,
      message: 'missing Authorization header',
    },
    {
      name: 'anonymous, with a 2 MiB body too: auth comes first',
      auth: 'none',
      body: JSON.stringify({ name: TWO_MIB }),
      status: 401,
      message: 'missing Authorization header',
    },
    {
      name: 'anonymous, with a bad limit too: auth comes first',
      auth: 'none',
      method: 'GET',
      path: '/plants?limit=0',
      status: 401,
      message: 'missing Authorization header',
    },
    {
      name: 'anonymous, with a bad id too: auth comes first',
      auth: 'none',
      method: 'DELETE',
      path: '/plants/fern',
      status: 401,
      message: 'missing Authorization header',
    },
    {
      name: 'token in the query string',
      auth: 'none',
      path: '/plants?access_token=trl_x',
      status: 400,
      message: 'not accepted in the query string',
    },
  ]

  test.each(ROWS.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const method = row.method ?? 'POST'
    const headers = new Headers(row.headers ?? (method === 'POST' ? json : {}))
    if (row.auth !== 'none') headers.set('authorization', `Bearer ${token}`)
    const response = await t.request(row.path ?? '/plants', {
      method,
      headers,
      body: method === 'POST' ? row.body : undefined,
    })
    const body = await response.json()
    expect({ status: response.status, error: body.error }).toEqual({ status: row.status, error: row.status })
    expect(body.message).toContain(row.message)
    expect(Object.keys(body).sort()).toEqual(['error', 'message'])
  })

  test('a 2 MiB body sent without Content-Length (chunked) is refused too', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024))
    let sent = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 32) return controller.close()
        sent++
        controller.enqueue(chunk)
      },
    })
    const response = await t.app.handle(
      new Request('http://localhost/plants', {
        method: 'POST',
        body: stream,
        headers: { ...json, authorization: `Bearer ${token}` },
        duplex: 'half',
      } as RequestInit),
    )
    expect(response.status).toBe(413)
    expect(sent).toBeLessThan(32)
  })

  test('a body limit set by BODY_LIMIT applies', async () => {
    const small = await makeTestApp({ env: { BODY_LIMIT: '2kb' } })
    try {
      const response = await small.request('/plants', {
        method: 'POST',
        token: await small.tokenFor('limit'),
        json: { name: 'a', tag: 'x'.repeat(3000) },
      })
      expect(response.status).toBe(413)
      expect((await response.json()).message).toContain('2048 bytes')
    } finally {
      await small.close()
    }
  })

  test('a failure inside the database is a 500 with no stack trace, logged with the request id', async () => {
    const broken = await makeTestApp()
    const brokenToken = await broken.tokenFor('boom')
    // The database refusing a statement for a reason of its own is a bug of ours, not an outage (that is a 503:
    // tests/http/database-unavailable.test.ts) nor a missing migration (a 503 too: tests/http/not-migrated.test.ts).
    await broken.deps.database.db.execute(sql`create function refuse() returns trigger language plpgsql as $$
      begin raise exception 'refused by a trigger'; end $$`)
    await broken.deps.database.db.execute(
      sql`create trigger refuse before insert on plants for each row execute function refuse()`,
    )
    const response = await broken.request('/plants', { method: 'POST', token: brokenToken, json: { name: 'Fern' } })
    await broken.close()
    expect(response.status).toBe(500)
    const body = await response.json()
    expect(body).toEqual({
      error: 500,
      message: 'internal error; the details are in the server log under this request id',
    })
    const logged = broken.logs.find((line) => line.msg === 'unhandled error')
    expect(logged?.request_id).toBe(response.headers.get('x-request-id'))
    // The log has the cause and the query, never its parameters (what the request sent).
    expect(String(logged?.error)).toContain('refused by a trigger')
    expect(String(logged?.error)).toContain('params: (not logged)')
    expect(String(logged?.error)).not.toContain('Fern')
  })
})
