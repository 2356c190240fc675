import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { freshAppPerTest, get, MIB, page, put, t } from './routes-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const etagOf = (response: Response) => response.headers.get('etag') ?? ''
const listed = async (query = '') =>
  (await (await t.request(`/docs/pages${query}`)).json()).pages as Record<string, unknown>[]

describe('PUT and GET /docs/pages/{path}', () => {
  freshAppPerTest()

  test('a new page is 201 with its summary and ETag; GET serves the text exactly as stored, publicly', async () => {
    const text =
      '---\ntitle: Plants\ndescription: All about plants\nopenapi: get /plants\nicon: leaf\n---\n# Plants\n\nWater them. 🌱\n'
    const created = await put('plants/overview', text)
    expect(created.status).toBe(201)
    const body = await created.json()
    expect(body).toEqual({
      path: 'plants/overview',
      revision: 1,
      etag: etagOf(created),
      title: 'Plants',
      description: 'All about plants',
      openapi: 'get /plants',
      size: new TextEncoder().encode(text).byteLength,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      author: 'alice',
      unchanged: false,
    })
    expect(etagOf(created)).toMatch(/^"[0-9a-f]{16}"$/)
    const served = await get('plants/overview')
    expect(served.status).toBe(200)
    expect(served.headers.get('content-type')).toBe('text/markdown; charset=utf-8')
    expect(served.headers.get('cache-control')).toBe('no-cache')
    expect(etagOf(served)).toBe(etagOf(created))
    expect(await served.text()).toBe(text)
  })

  test('a new text is the next revision (200); GET serves the newest, ?revision=N an older one', async () => {
    const first = await put('intro', page('One'))
    const second = await put('intro', page('Two'))
    expect([first.status, second.status]).toEqual([201, 200])
    expect(await second.json()).toMatchObject({ revision: 2, title: 'Two', unchanged: false })
    expect(await (await get('intro')).text()).toBe(page('Two'))
    const old = await get('intro?revision=1')
    expect(old.status).toBe(200)
    expect(etagOf(old)).toBe(etagOf(first))
    expect(await old.text()).toBe(page('One'))
    expect(await (await get('intro?revision=2')).text()).toBe(page('Two'))
  })

  test('a text identical to the newest stores nothing: 200, unchanged, the same revision and ETag', async () => {
    const first = await put('intro', page('Same'))
    const again = await put('intro', page('Same'), { type: 'text/plain' })
    expect(again.status).toBe(200)
    expect(await again.json()).toMatchObject({ revision: 1, unchanged: true })
    expect(etagOf(again)).toBe(etagOf(first))
    // Identical to an older revision is still a change.
    await put('intro', page('Other'))
    expect(await (await put('intro', page('Same'))).json()).toMatchObject({ revision: 3, unchanged: false })
  })

  test('slashes may be sent escaped as %2F, and any character percent-encoded: it is the same page', async () => {
    await put('plants%2Fcare', page('Care'))
    expect(await (await get('plants/care')).text()).toBe(page('Care'))
    expect((await put('plants/c%61re', page('Care 2'))).status).toBe(200)
    expect(await (await get('plants%2fcare')).text()).toBe(page('Care 2'))
  })

  test('a page without front matter has no title, description or openapi, in the answer or the list', async () => {
    const created = await (await put('bare', '# Just Markdown\n')).json()
    expect(Object.keys(created).sort()).toEqual([
      'author',
      'createdAt',
      'etag',
      'path',
      'revision',
      'size',
      'unchanged',
    ])
    expect(Object.keys((await listed())[0]!).sort()).toEqual(['etag', 'path', 'revision', 'size', 'updatedAt'])
  })

  test('If-None-Match with the current ETag is 304 without a body; with an older one, 200', async () => {
    const first = etagOf(await put('intro', page('One')))
    const second = etagOf(await put('intro', page('Two')))
    const fresh = await get('intro', { 'if-none-match': second })
    expect(fresh.status).toBe(304)
    expect(fresh.headers.get('content-type')).toBeNull()
    expect(etagOf(fresh)).toBe(second)
    expect(await fresh.text()).toBe('')
    expect((await get('intro', { 'if-none-match': `W/${second}` })).status).toBe(304)
    expect((await get('intro', { 'if-none-match': `"other", ${second}` })).status).toBe(304)
    expect((await get('intro', { 'if-none-match': first })).status).toBe(200)
    expect((await get('intro?revision=1', { 'if-none-match': first })).status).toBe(304)
  })

  const NOT_FOUND: [string, string, string][] = [
    [
      'a page never written',
      'nowhere',
      'no page nowhere: nothing has been stored under that path, so the site shows it as "not written yet"',
    ],
    ['a revision past the newest', 'intro?revision=3', 'page intro has no revision 3; its revisions are 1 to 1'],
    ['a revision of a page never written', 'nowhere?revision=1', 'no page nowhere'],
  ]
  test.each(NOT_FOUND)('%s is a 404: %s', async (_case, path, message) => {
    await put('intro', page('Intro'))
    const response = await get(path)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 404, message: expect.stringContaining(message) })
  })

  test.each(['0', '-1', 'x', '1.5', '99999999999'])('?revision=%s is a 400', async (revision) => {
    await put('intro', page('Intro'))
    const response = await get(`intro?revision=${revision}`)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: 400, message: 'revision must be a positive integer' })
  })
})

