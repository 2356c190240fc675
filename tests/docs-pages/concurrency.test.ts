import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { DocsPagesService } from '../../src/docs-pages/service'
import { DocsPagesStore } from '../../src/docs-pages/store'
import { freshAppPerTest, get, page, put, t } from './routes-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const WRITERS = 20

describe('writers of one page take turns', () => {
  freshAppPerTest()

  test(`${WRITERS} concurrent PUTs without If-Match: none is refused; each is its own revision, 1 to ${WRITERS}, and every text is kept`, async () => {
    const texts = Array.from({ length: WRITERS }, (_, i) => page(`Writer ${i}`))
    const responses = await Promise.all(texts.map((text) => put('race', text)))
    const statuses = responses.map((response) => response.status)
    // Exactly one of them created the page; the others each added a revision on top.
    expect(statuses.filter((status) => status === 201)).toHaveLength(1)
    expect(statuses.filter((status) => status === 200)).toHaveLength(WRITERS - 1)
    const numbers = await Promise.all(responses.map(async (response) => (await response.json()).revision as number))
    expect(numbers.sort((a, b) => a - b)).toEqual(texts.map((_, i) => i + 1))
    const stored = await Promise.all(texts.map(async (_, i) => (await get(`race?revision=${i + 1}`)).text()))
    expect(stored.sort()).toEqual([...texts].sort())
  })

  test(`${WRITERS} concurrent PUTs with the same If-Match: exactly one wins, the others get 412 naming the winner's ETag`, async () => {
    const base = (await put('race', page('Base'))).headers.get('etag')!
    const responses = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) => put('race', page(`Writer ${i}`), { headers: { 'if-match': base } })),
    )
    const statuses = responses.map((response) => response.status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(1)
    expect(statuses.filter((status) => status === 412)).toHaveLength(WRITERS - 1)
    const winner = responses.find((response) => response.status === 200)!.headers.get('etag')
    for (const response of responses.filter((r) => r.status === 412)) expect(response.headers.get('etag')).toBe(winner)
  })

  test(`${WRITERS} concurrent creators with If-None-Match: *: exactly one creates, the others get 412`, async () => {
    const responses = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        put('race', page(`Creator ${i}`), { headers: { 'if-none-match': '*' } }),
      ),
    )
    const statuses = responses.map((response) => response.status)
    expect(statuses.filter((status) => status === 201)).toHaveLength(1)
    expect(statuses.filter((status) => status === 412)).toHaveLength(WRITERS - 1)
  })

  test('concurrent writers of different pages: every page gets revision 1, and the generation counts every revision', async () => {
    const service = new DocsPagesService(new DocsPagesStore(t.deps.database.db), () => new Date())
    expect(await service.generation()).toBe(0)
    const paths = Array.from({ length: WRITERS }, (_, i) => `page-${i}`)
    const responses = await Promise.all(paths.map((path) => put(path, page(path))))
    expect(responses.map((response) => response.status)).toEqual(paths.map(() => 201))
    expect(await service.generation()).toBe(WRITERS)
    expect([...(await service.summaries()).keys()]).toEqual([...paths].sort())
  })

  // Only a server with several connections can hold a page's turn while a PUT waits for it.
  test.skipIf(!process.env.DATABASE_URL)(
    'a writer that waits over 5 s for its turn gets 503 with Retry-After, not 412; other pages are not held up',
    async () => {
      let release!: () => void
      const held = new Promise<void>((resolve) => (release = resolve))
      let locked!: () => void
      const turnTaken = new Promise<void>((resolve) => (locked = resolve))
      // Another writer of the same page, holding its turn: the store's own lock, whatever its key.
      const holder = new DocsPagesStore(t.deps.database.db).appendNext('slow', async () => {
        locked()
        await held
        return undefined
      })
      await turnTaken
      const elsewhere = await put('fast', page('Fast'))
      const response = await put('slow', page('Patient'))
      release()
      await holder.catch(() => {})
      expect(elsewhere.status).toBe(201)
      expect(response.status).toBe(503)
      expect(response.headers.get('retry-after')).toBe('1')
      expect(await response.json()).toEqual({
        error: 503,
        message: expect.stringContaining(
          'page slow is being written by others; this write waited 5 s for its turn. Retry shortly',
        ),
      })
      expect((await put('slow', page('Later'))).status).toBe(201)
    },
    15_000,
  )
})
