import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { cpSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { renderMigrationsModule } from '../../scripts/embed-migrations'
import type { DatabaseHandle } from '../../src/db/connect'
import { migrate, rowsOf } from '../../src/db/migrate'
import { MIGRATIONS } from '../../src/db/migrations.gen'
import { freshDatabase } from '../helpers/database'
import { SETUP_TIMEOUT } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes, which take several times as long beside a parallel run
// (`bun test --parallel=2`, .ci/run); the CLI mistakes test took 12 s there.
setDefaultTimeout(90_000)

const ROOT = join(import.meta.dir, '../..')

let database: DatabaseHandle
beforeAll(async () => {
  database = await freshDatabase()
}, SETUP_TIMEOUT)
afterAll(() => database.close(), SETUP_TIMEOUT)

test('the embedded migrations are exactly what drizzle-kit generated into drizzle/', async () => {
  expect(await Bun.file(join(ROOT, 'src/db/migrations.gen.ts')).text()).toBe(
    renderMigrationsModule(join(ROOT, 'drizzle')),
  )
})

test('drizzle/ is up to date with src/db/schema.ts (drizzle-kit finds nothing to generate)', () => {
  // drizzle-kit mangles absolute --out paths, so the scratch copy lives under the (ignored) repo folder.
  const scratch = join('.trellis-tmp', `drizzle-check-${process.pid}`)
  try {
    cpSync(join(ROOT, 'drizzle'), join(ROOT, scratch, 'drizzle'), { recursive: true })
    const run = Bun.spawnSync(
      [
        'bun',
        'x',
        'drizzle-kit',
        'generate',
        '--dialect=postgresql',
        '--schema=src/db/schema.ts',
        `--out=${scratch}/drizzle`,
      ],
      {
        cwd: ROOT,
        stdout: 'pipe',
        stderr: 'pipe',
      },
    )
    expect(run.exitCode).toBe(0)
    expect(run.stdout.toString()).toContain('No schema changes')
    expect(readdirSync(join(ROOT, scratch, 'drizzle')).filter((f) => f.endsWith('.sql'))).toEqual(
      readdirSync(join(ROOT, 'drizzle')).filter((f) => f.endsWith('.sql')),
    )
  } finally {
    rmSync(join(ROOT, scratch), { recursive: true, force: true })
  }
}, 60_000)

test('migrating again applies nothing; every migration is recorded once', async () => {
  expect(await migrate(database.db)).toEqual([])
  const rows = rowsOf<{ tag: string }>(await database.db.execute(sql`select tag from trellis_migrations order by tag`))
  expect(rows.map((r) => r.tag)).toEqual(MIGRATIONS.map((m) => m.tag))
})

test('concurrent migrations (replicas starting together) apply each migration once', async () => {
  const extra = [...MIGRATIONS, { tag: '9999_probe', sql: 'create table migration_probe (id int primary key)' }]
  const results = await Promise.all([
    migrate(database.db, extra),
    migrate(database.db, extra),
    migrate(database.db, extra),
  ])
  expect(results.flat()).toEqual(['9999_probe'])
})

test('a migration edited after it was applied is refused', async () => {
  const edited = MIGRATIONS.map((m, i) => (i === 0 ? { ...m, sql: m.sql + '\n-- edited' } : m))
  await expect(migrate(database.db, edited)).rejects.toThrow('was changed after it was applied')
})