describe('conditional PUT', () => {
  freshAppPerTest()

  test('If-Match with the current ETag stores; with a stale one it is 412 naming the current ETag, and nothing is stored', async () => {
    const first = etagOf(await put('intro', page('One')))
    const second = await put('intro', page('Two'), { headers: { 'if-match': first } })
    expect(second.status).toBe(200)
    const stale = await put('intro', page('Three'), { headers: { 'if-match': first } })
    expect(stale.status).toBe(412)
    expect(etagOf(stale)).toBe(etagOf(second))
    expect(await stale.json()).toEqual({
      error: 412,
      message: expect.stringContaining(`the current ETag is ${etagOf(second)}`),
    })
    expect(await (await get('intro')).text()).toBe(page('Two'))
  })

  const ROWS: {
    case: string
    exists: boolean
    header: 'if-match' | 'if-none-match'
    value: (etag: string) => string
    status: number
    message?: string
  }[] = [
    {
      case: 'If-Match on a page that does not exist',
      exists: false,
      header: 'if-match',
      value: () => '"0000000000000000"',
      status: 412,
      message: 'does not exist, so If-Match cannot match',
    },
    {
      case: 'If-Match: * on a page that does not exist',
      exists: false,
      header: 'if-match',
      value: () => '*',
      status: 412,
      message: 'does not exist',
    },
    { case: 'If-Match: * on a page that exists', exists: true, header: 'if-match', value: () => '*', status: 200 },
    {
      case: 'If-Match with a weak tag (strong comparison)',
      exists: true,
      header: 'if-match',
      value: (etag) => `W/${etag}`,
      status: 412,
      message: 'has changed',
    },
    {
      case: 'If-Match listing the current tag among others',
      exists: true,
      header: 'if-match',
      value: (etag) => `"nope", ${etag}`,
      status: 200,
    },
    {
      case: 'If-None-Match: * on a new page (create only)',
      exists: false,
      header: 'if-none-match',
      value: () => '*',
      status: 201,
    },
    {
      case: 'If-None-Match: * on a page that exists',
      exists: true,
      header: 'if-none-match',
      value: () => '*',
      status: 412,
      message: 'already exists, and If-None-Match: * only creates',
    },
    {
      case: 'If-None-Match naming the current ETag',
      exists: true,
      header: 'if-none-match',
      value: (etag) => etag,
      status: 412,
      message: 'is already at the version If-None-Match names',
    },
    {
      case: 'If-None-Match naming another ETag',
      exists: true,
      header: 'if-none-match',
      value: () => '"0000000000000000"',
      status: 200,
    },
  ]
  test.each(ROWS)('$case: $status', async (row) => {
    const etag = row.exists ? etagOf(await put('intro', page('Before'))) : ''
    const response = await put('intro', page('After'), { headers: { [row.header]: row.value(etag) } })
    expect(response.status).toBe(row.status)
    if (row.message === undefined) return
    expect(await response.json()).toEqual({ error: 412, message: expect.stringContaining(row.message) })
    // A 412 names the current ETag when there is a page, and stores nothing.
    expect(response.headers.get('etag')).toBe(row.exists ? etag : null)
    expect((await get('intro')).status).toBe(row.exists ? 200 : 404)
  })
})

