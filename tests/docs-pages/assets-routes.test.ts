import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { deleteFile, freshAppPerTest, PNG, putFile, site, SVG_WITH_SCRIPT, t } from './assets-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex')

describe('PUT /docs/assets/{path} and the site serving it at /docs/{path}', () => {
  freshAppPerTest({ DOCS_ASSET_MAX_BYTES: '2kb', DOCS_ASSETS_MAX_BYTES: '3kb' })

  test('a new file is 201 and served at the URL a page names it by, byte for byte, with its type', async () => {
    const created = await putFile('images/dot.png', PNG)
    expect(created.status).toBe(201)
    expect(await created.json()).toMatchObject({
      path: 'images/dot.png',
      contentType: 'image/png',
      kind: 'file',
      size: PNG.byteLength,
      sha256: sha256(PNG),
      unchanged: false,
    })
    const served = await site('images/dot.png')
    expect(served.status).toBe(200)
    expect(served.headers.get('content-type')).toBe('image/png')
    expect(served.headers.get('x-content-type-options')).toBe('nosniff')
    expect(served.headers.get('cache-control')).toBe('public, no-cache')
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG)
    expect(served.headers.get('etag')).toBe(created.headers.get('etag'))
  })

  test('If-None-Match with the ETag is 304 without a body; HEAD answers the headers only', async () => {
    const etag = (await putFile('images/dot.png', PNG)).headers.get('etag')!
    const again = await site('images/dot.png', { headers: { 'if-none-match': etag } })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
    // Over a real server (Bun drops a HEAD response's body and keeps its length).
    const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: t.app.fetch })
    try {
      const head = await fetch(`${server.url.origin}/docs/images/dot.png`, { method: 'HEAD' })
      expect(head.status).toBe(200)
      expect(head.headers.get('content-type')).toBe('image/png')
      expect(head.headers.get('content-length')).toBe(String(PNG.byteLength))
      expect(await head.text()).toBe('')
    } finally {
      await server.stop(true)
    }
  })

  test('the same bytes again store nothing (200, unchanged); new bytes replace them (200, a new ETag)', async () => {
    const first = await putFile('a.png', PNG)
    const same = await putFile('a.png', PNG)
    expect(same.status).toBe(200)
    expect(await same.json()).toMatchObject({ unchanged: true })
    const other = await putFile('a.png', new Uint8Array([...PNG, 0]))
    expect(other.status).toBe(200)
    expect(other.headers.get('etag')).not.toBe(first.headers.get('etag'))
    expect((await (await site('a.png')).arrayBuffer()).byteLength).toBe(PNG.byteLength + 1)
  })

  test('a hashed name is cached for a year, immutable; others revalidate', async () => {
    await putFile('fonts/inter.3f9a2c1b.woff2', PNG)
    const hashed = await site('fonts/inter.3f9a2c1b.woff2')
    expect(hashed.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(hashed.headers.get('content-type')).toBe('font/woff2')
  })

  test('an SVG is served with a CSP that runs no script, in a sandbox', async () => {
    await putFile('logo/light.svg', SVG_WITH_SCRIPT)
    const served = await site('logo/light.svg')
    expect(served.headers.get('content-type')).toBe('image/svg+xml')
    const csp = served.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain('sandbox')
    expect(csp).not.toContain('script-src')
  })

  test("the author's file wins over Trellis's built-in one at the same path; deleting it brings that back", async () => {
    const builtIn = await (await site('favicon.svg')).text()
    expect(builtIn).toContain('<svg')
    await putFile('favicon.svg', '<svg xmlns="http://www.w3.org/2000/svg"><title>mine</title></svg>')
    expect(await (await site('favicon.svg')).text()).toContain('<title>mine</title>')
    expect(await (await t.request('/docs/_files/favicon.svg')).text()).toContain('<title>mine</title>')
    expect((await deleteFile('favicon.svg')).status).toBe(204)
    expect(await (await site('favicon.svg')).text()).toBe(builtIn)
  })

  test('DELETE answers 204, then the site 404s the file and a second DELETE 404s', async () => {
    await putFile('images/dot.png', PNG)
    expect((await deleteFile('images/dot.png')).status).toBe(204)
    expect((await site('images/dot.png')).status).toBe(404)
    const again = await deleteFile('images/dot.png')
    expect(again.status).toBe(404)
    expect((await again.json()).message).toContain('no file images/dot.png')
  })

  test('GET /docs/assets lists the files without their bytes, publicly, and pages with Link', async () => {
    await putFile('b.png', PNG)
    await putFile('a.png', PNG)
    await putFile('c.png', PNG)
    const listed = await t.request('/docs/assets?limit=2')
    expect(listed.status).toBe(200)
    const { files } = await listed.json()
    expect(files.map((file: { path: string }) => file.path)).toEqual(['a.png', 'b.png'])
    expect(files[0]).not.toHaveProperty('content')
    expect(listed.headers.get('link')).toBe('</docs/assets?limit=2&after=b.png>; rel="next"')
    const rest = await (await t.request('/docs/assets?limit=2&after=b.png')).json()
    expect(rest.files.map((file: { path: string }) => file.path)).toEqual(['c.png'])
  })

  test('writing needs a token with docs:write', async () => {
    expect((await putFile('a.png', PNG, { token: null })).status).toBe(401)
    const reader = await t.tokenFor('bob', ['plants:read'])
    expect((await putFile('a.png', PNG, { token: reader })).status).toBe(403)
    expect((await deleteFile('a.png', null)).status).toBe(401)
    expect((await deleteFile('a.png', reader)).status).toBe(403)
  })

  test('a file over the per-file cap is 413 naming DOCS_ASSET_MAX_BYTES, declared or chunked', async () => {
    const big = new Uint8Array(3000)
    const declared = await putFile('big.png', big)
    expect(declared.status).toBe(413)
    expect((await declared.json()).message).toContain('DOCS_ASSET_MAX_BYTES')
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(big)
        controller.close()
      },
    })
    const chunked = await putFile('big.png', stream)
    expect(chunked.status).toBe(413)
  })

  test('files that would take the site past its cap are 413 naming DOCS_ASSETS_MAX_BYTES; replacing one counts once', async () => {
    expect((await putFile('one.png', new Uint8Array(1500))).status).toBe(201)
    expect((await putFile('one.png', new Uint8Array(1600))).status).toBe(200)
    const over = await putFile('two.png', new Uint8Array(1600))
    expect(over.status).toBe(413)
    expect((await over.json()).message).toContain('DOCS_ASSETS_MAX_BYTES')
    expect((await putFile('two.png', new Uint8Array(1400))).status).toBe(201)
  })
})

