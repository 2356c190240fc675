import { sql } from 'drizzle-orm'
import type { Database } from './connect'
import { MIGRATIONS } from './migrations.gen'

/** Any constant works; it only has to be the same for every replica. */
const MIGRATION_LOCK_KEY = 7_262_311_001

type Migration = { tag: string; sql: string }

/**
 * Applies drizzle-kit's migrations that have not run yet, in order, in one transaction.
 * An advisory lock serialises replicas that start together, so each migration runs once.
 * A migration edited after it was applied is refused rather than silently skipped.
 * Returns the tags it applied.
 */
export async function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): Promise<string[]> {
  const hashes = await Promise.all(migrations.map((m) => sha256Hex(m.sql)))
  return db.transaction(async (tx) => {
    // A schema change may take longer than a statement_timeout set in DATABASE_URL or on the role.
    await tx.execute(sql`set local statement_timeout = 0`)
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`)
    await tx.execute(sql`create table if not exists trellis_migrations (
      tag text primary key,
      hash text not null,
      applied_at timestamptz not null default now()
    )`)
    const rows = await tx.execute<{ tag: string; hash: string }>(sql`select tag, hash from trellis_migrations`)
    const applied = new Map(rowsOf<{ tag: string; hash: string }>(rows).map((row) => [row.tag, row.hash]))
    const done: string[] = []
    for (const [i, migration] of migrations.entries()) {
      const previous = applied.get(migration.tag)
      if (previous !== undefined) {
        if (previous !== hashes[i])
          throw new Error(`migration ${migration.tag} was changed after it was applied; add a new migration instead`)
        continue
      }
      for (const statement of migration.sql.split('--> statement-breakpoint'))
        if (statement.trim()) await tx.execute(sql.raw(statement))
      await tx.execute(sql`insert into trellis_migrations (tag, hash) values (${migration.tag}, ${hashes[i]})`)
      done.push(migration.tag)
    }
    return done
  })
}

/**
 * The migrations this build carries that the database has not applied yet, in order (all of them when it was never
 * migrated). One small query; `/ready` asks it until the answer is none.
 */
export async function pendingMigrations(
  db: Database,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<string[]> {
  const exists = rowsOf<{ found: boolean }>(
    await db.execute(sql`select to_regclass('trellis_migrations') is not null as found`),
  )[0]?.found
  if (!exists) return migrations.map((migration) => migration.tag)
  const rows = await db.execute<{ tag: string }>(sql`select tag from trellis_migrations`)
  const applied = new Set(rowsOf<{ tag: string }>(rows).map((row) => row.tag))
  return migrations.filter((migration) => !applied.has(migration.tag)).map((migration) => migration.tag)
}

/** postgres.js returns an array of rows, PGlite an object with `rows`. */
export function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : ((result as { rows: T[] }).rows ?? [])
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')
}
