/**
 * `limits.budget_usd` as operators and clients meet it: set, changed and removed through the admin API, refused
 * when it is not an amount of dollars (a 400 naming the field), a default from TRELLIS_DEFAULT_LIMITS, and a spent
 * budget as the OpenAI SDK sees it (InsufficientQuota, not retried). Prices come from TRELLIS_PRICES: echo at
 * $1,000 a million tokens, in and out, so each token costs $0.001 (1,000 micro-dollars).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import OpenAI from 'openai'
import { loadConfig } from '../../src/config'
import { PROVIDER_KINDS } from '../../src/chat/providers'
import { EMPTY_COUNTER_MS } from '../../src/governance/leases'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const PRICES = JSON.stringify({ echo: { input: 1000, output: 1000 } })

let t: TestApp
let admin: string
let sdk: (token: string, maxRetries?: number) => OpenAI
beforeAll(async () => {
  t = await makeTestApp({ transport: 'listening server', env: { ECHO_TOKEN_DELAY_MS: '0', TRELLIS_PRICES: PRICES } })
  admin = await t.tokenFor('root', ['admin'])
  sdk = (token, maxRetries = 0) => new OpenAI({ baseURL: `${t.origin}/v1`, apiKey: token, maxRetries })
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

async function created(limits: Record<string, unknown>): Promise<{ id: string; token: string; limits: unknown }> {
  const response = await t.request('/admin/tokens', {
    method: 'POST',
    token: admin,
    json: { owner: `usd-${crypto.randomUUID().slice(0, 8)}`, scopes: ['chat'], limits },
  })
  expect(response.status).toBe(201)
  return response.json()
}

const patch = (id: string, json: unknown) => t.request(`/admin/tokens/${id}`, { method: 'PATCH', token: admin, json })

/**
 * "hello there" with max_tokens 5 reserves its prompt estimate (4 tokens) + 5 at $0.001: $0.009; echo answers it with
 * 3 prompt and 2 completion tokens: $0.005.
 */
const ask = { model: 'echo', messages: [{ role: 'user' as const, content: 'hello there' }], max_tokens: 5 }

