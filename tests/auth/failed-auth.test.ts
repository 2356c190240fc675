/**
 * Token guessing costs the guesser: failed authentications are throttled per client address, and a
 * flood of random tokens neither evicts live tokens from the cache nor locks out other addresses.
 * TRUST_PROXY decides whether X-Forwarded-For names the address.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let t: TestApp
let valid: string
beforeAll(async () => {
  t = await makeTestApp({ env: { TRUST_PROXY: 'true', AUTH_FAILURES_PER_MINUTE: '10' } })
  valid = await t.tokenFor('legit')
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const guess = () => `trl_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')}`
const from = (address: string, token: string) =>
  t.request('/plants', { token, headers: { 'x-forwarded-for': `203.0.113.9, ${address}` } })

test('ten failures from one address, then 429 with Retry-After before any lookup; other addresses and cached tokens are untouched', async () => {
  expect((await from('198.51.100.1', valid)).status).toBe(200)
  const statuses: number[] = []
  for (let i = 0; i < 2_000; i++) statuses.push((await from('198.51.100.66', guess())).status)
  expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401))
  expect(new Set(statuses.slice(10))).toEqual(new Set([429]))
  const throttled = await from('198.51.100.66', guess())
  expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0)
  expect((await throttled.json()).message).toContain('Too many failed authentication attempts')
  // The live token, verified before the flood, is still cached and still answers from anywhere...
  expect((await from('198.51.100.66', valid)).status).toBe(200)
  // ...and another address is not held to the guesser's budget.
  expect((await from('198.51.100.2', guess())).status).toBe(401)
})

test('without TRUST_PROXY, X-Forwarded-For is not believed: a forged header buys no fresh budget', async () => {
  const plain = await makeTestApp({ env: { AUTH_FAILURES_PER_MINUTE: '5' } })
  try {
    const statuses: number[] = []
    for (let i = 0; i < 20; i++)
      statuses.push(
        (await plain.request('/plants', { token: guess(), headers: { 'x-forwarded-for': `10.0.0.${i}` } })).status,
      )
    expect(statuses.filter((status) => status === 429).length).toBe(15)
  } finally {
    await plain.close()
  }
})