describe('bad file paths and contents', () => {
  freshAppPerTest()

  const rows: [string, string, number, string][] = [
    ['a parent segment', 'images%2F..%2Fsecret.png', 400, '".." segment'],
    ['a current segment', 'images%2F.%2Fx.png', 400, '"." segment'],
    ['an encoded slash climbing out', '..%2Fx.png', 400, '".." segment'],
    ['a hidden file', '.env.png', 400, 'hidden'],
    ['a hidden folder', '.git/x.png', 400, 'hidden'],
    ['no extension', 'images/logo', 400, 'has no extension'],
    ['an extension the store refuses', 'site/page.html', 400, 'ends in .html'],
    ['a script', 'app.js', 400, 'ends in .js'],
    ['a backslash', 'a%5Cb.png', 400, 'may not hold'],
    ['a NUL', 'a%00.png', 400, 'may not hold'],
    ['a malformed escape', 'a%zz.png', 400, 'malformed percent-escape'],
    ['the pages API folder', 'pages/x.png', 400, 'keeps for itself'],
    ['a file the site answers itself', 'robots.txt', 400, 'answered by the site itself'],
    ['an empty segment', 'images//x.png', 400, 'empty segment'],
    ['an overlong path', `${'a'.repeat(600)}.png`, 400, 'at most 500'],
  ]
  for (const [name, path, status, message] of rows) {
    test(`${name}: ${status}`, async () => {
      const response = await putFile(path, new Uint8Array([1]))
      expect(response.status).toBe(status)
      expect((await response.json()).message).toContain(message)
    })
  }

  test('names with spaces, & and parentheses are stored and served at their percent-encoded URL', async () => {
    expect((await putFile('images/My%20Plant%20(1)%20%26%20co.png', PNG)).status).toBe(201)
    const served = await site('images/My%20Plant%20(1)%20%26%20co.png')
    expect(served.status).toBe(200)
    expect(served.headers.get('content-type')).toBe('image/png')
  })

  const dataRows: [string, string, string, string][] = [
    ['JSON that does not parse', 'data.json', '{"a": ', 'is not valid JSON'],
    ['YAML that does not parse', 'data.yaml', 'a: [1, 2', 'is not valid YAML'],
    ['Swagger 2.0', 'swagger.json', '{"swagger": "2.0", "info": {}, "paths": {}}', 'OpenAPI 2.0 (Swagger)'],
    ['an OpenAPI version not rendered', 'o.json', '{"openapi": "4.0.0"}', 'not an OpenAPI version'],
    ['OpenAPI 3.0 without paths', 'o.yaml', 'openapi: 3.0.3\ninfo: {title: T, version: "1"}\n', 'paths: missing'],
    [
      'a path not starting with /',
      'o.yaml',
      'openapi: 3.1.0\ninfo: {title: T, version: "1"}\npaths: {plants: {}}\n',
      'must start with "/"',
    ],
    [
      'a $ref naming nothing',
      'o.json',
      '{"openapi":"3.1.0","info":{"title":"T","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{"$ref":"#/components/responses/Gone"}}}}}}',
      'names nothing',
    ],
    [
      'a parameter without a name',
      'o.yaml',
      'openapi: 3.1.0\ninfo: {title: T, version: "1"}\npaths:\n  /a:\n    get:\n      parameters: [{in: query}]\n',
      'string name and in',
    ],
    [
      'YAML aliases expanding a billion laughs',
      'o.yaml',
      `openapi: 3.1.0\na: &a [x,x,x,x,x,x,x,x,x,x]\n${Array.from(
        { length: 12 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(',')}]`,
      ).join('\n')}\n`,
      'is not valid YAML',
    ],
    ['a document nested past the depth bound', 'deep.json', `${'['.repeat(100)}${']'.repeat(100)}`, 'deeper than 64'],
    ['a self-referencing YAML anchor', 'o.yaml', 'openapi: 3.1.0\nloop: &loop\n  again: *loop\n', 'deeper than 64'],
  ]
  for (const [name, path, text, message] of dataRows) {
    test(`${name}: 400 naming the problem`, async () => {
      const response = await putFile(path, text)
      expect(response.status).toBe(400)
      expect((await response.json()).message).toContain(message)
    })
  }
})

describe('preconditions and concurrent writers', () => {
  freshAppPerTest({ DOCS_ASSETS_MAX_BYTES: '3kb' })

  test('If-None-Match: * only creates; If-Match with a stale ETag is 412 naming the current one', async () => {
    expect((await putFile('a.png', PNG, { headers: { 'if-none-match': '*' } })).status).toBe(201)
    const again = await putFile('a.png', PNG, { headers: { 'if-none-match': '*' } })
    expect(again.status).toBe(412)
    const current = again.headers.get('etag')!
    expect(current).toMatch(/^"[0-9a-f]{32}"$/)
    const stale = await putFile('a.png', new Uint8Array([1]), { headers: { 'if-match': '"0000"' } })
    expect(stale.status).toBe(412)
    expect(stale.headers.get('etag')).toBe(current)
    expect((await putFile('a.png', new Uint8Array([1]), { headers: { 'if-match': current } })).status).toBe(200)
    expect((await putFile('new.png', PNG, { headers: { 'if-match': current } })).status).toBe(412)
  })

  test('writers racing for the site cap take turns: exactly as many files as fit are stored', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => putFile(`race/${i}.png`, new Uint8Array(1000).fill(i))),
    )
    const statuses = answers.map((answer) => answer.status).sort()
    expect(statuses).toEqual([201, 201, 201, 413, 413, 413])
    const { files } = await (await t.request('/docs/assets')).json()
    expect(files.reduce((sum: number, file: { size: number }) => sum + file.size, 0)).toBe(3000)
  })
})
