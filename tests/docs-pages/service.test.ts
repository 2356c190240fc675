import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { DatabaseHandle } from '../../src/db/connect'
import { FrontMatterError } from '../../src/docs-format/front-matter'
import { DocsPagesService, InvalidPagePath, PagePreconditionFailed, UnstorablePage } from '../../src/docs-pages/service'
import { DocsPagesStore } from '../../src/docs-pages/store'
import { SETUP_TIMEOUT } from '../helpers/app'
import { freshDatabase } from '../helpers/database'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/** The service the site renders from, on its own, with a clock the tests set. */
let database: DatabaseHandle
let service: DocsPagesService
let now: Date

beforeEach(async () => {
  now = new Date('2026-05-01T12:00:00.000Z')
  database = await freshDatabase()
  service = new DocsPagesService(new DocsPagesStore(database.db), () => now)
}, SETUP_TIMEOUT)
afterEach(() => database.close(), SETUP_TIMEOUT)

const text = (title: string) => `---\ntitle: ${title}\ndescription: About ${title}\nicon: leaf\n---\n# ${title}\n`

describe('DocsPagesService', () => {
  test('current: the newest revision, with its text, its body after the front matter, and the front matter', async () => {
    expect(await service.current('intro')).toBeUndefined()
    await service.put({ path: 'intro', text: text('One'), author: 'alice' })
    now = new Date('2026-05-02T12:00:00.000Z')
    await service.put({ path: 'intro', text: text('Two'), author: 'bob' })
    expect(await service.current('intro')).toEqual({
      path: 'intro',
      revision: 2,
      etag: expect.stringMatching(/^"[0-9a-f]{16}"$/),
      title: 'Two',
      description: 'About Two',
      size: text('Two').length,
      createdAt: '2026-05-02T12:00:00.000Z',
      author: 'bob',
      source: text('Two'),
      body: '# Two\n',
      frontMatter: { title: 'Two', description: 'About Two', icon: 'leaf' },
    })
  })

  test('revision: any stored revision by number; undefined past the newest or for another page', async () => {
    await service.put({ path: 'intro', text: text('One'), author: 'alice' })
    await service.put({ path: 'intro', text: text('Two'), author: 'alice' })
    expect(await service.revision('intro', 1)).toMatchObject({
      revision: 1,
      source: text('One'),
      body: '# One\n',
      frontMatter: { title: 'One' },
    })
    expect(await service.revision('intro', 3)).toBeUndefined()
    expect(await service.revision('other', 1)).toBeUndefined()
  })

  test('summaries: the newest revision of every page, by path, without texts', async () => {
    expect(await service.summaries()).toEqual(new Map())
    await service.put({ path: 'b', text: text('B'), author: 'alice' })
    const bare = '# no front matter\n'
    const api = '---\ntitle: B2\nopenapi: GET /plants\n---\n'
    await service.put({ path: 'a', text: bare, author: 'alice' })
    await service.put({ path: 'b', text: api, author: 'alice' })
    const summaries = await service.summaries()
    expect([...summaries.keys()]).toEqual(['a', 'b'])
    expect(summaries.get('a')).toEqual({
      path: 'a',
      revision: 1,
      etag: expect.any(String),
      size: bare.length,
      createdAt: now.toISOString(),
    })
    expect(summaries.get('b')).toEqual({
      path: 'b',
      revision: 2,
      etag: expect.any(String),
      title: 'B2',
      openapi: 'GET /plants',
      size: api.length,
      createdAt: now.toISOString(),
    })
  })

  test('generation: 0 before any page, then grows with every revision stored, and not with an unchanged one', async () => {
    expect(await service.generation()).toBe(0)
    await service.put({ path: 'a', text: text('A'), author: 'alice' })
    const one = await service.generation()
    await service.put({ path: 'b', text: text('B'), author: 'alice' })
    const two = await service.generation()
    expect(two).toBeGreaterThan(one)
    const again = await service.put({ path: 'b', text: text('B'), author: 'alice' })
    expect(again).toMatchObject({ created: false, unchanged: true, page: { revision: 1, body: '# B\n' } })
    expect(await service.generation()).toBe(two)
  })

  test('put: created for a first revision only', async () => {
    expect(await service.put({ path: 'a', text: text('A'), author: 'alice' })).toMatchObject({
      created: true,
      unchanged: false,
      page: { revision: 1 },
    })
    expect(await service.put({ path: 'a', text: text('A2'), author: 'alice' })).toMatchObject({
      created: false,
      unchanged: false,
      page: { revision: 2 },
    })
  })

  const REFUSALS: [string, Parameters<DocsPagesService['put']>[0], new (...args: never[]) => Error, string][] = [
    ['a bad path', { path: 'a.mdx', text: 'x', author: 'alice' }, InvalidPagePath, 'ends in .mdx'],
    [
      'bad front matter',
      { path: 'a', text: '---\ntitle: [1]\n---\n', author: 'alice' },
      FrontMatterError,
      'front matter line 2: title',
    ],
    ['a NUL character', { path: 'a', text: 'a\u0000', author: 'alice' }, UnstorablePage, 'NUL'],
    [
      'If-Match on a page never written',
      { path: 'a', text: 'x', author: 'alice', ifMatch: '*' },
      PagePreconditionFailed,
      'does not exist',
    ],
  ]
  test.each(REFUSALS)('put refuses %s, storing nothing', async (_case, input, kind, message) => {
    await expect(service.put(input)).rejects.toThrow(kind)
    await expect(service.put(input)).rejects.toThrow(message)
    expect(await service.generation()).toBe(0)
  })
})
