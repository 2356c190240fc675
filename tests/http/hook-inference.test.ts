/**
 * Elysia reads the source of every hook to decide what each request must parse (its "sucrose" inference). A hook that
 * hands its whole context to another function counts as using all of it, so every request of every route parsed its
 * cookies and query: the error-hook wrapper did that until #31's profile found cookie parsing on the chat relay.
 */
import { expect, setDefaultTimeout, test } from 'bun:test'
import { sucrose } from 'elysia/sucrose'
import { jsonErrors, recordingStatus } from '../../src/http/json-errors'
import { createLogger } from '../../src/telemetry/logger'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const inferred = (hook: (...args: never[]) => unknown) => sucrose({ error: [hook] } as never)

test('an error hook wrapped to record its status makes no request parse its cookies, query or body', () => {
  const hooks = [recordingStatus(({ set }) => new Response(null, { status: 418, headers: { x: String(set.status) } }))]
  hooks.push(jsonErrors(createLogger('error', () => {})))
  for (const hook of hooks)
    expect(inferred(hook)).toMatchObject({ cookie: false, query: false, body: false, headers: false })
})

test('the check can fail: a hook that hands its whole context on is inferred to use everything', () => {
  const leaky = (context: { set: { status?: unknown } }) => Response.json(context)
  expect(inferred(leaky)).toMatchObject({ cookie: true, query: true, body: true })
})

test('the wrapper still records the status it answers, for the request log', () => {
  const set: { headers: Record<string, unknown>; status?: unknown } = { headers: {} }
  const response = recordingStatus(() => new Response(null, { status: 415 }))({
    code: 'UNKNOWN',
    error: new Error('x'),
    request: new Request('http://localhost/'),
    set,
  })
  expect([response.status, set.status]).toEqual([415, 415])
})
