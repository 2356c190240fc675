import { type SQL, sql } from 'drizzle-orm'
import { causes } from './failures'

/** How long a writer waits for the writers ahead of it before its request is answered 503. */
export const WRITER_LOCK_TIMEOUT_MS = 5_000

/**
 * Waits for this transaction's turn on the advisory lock `key` (one 64-bit number, or two 32-bit
 * ones), held until the transaction ends. Every replica queues on the same lock, so writers that
 * read "the newest revision" and then add the next one never read the same newest. The wait is
 * bounded by `lock_timeout`; past it PostgreSQL raises 55P03 (see {@link isLockTimeout}), which a
 * route answers as busy (503), not as a conflict. Works the same on PostgreSQL and PGlite.
 */
export async function awaitWriterTurn(
  tx: { execute: (query: SQL) => Promise<unknown> },
  ...key: [number] | [number, number]
): Promise<void> {
  await tx.execute(sql.raw(`SET LOCAL lock_timeout = '${WRITER_LOCK_TIMEOUT_MS}ms'`))
  await tx.execute(
    key.length === 1
      ? sql`SELECT pg_advisory_xact_lock(${key[0]})`
      : sql`SELECT pg_advisory_xact_lock(${key[0]}::int4, ${key[1]}::int4)`,
  )
}

/** PostgreSQL's lock_not_available: `lock_timeout` passed while waiting for a writers' lock. */
export function isLockTimeout(error: unknown): boolean {
  for (const { code } of causes(error)) if (code === '55P03') return true
  return false
}