describe('GET /docs/pages', () => {
  freshAppPerTest()

  test('the newest revision of every page, sorted by path in byte order, without authors', async () => {
    await put('zebra', page('Zebra'))
    await put('Apple', page('Apple'))
    await put('api/plants', '---\ntitle: List plants\ndescription: Every plant\nopenapi: GET /plants\n---\n')
    await put('api-keys', page('Keys'))
    await put('zebra', page('Zebra 2'))
    const pages = await listed()
    expect(pages.map((item) => item.path)).toEqual(['Apple', 'api-keys', 'api/plants', 'zebra'])
    expect(pages[2]).toEqual({
      path: 'api/plants',
      revision: 1,
      title: 'List plants',
      description: 'Every plant',
      openapi: 'GET /plants',
      size: expect.any(Number),
      etag: expect.stringMatching(/^"[0-9a-f]{16}"$/),
      updatedAt: expect.stringMatching(/^\d{4}-/),
    })
    expect(pages[3]).toMatchObject({ path: 'zebra', revision: 2, title: 'Zebra 2' })
    expect(pages.some((item) => 'author' in item)).toBe(false)
  })

  test('before any page: an empty list and no Link header', async () => {
    const response = await t.request('/docs/pages')
    expect(await response.json()).toEqual({ pages: [] })
    expect(response.headers.get('link')).toBeNull()
  })

  test('the list comes in pages, each linking to the next by path', async () => {
    for (const path of ['e', 'a/b', 'c', 'a', 'd']) await put(path, page(path))
    const seen: string[][] = []
    let next: string | null = '/docs/pages?limit=2'
    while (next) {
      const response: Response = await t.request(next)
      expect(response.status).toBe(200)
      seen.push((await response.json()).pages.map((item: { path: string }) => item.path))
      next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1] ?? null
    }
    expect(seen).toEqual([['a', 'a/b'], ['c', 'd'], ['e']])
    expect(await listed('?after=a%2Fb&limit=1')).toEqual([expect.objectContaining({ path: 'c' })])
  })

  test.each([
    ['?limit=0', 'limit must be an integer from 1 to 1000'],
    ['?limit=1001', 'limit must be an integer from 1 to 1000'],
    ['?limit=x', 'limit must be an integer from 1 to 1000'],
    [
      `?after=${'x'.repeat(201)}`,
      'after must be a page path (letters, digits, ".", "_", "-" and "/") of at most 200 characters',
    ],
    ['?after=%00', 'after must not contain the NUL character (U+0000), which cannot be stored'],
    ['?after=a%20b', 'after must be a page path (letters, digits, ".", "_", "-" and "/") of at most 200 characters'],
  ])('GET /docs/pages%s is a 400: %s', async (query, message) => {
    const response = await t.request(`/docs/pages${query}`)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: 400, message })
  })
})

describe('who may write', () => {
  freshAppPerTest()

  test('PUT needs a token with docs:write; admin implies it; the author is the token owner', async () => {
    const anonymous = await put('intro', page('A'), { token: null })
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toContain('Bearer')
    const chatOnly = await t.tokenFor('carol', ['chat'])
    const forbidden = await put('intro', page('A'), { token: chatOnly })
    expect(forbidden.status).toBe(403)
    expect(await forbidden.json()).toMatchObject({ error: 403, message: expect.stringContaining('docs:write') })
    const admin = await t.tokenFor('root', ['admin'])
    expect(await (await put('intro', page('A'), { token: admin })).json()).toMatchObject({ author: 'root' })
  })

  test('authentication comes first: an anonymous bad request is 401, not 400 or 415', async () => {
    expect((await put('pages/x', 'x', { token: null, type: 'application/json' })).status).toBe(401)
  })
})

