/**
 * Limits at their edges (issue #29 §5): what a mutation check showed no test would notice. A chat
 * refused for its stream limit gives back what it reserved; `Retry-After` and the tokens' reset
 * are exactly the wait they announce.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let t: TestApp
let admin: string
beforeAll(async () => {
  // Echo's tokens come 200 ms apart, so a stream of its few words stays open for about a second while others are
  // refused, even on a loaded machine (30 ms apart, the ten refusals once outlasted it).
  t = await makeTestApp({ transport: 'listening server', env: { ECHO_TOKEN_DELAY_MS: '200' } })
  admin = await t.tokenFor('root', ['admin'])
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

async function token(limits: Record<string, number>): Promise<string> {
  const owner = `edge-${crypto.randomUUID().slice(0, 8)}`
  const response = await t.request('/admin/tokens', {
    method: 'POST',
    token: admin,
    json: { owner, scopes: ['plants:read', 'chat'], limits },
  })
  expect(response.status).toBe(201)
  return (await response.json()).token
}

const chat = (bearer: string, body: Record<string, unknown>) =>
  t.request('/v1/chat/completions', {
    method: 'POST',
    token: bearer,
    json: { model: 'echo', messages: [{ role: 'user', content: 'one two three four' }], ...body },
  })

describe('a chat refused on its stream limit gives back what it had reserved', () => {
  test('ten refusals drain neither the budget nor tpm: once the stream ends, a request of the same size passes', async () => {
    // Each request reserves its prompt (a few tokens) + max_tokens 100, of a budget and a tpm of 600.
    const limited = await token({ streams: 1, budget_tokens: 600, tpm: 600 })
    const admitted = performance.now()
    const held = await chat(limited, { stream: true, max_tokens: 100, stream_options: { include_usage: true } })
    expect(held.status).toBe(200)
    for (let i = 0; i < 10; i++) {
      const refused = await chat(limited, { stream: true, max_tokens: 100 })
      expect(refused.status).toBe(429)
      expect((await refused.json()).error.message).toContain('in flight')
    }
    const heldUsage = JSON.parse(/data: (\{[^\n]*"usage":\{[^\n]*)\n/.exec(await held.text())![1]!).usage.total_tokens
    // Without the give-back, 10 × 106 reserved tokens would be gone and this would be 429.
    const after = await chat(limited, { max_tokens: 100 })
    expect(after.status).toBe(200)
    // Left of tpm when it was admitted: 600, less the held stream's real usage, less this request's own
    // reservation (its 6-token prompt estimate + 100); nothing of the refused ones. Meanwhile tpm refilled at 10
    // tokens a second, hence the margin of the time that passed.
    const refilled = Math.ceil(((performance.now() - admitted) / 1000) * 10)
    const remaining = Number(after.headers.get('x-ratelimit-remaining-tokens'))
    expect(remaining).toBeGreaterThanOrEqual(600 - heldUsage - 106)
    expect(remaining).toBeLessThanOrEqual(600 - heldUsage - 106 + refilled)
  })
})

describe('the waits a 429 announces are exact', () => {
  test('rpm 5: the sixth request is told Retry-After: 12, the time one request takes to refill, rounded up', async () => {
    const limited = await token({ rpm: 5 })
    for (let i = 0; i < 5; i++) expect((await t.request('/plants', { token: limited })).status).toBe(200)
    const refused = await t.request('/plants', { token: limited })
    expect(refused.status).toBe(429)
    // One request of a bucket of 5 refilled at 5 a minute: 12 s, less the few milliseconds since; rounded up.
    expect(refused.headers.get('retry-after')).toBe('12')
  })

  test('tpm 60: x-ratelimit-reset-tokens is one second per token used, as OpenAI spells a duration', async () => {
    const limited = await token({ tpm: 60 })
    const response = await chat(limited, { max_tokens: 5 })
    expect(response.status).toBe(200)
    const remaining = Number(response.headers.get('x-ratelimit-remaining-tokens'))
    expect(remaining).toBeLessThan(60)
    // 60 tokens a minute refill one a second: the reset is (60 − remaining) seconds, rounded up.
    expect(response.headers.get('x-ratelimit-reset-tokens')).toBe(`${60 - remaining}s`)
  })

  test('tpm refused: Retry-After is the refill time of the tokens the request is short of, rounded up', async () => {
    const limited = await token({ tpm: 60 })
    expect((await chat(limited, { max_tokens: 40 })).status).toBe(200)
    // The prompt "one two three four" is 18 bytes, estimated at 6 tokens: this request reserves 6 + 50 = 56.
    const refused = await chat(limited, { max_tokens: 50 })
    expect(refused.status).toBe(429)
    const left = Number(refused.headers.get('x-ratelimit-remaining-tokens'))
    // Short by 56 − left tokens (left is rounded down), refilled at one a second: exactly that many seconds.
    expect(refused.headers.get('retry-after')).toBe(String(56 - left))
  })
})
