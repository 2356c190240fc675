import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/*
 * BODY_LIMIT is a number of bytes a body may have: a body of exactly that many passes, one byte more is
 * a 413, whether its length is declared or it arrives in chunks (issue #29 §5: no test told the two apart).
 */

const LIMIT = 1024
let t: TestApp
let token: string
beforeAll(async () => {
  t = await makeTestApp({ transport: 'listening server', env: { BODY_LIMIT: String(LIMIT) } })
  token = await t.tokenFor('body-limit', ['plants:read', 'plants:write'])
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

/** A valid plant of exactly `bytes` bytes: trailing whitespace is still JSON. */
const plantOf = (bytes: number) => {
  const json = JSON.stringify({ name: 'Fern' })
  return json + ' '.repeat(bytes - json.length)
}

/** The body in several chunks, without a Content-Length. */
const chunked = (text: string) => {
  const bytes = new TextEncoder().encode(text)
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < bytes.length; at += 100) controller.enqueue(bytes.subarray(at, at + 100))
      controller.close()
    },
  })
}

describe.each([
  ['with Content-Length', (text: string) => text],
  ['chunked', chunked],
])('a body %s', (_, body) => {
  test.each([
    [LIMIT, 200],
    [LIMIT + 1, 413],
  ])('of %i bytes answers %i', async (bytes, status) => {
    const response = await fetch(`${t.origin}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body(plantOf(bytes)),
    })
    expect(response.status).toBe(status)
  })
})
