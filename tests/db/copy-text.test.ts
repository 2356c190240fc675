/**
 * COPY text (src/db/copy-text.ts), checked by PostgreSQL itself: every value copied in reads back
 * as it was, whatever characters it holds.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { type DatabaseHandle, openDatabase } from '../../src/db/connect'
import { copyLine } from '../../src/db/copy-text'
import { rowsOf } from '../../src/db/migrate'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let handle: DatabaseHandle
const table = `copy_text_${process.pid}`

beforeAll(async () => {
  handle = await openDatabase({ url: process.env.DATABASE_URL })
  await handle.db.execute(sql.raw(`create table ${table} (n int not null, t text, b boolean, x real, at timestamptz)`))
})
afterAll(async () => {
  await handle.db.execute(sql.raw(`drop table if exists ${table}`))
  await handle.close()
})

const values: [string, string | null][] = [
  ['plain', 'stop'],
  ['tab', 'a\tb'],
  ['newline', 'a\nb'],
  ['carriage return', 'a\rb'],
  ['backslash', 'a\\b'],
  ['backslash n, literally', 'a\\nb'],
  ['backslash N, literally', '\\N'],
  ['empty', ''],
  ['non-ASCII', 'Grüße, 世界 🌱'],
  ['null', null],
]

test.each(values)('%s reads back as it was copied', async (_name, text) => {
  const n = values.findIndex(([, value]) => value === text)
  await handle.copyIn(
    table,
    ['n', 't', 'b', 'x', 'at'],
    [copyLine([n, text, n % 2 === 0, 1.5, new Date(Date.UTC(2026, 10, 25, 12))])],
  )
  const [row] = rowsOf<{ t: string | null; b: boolean; x: number; at: string }>(
    await handle.db.execute(sql.raw(`select t, b, x, at::text as at from ${table} where n = ${n}`)),
  )
  expect(row?.t).toBe(text)
  expect(row?.b).toBe(n % 2 === 0)
  expect(row?.x).toBe(1.5)
  expect(row?.at).toMatch(/^2026-11-25 12:00:00/)
})

test('a refused line fails the whole COPY, and the connection is usable after', async () => {
  await expect(
    handle.copyIn(table, ['n', 't'], [copyLine([100, 'kept?']), copyLine([Number.NaN, 'no n'])]),
  ).rejects.toMatchObject({ code: '23502' })
  const count = async () =>
    rowsOf<{ c: number }>(await handle.db.execute(sql.raw(`select count(*)::int as c from ${table} where n = 100`)))[0]!
      .c
  expect(await count()).toBe(0)
  await handle.copyIn(table, ['n', 't'], [copyLine([100, 'now'])])
  expect(await count()).toBe(1)
})