describe('bad writes: each a 400, 413 or 415 naming what is wrong, and nothing stored', () => {
  freshAppPerTest()

  type Row = [string, { path?: string; body?: BodyInit; type?: string | null }, number, string]
  const ROWS: Row[] = [
    // Paths
    ['a path with .mdx', { path: 'plants/overview.mdx' }, 400, 'ends in .mdx; name the page without its extension'],
    ['a path with .md', { path: 'intro.md' }, 400, 'ends in .md'],
    ['an empty segment', { path: 'plants//overview' }, 400, 'has an empty segment'],
    ['an escaped .. segment', { path: 'plants%2F..%2Fsecret' }, 400, 'has a ".." segment'],
    ['an escaped leading slash', { path: '%2Fplants' }, 400, 'starts with "/"'],
    ['an escaped trailing slash', { path: 'plants%2F' }, 400, 'ends with "/"'],
    ['a question mark', { path: 'what%3F' }, 400, 'contains "?"; segments may not hold control characters'],
    ['a hash', { path: 'a%23b' }, 400, 'contains "#"'],
    ['a percent sign', { path: 'a%25b' }, 400, 'contains "%"'],
    ['a tab', { path: 'a%09b' }, 400, 'contains "\\t"'],
    ['a segment ending in a space', { path: 'guides%20/a' }, 400, 'starts or ends with blank space'],
    ['the reserved first segment', { path: 'pages/intro' }, 400, 'begins with the segment "pages", which is reserved'],
    ['the search API', { path: 'search' }, 400, "is reserved: /docs/search is the site's search API"],
    ['the sitemap', { path: 'sitemap.xml' }, 400, "is reserved: /docs/sitemap.xml is the site's sitemap"],
    ['201 characters', { path: 'x'.repeat(201) }, 400, 'at most 200'],
    ['a malformed escape', { path: '%zz' }, 400, 'the page path "%zz" has a malformed percent-escape'],
    ['an escape that is not UTF-8', { path: '%E0%A4%A' }, 400, 'malformed percent-escape'],
    // Media types
    [
      'no Content-Type',
      { type: null },
      415,
      'Content-Type must be one of text/markdown, text/x-markdown or text/plain; the header is missing',
    ],
    [
      'application/json',
      { type: 'application/json' },
      415,
      'Content-Type must be one of text/markdown, text/x-markdown or text/plain, got "application/json"',
    ],
    ['text/html', { type: 'text/html' }, 415, 'got "text/html"'],
    [
      'a charset other than UTF-8',
      { type: 'text/markdown; charset=iso-8859-1' },
      415,
      'a page must be sent in UTF-8; the Content-Type names charset=iso-8859-1',
    ],
    // Bodies
    [
      'bytes that are not UTF-8',
      { body: new Uint8Array([0x23, 0x20, 0xc3, 0x28]) },
      400,
      'request body is not valid UTF-8',
    ],
    ['a NUL character', { body: '# A\u0000B' }, 400, 'the page text must not contain the NUL character'],
    [
      'one byte over 1 MiB',
      { body: 'x'.repeat(MIB + 1) },
      413,
      'request body is larger than the limit of 1048576 bytes',
    ],
    // Front matter
    [
      'a title that is a number',
      { body: '---\ntitle: 42\n---\n# A\n' },
      400,
      'front matter line 2: title: expected a string, got a number (42)',
    ],
    [
      'a description that is a list',
      { body: '---\ntitle: A\ndescription: [a, b]\n---\n' },
      400,
      'front matter line 3: description: expected a string, got a list',
    ],
    [
      'a sidebarTitle that is empty',
      { body: '---\n\n\nsidebarTitle:\n---\n' },
      400,
      'front matter line 4: sidebarTitle: expected a string, got nothing (null)',
    ],
    [
      'an openapi that is not "METHOD /path"',
      { body: '---\nopenapi: FETCH /plants\n---\n' },
      400,
      'front matter line 2: openapi: expected "METHOD /path" or "<document> METHOD /path"',
    ],
    [
      'front matter that is a list',
      { body: '---\n- a\n---\n' },
      400,
      'front matter line 2: expected a mapping of keys to values',
    ],
    [
      'front matter never closed',
      { body: '---\ntitle: A\n' },
      400,
      'front matter line 1: the block opened by "---" on line 1 is never closed',
    ],
    [
      'a key given twice',
      { body: '---\ntitle: A\ntitle: B\n---\n' },
      400,
      'front matter line 3: invalid YAML: Map keys must be unique',
    ],
    [
      'CRLF front matter with a bad title',
      { body: '---\r\ntitle: [x]\r\n---\r\n' },
      400,
      'front matter line 2: title: expected a string, got a list',
    ],
  ]
  test.each(ROWS)('%s: %d', async (_case, row, status, message) => {
    const response = await put(row.path ?? 'intro', row.body ?? page('Fine'), { type: row.type })
    expect(response.status).toBe(status)
    expect(await response.json()).toEqual({ error: status, message: expect.stringContaining(message) })
    expect(await (await t.request('/docs/pages')).json()).toEqual({ pages: [] })
  })

  test('a body of exactly 1 MiB is stored; one byte more is 413 also without Content-Length', async () => {
    const atLimit = page('Big', 'x'.repeat(MIB - page('Big', '').length))
    expect(new TextEncoder().encode(atLimit).byteLength).toBe(MIB)
    expect((await put('big', atLimit)).status).toBe(201)
    const bytes = new TextEncoder().encode(`${atLimit}x`)
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 64 * 1024)
          controller.enqueue(bytes.subarray(offset, offset + 64 * 1024))
        controller.close()
      },
    })
    const over = await put('big', stream)
    expect(over.status).toBe(413)
    expect((await (await get('big')).text()).length).toBe(MIB)
  })

  test.each([
    'text/markdown',
    'text/x-markdown',
    'text/plain',
    'TEXT/Markdown; charset="UTF-8"',
    'text/plain; charset=utf8',
  ])('Content-Type %s is accepted', async (type) => {
    expect((await put('intro', page('A'), { type })).status).toBe(201)
  })
})

