/**
 * What writing the usage ledger costs the database, by the batch the ledger writes (#31): the same COPY of `--batch`
 * rows (as bench/chat-relay.ts's governed streams make them: one token, one owner, one model, today) into
 * `usage_records`, with the rollup trigger (migrations 0010/0011: usage_daily, usage_monthly) and with it disabled,
 * interleaved round by round. On PGlite the whole write runs in this process: its CPU time is the figure. On
 * PostgreSQL (`DATABASE_URL`, a scratch database the script creates and drops) the write runs in the server: its wall
 * time is the figure, on a machine otherwise idle.
 *
 * `--function FILE` adds a third turn with the trigger's function replaced by FILE's `CREATE OR REPLACE FUNCTION`
 * (a candidate), the migrated one restored after it.
 *
 * `--batch 250,1000` writes each turn's rows in batches of each size in turn (the ledger's `batchSize`).
 *
 *   bun bench/ledger-write.ts [--batch 250] [--rows 10000] [--rounds 5] [--function FILE]
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test bun bench/ledger-write.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { type DatabaseHandle, openDatabase } from '../src/db/connect'
import { copyLine } from '../src/db/copy-text'
import { migrate, rowsOf } from '../src/db/migrate'
import { WRITTEN } from '../src/usage/ledger'
import { argument, median } from './relay-driver'

/** One size, or several (`250,1000`): each turn then writes the same rows in batches of each size. */
const SIZES = argument('batch', '250').split(',').map(Number)
const ROWS = Number(argument('rows', '10000'))
const ROUNDS = Number(argument('rounds', '5'))
const URL = process.env.DATABASE_URL
const CANDIDATE = argument('function', '')

const batchOf = (size: number) =>
  Array.from({ length: size }, () =>
    copyLine([
      new Date(),
      crypto.randomUUID(),
      'tok_bench',
      'bench',
      'bench',
      'mock',
      'mock-model',
      true,
      200,
      'stop',
      5,
      64,
      0,
      0,
      0,
      645,
      '1',
      1.2,
      40.5,
      null,
      true,
      null,
    ]),
  )

const scratch = mkdtempSync(join(tmpdir(), 'ledger-write-'))
const database = `ledger_write_${process.pid}`
let handle: DatabaseHandle
if (URL) {
  const admin = await openDatabase({ url: URL, poolSize: 1 })
  await admin.db.execute(sql.raw(`create database ${database}`))
  await admin.close()
  const url = new globalThis.URL(URL)
  url.pathname = `/${database}`
  handle = await openDatabase({ url: url.toString(), poolSize: 2 })
} else handle = await openDatabase({ dataDir: join(scratch, 'data') })

try {
  await migrate(handle.unbounded)
  const write = async (size: number) => {
    const batches = Math.ceil(ROWS / size)
    const cpu = process.cpuUsage()
    const started = performance.now()
    for (let i = 0; i < batches; i++) await handle.copyIn('usage_records', WRITTEN, batchOf(size))
    const used = process.cpuUsage(cpu)
    const rows = batches * size
    return { wallUs: ((performance.now() - started) * 1000) / rows, cpuUs: (used.user + used.system) / rows }
  }
  const trigger = (on: boolean) =>
    handle.db.execute(sql.raw(`alter table usage_records ${on ? 'enable' : 'disable'} trigger usage_daily_add`))
  const [{ definition }] = rowsOf<{ definition: string }>(
    await handle.db.execute(sql`select pg_get_functiondef('usage_daily_add'::regproc) as definition`),
  )
  const candidate = CANDIDATE ? await Bun.file(CANDIDATE).text() : undefined
  await write(SIZES[0]!) // warm-up
  type Result = { wallUs: number; cpuUs: number }
  const results: Record<string, Result[]> = {}
  const turn = async (mode: string) => {
    for (const size of SIZES) (results[`${mode}, batches of ${size}`] ??= []).push(await write(size))
  }
  for (let round = 0; round < ROUNDS; round++) {
    await trigger(true)
    await turn('on')
    if (candidate) {
      await handle.db.execute(sql.raw(candidate))
      await turn('candidate')
      await handle.db.execute(sql.raw(definition!))
    }
    await trigger(false)
    await turn('off')
  }
  await trigger(true)
  const figure = URL ? 'wall time' : 'CPU of this process'
  console.log(`${URL ? 'PostgreSQL' : 'PGlite'}: ${ROUNDS} rounds of ${ROWS} rows per turn, per row (${figure})`)
  for (const key of ['cpuUs', 'wallUs'] as const)
    for (const [mode, runs] of Object.entries(results))
      console.log(
        `${key} trigger ${mode}: median ${median(runs.map((run) => run[key])).toFixed(2)} µs; per round ${runs.map((run) => run[key].toFixed(2)).join(', ')}`,
      )
} finally {
  await handle.close()
  if (URL) {
    const admin = await openDatabase({ url: URL, poolSize: 1 })
    await admin.db.execute(sql.raw(`drop database if exists ${database}`))
    await admin.close()
  }
  rmSync(scratch, { recursive: true, force: true })
}