describe('a spent money budget', () => {
  test('is a 429 insufficient_quota naming the dollars, with x-should-retry: false: the SDK asks once', async () => {
    // $0.02: three answers of $0.005 leave $0.005, less than the next one's reservation of $0.009.
    const { token } = await created({ budget_usd: 0.02 })
    for (let i = 0; i < 3; i++) expect((await sdk(token).chat.completions.create(ask)).usage?.total_tokens).toBe(5)
    let requests = 0
    const counting = new OpenAI({
      baseURL: `${t.origin}/v1`,
      apiKey: token,
      maxRetries: 2,
      fetch: (input, init) => (requests++, fetch(input, init)),
    })
    const error = await counting.chat.completions.create(ask).catch((caught) => caught)
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    expect(error.code).toBe('insufficient_quota')
    expect(error.type).toBe('insufficient_quota')
    expect(error.message).toContain(
      "You exceeded this token's monthly budget of $0.02 (this request may cost up to $0.009); it renews at the start of next month (UTC).",
    )
    expect(error.headers.get('x-should-retry')).toBe('false')
    expect(Number(error.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(requests).toBe(1)
  })

  test('a request without max_tokens reserves 4,096 completion tokens: on a $1 budget it is refused, a bounded one is not', async () => {
    const { token } = await created({ budget_usd: 1 })
    const { max_tokens: _, ...unbounded } = ask
    const error = await sdk(token)
      .chat.completions.create(unbounded)
      .catch((caught) => caught)
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    // (4 + 4,096) tokens at $0.001.
    expect(error.message).toContain('this request may cost up to $4.10')
    expect((await sdk(token).chat.completions.create(ask)).choices[0]!.message.content).toBe('hello there')
  })

  test('a model without a price costs nothing: admitted with the budget spent', async () => {
    const { token } = await created({ budget_usd: 0.01 })
    await sdk(token).chat.completions.create(ask)
    expect(
      await sdk(token)
        .chat.completions.create(ask)
        .catch((caught) => caught.code),
    ).toBe('insufficient_quota')
    // echo-reasoner has no price in TRELLIS_PRICES.
    const free = await sdk(token).chat.completions.create({ ...ask, model: 'echo-reasoner' })
    expect(free.choices[0]!.finish_reason).toBeTruthy()
  })
})

describe('the admin API', () => {
  test('sets budget_usd, shows it, raises it, and removes it with null: the next request is admitted again', async () => {
    // $0.01: one answer of $0.005 leaves less than the next one's reservation of $0.009.
    const made = await created({ budget_usd: 0.01, rpm: 1000 })
    expect(made.limits).toEqual({ budget_usd: 0.01, rpm: 1000 })
    await sdk(made.token).chat.completions.create(ask)
    expect(
      await sdk(made.token)
        .chat.completions.create(ask)
        .catch((caught) => caught.code),
    ).toBe('insufficient_quota')
    // Raised: the month's spend stays, the headroom grows (once the pool, found empty, is asked again: 250 ms).
    const raised = await patch(made.id, { limits: { budget_usd: 0.5 } })
    expect(raised.status).toBe(200)
    expect((await raised.json()).limits).toEqual({ budget_usd: 0.5, rpm: 1000 })
    await Bun.sleep(EMPTY_COUNTER_MS + 50)
    expect((await sdk(made.token).chat.completions.create(ask)).usage?.total_tokens).toBe(5)
    // Removed: no budget of that kind at all.
    const removed = await patch(made.id, { limits: { budget_usd: null } })
    expect((await removed.json()).limits).toEqual({ rpm: 1000 })
    for (let i = 0; i < 3; i++) expect((await sdk(made.token).chat.completions.create(ask)).usage?.total_tokens).toBe(5)
  })

  const BAD: [string, unknown][] = [
    ['zero', 0],
    ['negative', -5],
    ['below one micro-dollar', 0.0000001],
    ['above a billion dollars', 2_000_000_000],
    ['a numeric string', '25'],
    ['a boolean', true],
  ]
  test.each(BAD)('POST and PATCH refuse budget_usd %s with a 400 naming the field', async (_, value) => {
    const create = await t.request('/admin/tokens', {
      method: 'POST',
      token: admin,
      json: { owner: 'bad-usd', scopes: ['chat'], limits: { budget_usd: value } },
    })
    expect(create.status).toBe(400)
    expect((await create.json()).message).toContain('budget_usd')
    const { id } = await created({})
    const change = await patch(id, { limits: { budget_usd: value } })
    expect(change.status).toBe(400)
    expect((await change.json()).message).toContain('budget_usd')
  })
})

describe('defaults', () => {
  test('TRELLIS_DEFAULT_LIMITS budget_usd applies to a token without one', async () => {
    const defaulted = await makeTestApp({
      transport: 'listening server',
      env: { ECHO_TOKEN_DELAY_MS: '0', TRELLIS_PRICES: PRICES, TRELLIS_DEFAULT_LIMITS: '{"budget_usd": 0.01}' },
    })
    try {
      const token = await defaulted.tokenFor('plain', ['chat'])
      const client = new OpenAI({ baseURL: `${defaulted.origin}/v1`, apiKey: token, maxRetries: 0 })
      await client.chat.completions.create(ask)
      expect(await client.chat.completions.create(ask).catch((caught) => caught.code)).toBe('insufficient_quota')
    } finally {
      await defaulted.close()
    }
  })

  test.each([
    ['{"budget_usd": 0}', 'TRELLIS_DEFAULT_LIMITS: /budget_usd'],
    ['{"budget_usd": "5"}', 'TRELLIS_DEFAULT_LIMITS: /budget_usd'],
  ])('TRELLIS_DEFAULT_LIMITS=%s stops the start, naming the field', (raw, message) => {
    expect(() => loadConfig({ TRELLIS_DEFAULT_LIMITS: raw }, PROVIDER_KINDS)).toThrow(message)
  })
})
