/**
 * The usage ledger's COPY and the requests' queries share a database, and must not break each other. When every
 * connection of a postgres.js pool is busy, it pipelines the next query onto one of them; a query that landed behind a
 * COPY FROM STDIN reached the server in the middle of the copy, a protocol violation (08P01) that closed the
 * connection: the COPY and the queries pipelined there failed as "database unavailable", and requests were answered
 * 503 by a healthy PostgreSQL at full load (BENCHMARKS.md, "Zero errors at full load").
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { type SQL, sql } from 'drizzle-orm'
import { type DatabaseHandle, openDatabase } from '../../src/db/connect'
import { rowsOf } from '../../src/db/migrate'
import { scratchPostgresDatabase } from '../helpers/database'

setDefaultTimeout(30_000)

const url = process.env.DATABASE_URL
const ROWS = Array.from({ length: 2_000 }, (_, i) => `${i}\t${'x'.repeat(100)}\n`)

describe.skipIf(!url)('on PostgreSQL (DATABASE_URL): COPY beside queries on a saturated pool', () => {
  let scratch: Awaited<ReturnType<typeof scratchPostgresDatabase>>
  let database: DatabaseHandle

  beforeAll(async () => {
    scratch = await scratchPostgresDatabase(url!)
    // One connection for requests: every query asked while one runs is pipelined behind it, as in a pool of ten
    // under full load.
    database = await openDatabase({ url: scratch.url, poolSize: 1 })
    await database.unbounded.execute(sql`create table copied (n int, text text)`)
    await database.unbounded.execute(sql`create table settled (id text)`)
  })

  afterAll(async () => {
    await database?.close()
    await scratch?.drop()
  })

  // The ledger's statement beside its rows deletes journal entries named in a jsonb parameter (src/usage/journal.ts).
  const settle = (round: number) =>
    sql`with gone as (delete from settled where id in (select jsonb_array_elements_text(${JSON.stringify([`r${round}`])}::jsonb)))
        select 1`
  const CASES: [string, ((round: number) => SQL) | undefined][] = [
    ['a COPY alone (the ledger without budgets)', undefined],
    ['a COPY and a statement in one transaction (the ledger with budgets)', settle],
  ]
  for (const [name, after] of CASES) {
    test(`${name}: every query asked meanwhile is answered, and every row is written`, async () => {
      await database.db.execute(sql`insert into settled select 'r' || n from generate_series(0, 9) n`)
      const [before] = rowsOf<{ n: number }>(await database.db.execute(sql`select count(*)::int as n from copied`))
      const failures: string[] = []
      const note = (error: unknown) => {
        const cause = (error as { cause?: { code?: string } }).cause
        failures.push(String(cause?.code ?? (error as { code?: string }).code ?? error))
      }
      for (let round = 0; round < 10; round++) {
        // The pool's connection is in a transaction: what is asked meanwhile queues, the COPY among queries, and
        // postgres.js hands the queue to the connection as soon as the transaction ends.
        const holding = database.db.transaction(async (tx) => void (await tx.execute(sql`select pg_sleep(0.02)`)))
        await Bun.sleep(2)
        const ask = (i: number) => Promise.resolve(database.db.execute(sql`select ${i}::int as i`)).catch(note)
        const queries = Array.from({ length: 10 }, (_, i) => ask(i))
        let copied = false
        const copy = database
          .copyIn('copied', ['n', 'text'], ROWS, after?.(round))
          .catch(note)
          .finally(() => (copied = true))
        queries.push(...Array.from({ length: 10 }, (_, i) => ask(i)))
        // And requests keep coming while the COPY runs.
        while (!copied) {
          queries.push(ask(round))
          await Bun.sleep(1)
        }
        await Promise.all([holding, copy, ...queries])
      }
      expect(failures).toEqual([])
      const [now] = rowsOf<{ n: number }>(await database.db.execute(sql`select count(*)::int as n from copied`))
      expect(Number(now!.n) - Number(before!.n)).toBe(10 * ROWS.length)
      const [left] = rowsOf<{ n: number }>(await database.db.execute(sql`select count(*)::int as n from settled`))
      expect(Number(left!.n)).toBe(after ? 0 : 10)
      await database.db.execute(sql`delete from settled`)
    })
  }
})
