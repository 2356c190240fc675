import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { DrizzleQueryError } from 'drizzle-orm/errors'
import { describeFailure } from '../../src/db/failures'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/*
 * A failed query's parameters are what a request sent (a new token's hash among them): they never reach a log line
 * or a terminal, whatever they hold, however the error was wrapped.
 */

const SECRET = 'SECRET_HASH_0123456789'

describe('describeFailure leaves out every parameter of a failed query', () => {
  test.each([
    ['plain parameters', ['alice', SECRET]],
    ['a parameter with a line break before the secret', ['evil\nowner', SECRET]],
    ['a parameter that looks like the end of the list', ['x\nparams: done', SECRET]],
  ])('%s', (_, params) => {
    const error = new DrizzleQueryError('insert into tokens (owner, hash) values ($1, $2)', params, new Error('boom'))
    const text = describeFailure(error)
    expect(text).not.toContain(SECRET)
    expect(text).toContain('Failed query: insert into tokens (owner, hash) values ($1, $2)')
    expect(text).toContain('params: (not logged) (boom)')
  })

  test('wrapped in another error (as Elysia wraps what a hook throws), the parameters are still left out', () => {
    const inner = new DrizzleQueryError('select 1 where $1', [SECRET], new Error('nope'))
    const outer = new Error('hook failed', { cause: inner })
    expect(describeFailure(outer)).not.toContain(SECRET)
  })

  test('any other error is its stack, as it was', () => {
    const error = new Error('plain')
    expect(describeFailure(error)).toBe(error.stack!)
  })
})
