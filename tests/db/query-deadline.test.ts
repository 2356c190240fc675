/**
 * A database that stops answering must not hold requests: each statement has DB_QUERY_TIMEOUT_MS,
 * client-side (a frozen server, a silent network) and server-side (a slow statement).
 */
import { PROVIDER_KINDS } from '../../src/chat/providers'
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import postgres from 'postgres'
import { createApp } from '../../src/app'
import { TokenService } from '../../src/auth/service'
import { loadConfig } from '../../src/config'
import { type DatabaseHandle, openDatabase } from '../../src/db/connect'
import { boundedClient, withDeadline } from '../../src/db/deadline'
import { migrate } from '../../src/db/migrate'
import { createLogger } from '../../src/telemetry/logger'
import { scratchPostgresDatabase } from '../helpers/database'
import { freezableProxy } from '../helpers/freezable-proxy'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const never = { then: () => {} } as PromiseLike<never>

describe('withDeadline', () => {
  test('passes an answer that comes in time through', async () => {
    expect(await withDeadline(Promise.resolve(7), 50)).toBe(7)
  })
  test('rejects with code QUERY_TIMEOUT when no answer comes', async () => {
    const started = performance.now()
    await expect(withDeadline(never, 50)).rejects.toMatchObject({ code: 'QUERY_TIMEOUT' })
    expect(performance.now() - started).toBeLessThan(1_000)
  })
})

describe('boundedClient', () => {
  // A stand-in for postgres.js: `unsafe` returns a lazy query; `begin` hands the callback a scoped client.
  type Query = PromiseLike<unknown> & { values(): Query }
  type Fake = { options: { parsers: object }; unsafe(): Query; begin(fn: (scoped: Fake) => unknown): Promise<unknown> }
  const fake = (answer: () => PromiseLike<unknown>): Fake => {
    const client: Fake = {
      options: { parsers: {} },
      unsafe: () => {
        const query: Query = { then: (ok, ko) => answer().then(ok, ko), values: () => query }
        return query
      },
      begin: (fn) => Promise.resolve(fn(client)),
    }
    return client
  }

  test('a statement that never answers rejects at the limit, also after .values()', async () => {
    const client = boundedClient(
      fake(() => never),
      50,
    )
    await expect(Promise.resolve(client.unsafe())).rejects.toMatchObject({ code: 'QUERY_TIMEOUT' })
    await expect(Promise.resolve(client.unsafe().values())).rejects.toMatchObject({ code: 'QUERY_TIMEOUT' })
  })
  test('statements inside a transaction are bounded too', async () => {
    const client = boundedClient(
      fake(() => never),
      50,
    )
    await expect(client.begin((scoped) => scoped.unsafe())).rejects.toMatchObject({ code: 'QUERY_TIMEOUT' })
  })
  test('answers and other properties pass through unchanged', async () => {
    const client = boundedClient(
      fake(() => Promise.resolve([1])),
      50,
    )
    expect(await client.unsafe()).toEqual([1])
    expect(client.options).toEqual({ parsers: {} })
  })
})

const url = process.env.DATABASE_URL
const LIMIT_MS = 400