describe('the OpenAPI document', () => {
  freshAppPerTest()

  test('documents the three routes, public reads, the written body as text/markdown, and the path parameter', async () => {
    const document = await (await t.request('/openapi.json')).json()
    const paths = document.paths
    expect(
      Object.keys(paths)
        .filter((path) => path.startsWith('/docs/pages'))
        .sort(),
    ).toEqual(['/docs/pages', '/docs/pages/{path}'])
    expect(paths['/docs/pages'].get.security).toEqual([])
    expect(paths['/docs/pages/{path}'].get.security).toEqual([])
    expect(paths['/docs/pages/{path}'].put.security).toEqual([{ bearerAuth: [] }])
    expect(Object.keys(paths['/docs/pages/{path}'].put.responses).sort()).toEqual([
      '200',
      '201',
      '400',
      '401',
      '403',
      '412',
      '413',
      '415',
      '429',
      '500',
      '503',
    ])
    expect(Object.keys(paths['/docs/pages/{path}'].put.requestBody.content)).toEqual([
      'text/markdown',
      'text/x-markdown',
      'text/plain',
    ])
    expect(paths['/docs/pages/{path}'].get.responses['200'].content).toEqual({
      'text/markdown': { schema: { type: 'string' } },
    })
    expect(paths['/docs/pages/{path}'].get.parameters[0]).toMatchObject({ name: 'path', in: 'path', required: true })
    for (const operation of [
      paths['/docs/pages'].get,
      paths['/docs/pages/{path}'].get,
      paths['/docs/pages/{path}'].put,
    ])
      expect(operation.tags).toEqual(['docs pages'])
    expect(document.tags.map((tag: { name: string }) => tag.name)).toContain('docs pages')
  })
})
