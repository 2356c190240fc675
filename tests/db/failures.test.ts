import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { databaseUnavailable } from '../../src/db/failures'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const coded = (code: string, message = 'boom') => Object.assign(new Error(message), { code })
/** Drizzle wraps the driver's error: "Failed query: …" with the real one in `cause`. */
const wrapped = (cause: unknown) => new Error('Failed query: select 1\nparams: ', { cause })

// One row per failure: what the error hooks must make of it (a code when it means "retry shortly").
const ROWS: { name: string; error: unknown; unavailable: string | undefined }[] = [
  {
    name: 'connection refused',
    error: coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5499'),
    unavailable: 'ECONNREFUSED',
  },
  { name: 'reset mid-query', error: coded('ECONNRESET'), unavailable: 'ECONNRESET' },
  { name: 'postgres.js: connect timeout', error: coded('CONNECT_TIMEOUT'), unavailable: 'CONNECT_TIMEOUT' },
  { name: 'postgres.js: connection closed', error: coded('CONNECTION_CLOSED'), unavailable: 'CONNECTION_CLOSED' },
  {
    name: 'admin shutdown (a restart)',
    error: wrapped(coded('57P01', 'terminating connection due to administrator command')),
    unavailable: '57P01',
  },
  { name: 'starting up', error: wrapped(coded('57P03', 'the database system is starting up')), unavailable: '57P03' },
  { name: 'too many connections', error: coded('53300'), unavailable: '53300' },
  { name: 'connection exception class 08', error: coded('08006'), unavailable: '08006' },
  { name: 'lock timeout', error: coded('55P03'), unavailable: '55P03' },
  { name: 'serialization failure', error: coded('40001'), unavailable: '40001' },
  {
    name: 'PGlite closed (a shutdown in progress)',
    error: new Error('PGlite is closed'),
    unavailable: 'PGLITE_CLOSED',
  },
  {
    name: 'wrapped by Elysia around a parse hook, then by Drizzle',
    error: new Error('Bad Request', { cause: wrapped(coded('ECONNREFUSED')) }),
    unavailable: 'ECONNREFUSED',
  },
  { name: "unique violation: the request's fault", error: wrapped(coded('23505')), unavailable: undefined },
  { name: "a NUL byte in text: the request's fault", error: wrapped(coded('22021')), unavailable: undefined },
  { name: 'syntax error: a bug', error: wrapped(coded('42601')), unavailable: undefined },
  { name: 'a plain bug', error: new TypeError('x is undefined'), unavailable: undefined },
  { name: 'not an error at all', error: 'a string', unavailable: undefined },
]

describe('which failures mean "the database is unavailable, retry shortly"', () => {
  for (const row of ROWS) {
    test(`${row.name} → ${row.unavailable ?? 'not unavailable'}`, () => {
      expect(databaseUnavailable(row.error)?.code).toBe(row.unavailable)
    })
  }

  test('a cycle of causes ends the search instead of looping', () => {
    const a = new Error('a') as Error & { cause?: unknown }
    a.cause = a
    expect(databaseUnavailable(a)).toBeUndefined()
  })
})