describe.skipIf(!url)('on PostgreSQL (DATABASE_URL)', () => {
  let scratch: Awaited<ReturnType<typeof scratchPostgresDatabase>>
  let proxy: ReturnType<typeof freezableProxy>
  let database: DatabaseHandle
  let app: ReturnType<typeof createApp>
  let token: string
  const logs: Record<string, unknown>[] = []

  beforeAll(async () => {
    scratch = await scratchPostgresDatabase(url!)
    const target = new URL(scratch.url)
    proxy = freezableProxy({ hostname: target.hostname, port: Number(target.port || 5432) })
    database = await openDatabase({ url: proxy.url(target.pathname.slice(1)), queryTimeoutMs: LIMIT_MS, poolSize: 2 })
    await migrate(database.unbounded)
    const tokens = new TokenService(database.db)
    token = (await tokens.create({ owner: 'frozen', scopes: ['plants:read', 'plants:write', 'docs:write'] })).token
    await database.unbounded.execute(sql`create table copy_target (n int)`)
    const config = loadConfig({ LOG_LEVEL: 'info', USAGE_LEDGER: 'false' }, PROVIDER_KINDS)
    const logger = createLogger(config.logLevel, (line) => logs.push(JSON.parse(line)))
    app = createApp({ config, database, tokens, logger, clock: () => new Date() })
  }, 30_000)

  afterAll(async () => {
    proxy?.thaw()
    await database?.close()
    proxy?.stop()
    await scratch?.drop()
  })

  const request = (path: string, init: RequestInit = {}) =>
    app.handle(
      new Request(`http://localhost${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      }),
    )

  test('a frozen server: reads and writes answer 503 with Retry-After at the limit, and the log says QUERY_TIMEOUT', async () => {
    expect((await request('/plants')).status).toBe(200)
    proxy.freeze()
    try {
      // A read, a write, and a write in a transaction (PUT /docs.json), whose BEGIN and COMMIT postgres.js sends
      // itself.
      const ROWS: [string, RequestInit][] = [
        ['/plants', {}],
        ['/plants', { method: 'POST', body: JSON.stringify({ name: 'Fern' }) }],
        [
          '/docs.json',
          { method: 'PUT', body: JSON.stringify({ name: 'D', navigation: [{ group: 'G', pages: ['a'] }] }) },
        ],
      ]
      for (const [path, init] of ROWS) {
        const started = performance.now()
        const response = await request(path, init)
        expect(response.status).toBe(503)
        expect(response.headers.get('retry-after')).toBe('1')
        expect(performance.now() - started).toBeLessThan(LIMIT_MS * 4)
        const line = logs.find(
          (entry) => entry.msg === 'database unavailable' && entry.request_id === response.headers.get('x-request-id'),
        )
        expect(line).toMatchObject({ cause: { code: 'QUERY_TIMEOUT' } })
      }
      // More requests than connections: the ones waiting for a free connection are bounded as well.
      const statuses = await Promise.all(Array.from({ length: 6 }, async () => (await request('/plants')).status))
      expect(statuses).toEqual(Array(6).fill(503))
    } finally {
      proxy.thaw()
    }
  })

  test('once it answers again, the same pool serves', async () => {
    let status = 0
    for (const deadline = Date.now() + 5_000; status !== 200 && Date.now() < deadline; )
      status = (await request('/plants')).status
    expect(status).toBe(200)
  })

  test('a write waiting behind busy connections at the limit is not carried out', async () => {
    // Both connections busy for three times the limit. postgres.js pipelines the insert behind one of
    // them, but a statement it has not prepared on that connection waits for its description first,
    // and the cancel at the limit comes before that. (One already prepared there could beat the cancel:
    // README, DB_QUERY_TIMEOUT_MS.)
    // Drizzle's queries are lazy: Promise.resolve starts them. Should a connection still be free (the
    // pool's state after earlier tests), the insert succeeds at once: then the scene is set again.
    let refused: string | undefined
    for (let attempt = 0; attempt < 3 && !refused; attempt++) {
      const busy = [1, 2].map(() =>
        Promise.resolve(database.unbounded.execute(sql`select pg_sleep(${(LIMIT_MS * 3) / 1000})`)),
      )
      await Bun.sleep(50)
      const name = `queued-${crypto.randomUUID()}`
      const response = await request('/plants', { method: 'POST', body: JSON.stringify({ name }) })
      if (response.status === 503) refused = name
      else expect(response.status).toBe(200)
      await Promise.all(busy)
    }
    expect(refused).toBeDefined()
    await Bun.sleep(100)
    // Counted on a connection of its own (see the next test on late cancel requests).
    const counter = postgres(scratch.url, { max: 1, onnotice: () => {} })
    const [row] = await counter`select count(*)::int as n from plants where name = ${refused!}`
    await counter.end()
    expect(row!.n).toBe(0)
  })

  test('a slow statement is cancelled on the server at the limit, not left running', async () => {
    const marker = `pg_sleep(${(LIMIT_MS * 10) / 1000})`
    const started = performance.now()
    await expect(Promise.resolve(database.db.execute(sql.raw(`select ${marker}`)))).rejects.toMatchObject({
      cause: { code: 'QUERY_TIMEOUT' },
    })
    expect(performance.now() - started).toBeLessThan(LIMIT_MS * 3)
    // Watched from a connection of its own: a cancel request names a backend, not a statement, so one
    // that arrives late can end the next statement on that connection (which a route answers as a 503).
    const watcher = postgres(scratch.url, { max: 1, onnotice: () => {} })
    let running = 1
    for (const deadline = Date.now() + LIMIT_MS * 5; running > 0 && Date.now() < deadline; await Bun.sleep(50)) {
      const [row] =
        await watcher`select count(*)::int as n from pg_stat_activity where state = 'active' and query = ${`select ${marker}`}`
      running = row!.n
    }
    await watcher.end()
    expect(running).toBe(0)
  })

  test('a COPY (the usage ledger) on a frozen server is bounded too', async () => {
    proxy.freeze()
    try {
      const started = performance.now()
      await expect(database.copyIn('copy_target', ['n'], ['1\n'])).rejects.toMatchObject({ code: 'QUERY_TIMEOUT' })
      expect(performance.now() - started).toBeLessThan(LIMIT_MS * 4)
    } finally {
      proxy.thaw()
    }
  })
})
