import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { validateDocsConfig } from '../../src/docs-config/validation/validate'
import { SETUP_TIMEOUT } from '../helpers/app'
import { corpusFiles, issuesOutsideText } from './corpus'
import { unmark } from './marked-text'
import { allSources, close, config, freshAppPerTest, MIB, open, put, t, writer } from './routes-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

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
    expect(revisions[1]).toMatchObject({
      revision: 2,
      author: 'alice',
      size: new TextEncoder().encode(texts[1]).byteLength,
    })
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
    const { text, line, column } = unmark('{\n\n\n   "name": "A",\n      "navigation": ¦7\n}')
    const response = await t.request('/docs.json/validate', {
      method: 'POST',
      body: text,
      token: writer,
      headers: { 'content-type': 'text/plain' },
    })
    expect(response.status).toBe(200)
    const result = await response.json()
    expect(result.valid).toBe(false)
    expect(result.config).toBeUndefined()
    expect(result.errors).toEqual([expect.objectContaining({ path: '/navigation', line, column })])
  })

  test('?strict=true turns warnings into errors; nothing is stored either way', async () => {
    const text = config('A', { tracking: { ga4: { measurementId: 'G-1' } } })
    const relaxed = await (await t.request('/docs.json/validate', { method: 'POST', body: text, token: writer })).json()
    const strict = await (
      await t.request('/docs.json/validate?strict=true', { method: 'POST', body: text, token: writer })
    ).json()
    expect(relaxed).toMatchObject({ valid: true, warnings: [expect.objectContaining({ path: '/tracking' })] })
    expect(strict).toMatchObject({
      valid: false,
      warnings: [],
      errors: [expect.objectContaining({ path: '/tracking' })],
    })
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
        for (let offset = 0; offset < bytes.length; offset += 64 * 1024)
          controller.enqueue(bytes.subarray(offset, offset + 64 * 1024))
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

  test.each(corpusFiles())(
    'corpus %s: the same result as the validator, every position inside the file',
    async (_name, text) => {
      const response = await t.request('/docs.json/validate', { method: 'POST', body: text, token: writer })
      expect(response.status).toBe(200)
      const result = await response.json()
      expect(result).toEqual(JSON.parse(JSON.stringify(validateDocsConfig(text))))
      expect(issuesOutsideText(text, [...result.errors, ...result.warnings])).toEqual([])
    },
  )
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
    const document = await response.json()
    expect(document.$schema).toBe('http://json-schema.org/draft-07/schema#')
    // Both shapes: the current one when the file has a theme or an object navigation, else the spec's.
    expect(document.if.anyOf[0]).toEqual({ required: ['theme'] })
    expect(document.then.required).toEqual(['theme', 'name', 'colors', 'navigation'])
    expect(document.then.properties.navigation).toEqual({ $ref: '#/definitions/NavigationNode' })
    expect(document.definitions.NavigationNode.properties.tabs.items).toEqual({ $ref: '#/definitions/NavigationNode' })
    expect(document.then.properties.footer.properties.socials.properties.twitter).toBeDefined()
    const schema = { ...document.else, definitions: document.definitions }
    expect(schema.required).toEqual(['name', 'navigation'])
    expect(schema.properties.navigation.items).toEqual({ $ref: '#/definitions/NavigationGroup' })
    expect(schema.definitions.NavigationGroup.properties.pages.items.anyOf[1]).toEqual({
      $ref: '#/definitions/NavigationGroup',
    })
    expect(schema.properties.colors.properties.primary.pattern).toBe('^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$')
    expect(schema.properties.footerSocials.additionalProperties).toBe(false)
    expect(Object.keys(schema.properties.footerSocials.properties)).toContain('twitter')
    expect(
      schema.properties.api.properties.auth.properties.method.anyOf.map((branch: { const: string }) => branch.const),
    ).toEqual(['bearer', 'basic', 'key', 'cobo'])
    expect(schema.properties.topAnchor.default).toEqual({
      name: 'Documentation',
      icon: 'book-open',
      iconType: 'duotone',
    })
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
