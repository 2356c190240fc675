/**
 * Telling "the database is unreachable or went away" apart from every other failure, so that
 * routes answer 503 with `Retry-After` (worth retrying) rather than 400 or 500, and the log keeps
 * the real cause instead of the ORM's "Failed query" text.
 */

/** Why the database could not be used: the driver's or the server's own code, and its message. */
export type Unavailable = { code: string; message: string }

/** Socket errors of the runtime, and postgres.js's own connection codes. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
  // Ours: a query that waited longer than DB_QUERY_TIMEOUT_MS for its answer (see connect.ts).
  'QUERY_TIMEOUT',
])

/**
 * SQLSTATEs that say "not now" rather than "not this request": connection exceptions (class 08),
 * the server shutting down or starting up (57P01–57P03), out of connections or resources (53),
 * a lock or statement that timed out (55P03, 57014 from `statement_timeout`), and serialization
 * failures and deadlocks (40001, 40P01), which a retry resolves.
 */
function isTransientSqlState(code: string): boolean {
  return (
    code.startsWith('08') ||
    code.startsWith('53') ||
    ['57P01', '57P02', '57P03', '55P03', '57014', '40001', '40P01'].includes(code)
  )
}

/** PGlite's own words when it is used while closing or after it closed (a shutdown in progress). */
const PGLITE_CLOSED = /^PGlite is clos(ed|ing)$/

/**
 * `error` and the causes it links to, outermost first: Drizzle wraps driver errors and Elysia
 * wraps what a parse hook throws. At most 8 deep, so a cycle of causes ends the walk.
 */
export function* causes(error: unknown): Generator<{ code?: unknown; message?: unknown }> {
  for (
    let at = error, depth = 0;
    at !== null && typeof at === 'object' && depth < 8;
    at = (at as { cause?: unknown }).cause, depth++
  ) {
    yield at as { code?: unknown; message?: unknown }
  }
}

/**
 * The cause behind `error` when it means the database cannot serve right now; undefined for any
 * other failure (a bug, a constraint a request broke).
 */
export function databaseUnavailable(error: unknown): Unavailable | undefined {
  for (const { code, message } of causes(error)) {
    const text = typeof message === 'string' ? message : ''
    if (
      typeof code === 'string' &&
      (CONNECTION_CODES.has(code) || (/^[0-9A-Z]{5}$/.test(code) && isTransientSqlState(code)))
    ) {
      return { code, message: text }
    }
    if (PGLITE_CLOSED.test(text)) return { code: 'PGLITE_CLOSED', message: text }
  }
  return undefined
}

/** SQLSTATE classes 22 (data exception) and 23 (constraint violation): the data, not the database, is at fault. */
export function dataRefused(error: unknown): boolean {
  for (const { code } of causes(error)) if (typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code)) return true
  return false
}

/** Seconds a client is asked to wait before retrying a request that met an unavailable database. */
export const DATABASE_RETRY_AFTER_SECONDS = 1

/**
 * SQLSTATEs that mean the schema is not there: an undefined table (42P01) or column (42703). On a database Trellis
 * manages, that is a database nobody migrated (MIGRATE_ON_START=false and no `trellis migrate`), not a bad request.
 */
const NOT_MIGRATED_STATES = new Set(['42P01', '42703'])

/** The cause behind `error` when it means the database lacks Trellis's tables: it needs `trellis migrate`. */
export function databaseNotMigrated(error: unknown): Unavailable | undefined {
  for (const { code, message } of causes(error)) {
    if (typeof code === 'string' && NOT_MIGRATED_STATES.has(code))
      return { code, message: typeof message === 'string' ? message : '' }
  }
  return undefined
}

/** What every contract says, in its own shape, of a database that has not been migrated. */
export const NOT_MIGRATED_MESSAGE =
  'the database is not migrated: run `trellis migrate` (or start the server with MIGRATE_ON_START=true)'

/** Seconds a client is asked to wait on a database that is not migrated: someone has to act first. */
export const NOT_MIGRATED_RETRY_AFTER_SECONDS = 30

/**
 * `error` as text for a log or a terminal, without the parameters of a failed query: Drizzle's message and stack
 * carry them (`Failed query: …\nparams: …`), and they are what the request sent, a new token's hash included.
 */
export function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  // The failed query may be wrapped (Elysia wraps what a parse hook throws): look down the causes for it.
  const failed = [...causes(error)].find((each) => typeof (each as { query?: unknown }).query === 'string') as
    | (Error & { query: string })
    | undefined
  if (failed === undefined) return error.stack ?? error.message
  const query = failed.query
  // Rebuilt rather than cut: a parameter may hold a line break, so no pattern can tell where the parameters end.
  const cause = (failed as { cause?: unknown }).cause
  const why = cause instanceof Error ? ` (${cause.message})` : ''
  const frames = (failed.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line))
  return [`Failed query: ${query}`, `params: (not logged)${why}`, ...frames].join('\n')
}
