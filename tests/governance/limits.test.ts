/**
 * Each limit, respected and broken: rpm on the plant store (plain HTTP) and on chat (the `openai`
 * SDK and its RateLimitError), tpm, streams in flight, the monthly budget (insufficient_quota),
 * defaults from TRELLIS_DEFAULT_LIMITS, the model allow-list, and OpenAI's rate-limit headers.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import OpenAI from 'openai'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let t: TestApp
let sdk: (token: string) => OpenAI
beforeAll(async () => {
  t = await makeTestApp({ transport: 'listening server', env: { ECHO_TOKEN_DELAY_MS: '0' } })
  sdk = (token) => new OpenAI({ baseURL: `${t.origin}/v1`, apiKey: token, maxRetries: 0 })
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

/** A token made through the admin API, as an operator would. */
async function token(body: Record<string, unknown>): Promise<string> {
  const admin = await t.tokenFor('root', ['admin'])
  const response = await t.request('/admin/tokens', {
    method: 'POST',
    token: admin,
    json: { owner: `o-${crypto.randomUUID().slice(0, 8)}`, scopes: ['plants:read', 'plants:write', 'chat'], ...body },
  })
  expect(response.status).toBe(201)
  return (await response.json()).token
}

const ask = (content = 'hello there') => ({ model: 'echo', messages: [{ role: 'user' as const, content }] })

describe('rpm', () => {
  test('the plant store: the first rpm requests pass, the next is 429 in the {error, message} contract with Retry-After', async () => {
    const limited = await token({ limits: { rpm: 5 } })
    const statuses: number[] = []
    let refused: Response | undefined
    for (let i = 0; i < 8; i++) {
      const response = await t.request('/plants', { token: limited })
      statuses.push(response.status)
      if (response.status === 429) refused ??= response
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429])
    expect(await refused!.json()).toEqual({
      error: 429,
      message: 'Rate limit reached for requests: this token may make 5 requests per minute.',
    })
    // A bucket of 5 refilled at 5 a minute: the next request is one 12 s away.
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(11)
    expect(Number(refused!.headers.get('retry-after'))).toBeLessThanOrEqual(12)
  })

  test('chat: the openai SDK raises RateLimitError with code rate_limit_exceeded and type requests', async () => {
    const limited = await token({ limits: { rpm: 2 } })
    const client = sdk(limited)
    await client.chat.completions.create(ask())
    await client.chat.completions.create(ask())
    const error = await client.chat.completions.create(ask()).catch((caught) => caught)
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    expect(error.status).toBe(429)
    expect(error.code).toBe('rate_limit_exceeded')
    expect(error.type).toBe('requests')
    expect(Number(error.headers.get('retry-after'))).toBeGreaterThan(0)
  })

  test('a token without limits is never refused, and its answers carry no rate-limit headers', async () => {
    const free = await token({})
    for (let i = 0; i < 30; i++) expect((await t.request('/plants', { token: free })).status).toBe(200)
    const response = await t.request('/v1/chat/completions', { method: 'POST', token: free, json: ask() })
    expect(response.headers.get('x-ratelimit-limit-requests')).toBeNull()
  })
})

describe('tpm', () => {
  test('a request whose reservation the bucket cannot hold is 429 type tokens; the usage actually used is what counts after', async () => {
    // "hello there" reserves about 4 prompt tokens + max_tokens 10 = 14; uses 3 + 2 = 5 (echo: <|user|> hello there).
    const limited = await token({ limits: { tpm: 30 } })
    const client = sdk(limited)
    const first = await client.chat.completions.create({ ...ask(), max_tokens: 10 })
    expect(first.usage!.total_tokens).toBeLessThan(10)
    // Settled at real usage, so more of the 30 are left than the reservations would suggest.
    await client.chat.completions.create({ ...ask(), max_tokens: 10 })
    await client.chat.completions.create({ ...ask(), max_tokens: 10 })
    const error = await client.chat.completions.create({ ...ask(), max_tokens: 25 }).catch((caught) => caught)
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    expect(error.type).toBe('tokens')
    expect(error.code).toBe('rate_limit_exceeded')
  })

  test("chat answers of a limited token carry OpenAI's x-ratelimit headers", async () => {
    const limited = await token({ limits: { rpm: 100, tpm: 100_000 } })
    const response = await t.request('/v1/chat/completions', {
      method: 'POST',
      token: limited,
      json: { ...ask(), max_tokens: 16 },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('100')
    expect(Number(response.headers.get('x-ratelimit-remaining-requests'))).toBeLessThan(100)
    expect(response.headers.get('x-ratelimit-reset-requests')).toMatch(/^\d+(ms|s)|\d+m\d+s$/)
    expect(response.headers.get('x-ratelimit-limit-tokens')).toBe('100000')
    expect(Number(response.headers.get('x-ratelimit-remaining-tokens'))).toBeLessThan(100_000)
    expect(response.headers.get('x-ratelimit-reset-tokens')).toBeTruthy()
  })
})

describe('streams', () => {
  test('past the number of chat requests in flight: 429; once one ends, another may start', async () => {
    const slow = await makeTestApp({ transport: 'listening server', env: { ECHO_TOKEN_DELAY_MS: '40' } })
    try {
      const admin = await slow.tokenFor('root', ['admin'])
      const created = await slow.request('/admin/tokens', {
        method: 'POST',
        token: admin,
        json: { owner: 'streamer', scopes: ['chat'], limits: { streams: 2 } },
      })
      const limited = (await created.json()).token
      const open = () =>
        slow.request('/v1/chat/completions', {
          method: 'POST',
          token: limited,
          json: { ...ask('one two three four five six seven eight'), stream: true },
        })
      const first = await open()
      const second = await open()
      expect([first.status, second.status]).toEqual([200, 200])
      const third = await open()
      expect(third.status).toBe(429)
      expect((await third.json()).error).toMatchObject({ code: 'rate_limit_exceeded', type: 'requests' })
      await first.text()
      const fourth = await open()
      expect(fourth.status).toBe(200)
      await Promise.all([second.text(), fourth.text()])
    } finally {
      await slow.close()
    }
  })
})

describe('budget_tokens', () => {
  test("spent, the month's budget is 429 insufficient_quota (InsufficientQuota in the SDK's terms) until the month turns", async () => {
    const limited = await token({ limits: { budget_tokens: 40 } })
    const client = sdk(limited)
    let error: unknown
    for (let i = 0; i < 20 && !error; i++)
      error = await client.chat.completions.create({ ...ask(), max_tokens: 5 }).then(
        () => undefined,
        (caught) => caught,
      )
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('insufficient_quota')
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).type).toBe('insufficient_quota')
  })

  // The budget renews with the month: an SDK's immediate retries would only spend requests.
  test('spent, the 429 says x-should-retry: false, and the SDK, retries allowed, asks once', async () => {
    const limited = await token({ limits: { budget_tokens: 10 } })
    await sdk(limited).chat.completions.create({ ...ask(), max_tokens: 5 })
    let requests = 0
    const counting = new OpenAI({
      baseURL: `${t.origin}/v1`,
      apiKey: limited,
      maxRetries: 2,
      fetch: (input, init) => (requests++, fetch(input, init)),
    })
    const error = await counting.chat.completions.create({ ...ask(), max_tokens: 5 }).catch((caught) => caught)
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    expect(error.code).toBe('insufficient_quota')
    expect(error.headers.get('x-should-retry')).toBe('false')
    expect(requests).toBe(1)
  })

  test('a rate limit (rpm, tpm) does not say x-should-retry: its bucket refills within the minute', async () => {
    const rpm = await token({ limits: { rpm: 1 } })
    await sdk(rpm).chat.completions.create(ask())
    const requests = await sdk(rpm)
      .chat.completions.create(ask())
      .catch((caught) => caught)
    // As in the tpm test above: three answers leave the bucket unable to hold a reservation of 25 more.
    const tpm = sdk(await token({ limits: { tpm: 30 } }))
    for (let i = 0; i < 3; i++) await tpm.chat.completions.create({ ...ask(), max_tokens: 10 })
    const tokens = await tpm.chat.completions.create({ ...ask(), max_tokens: 25 }).catch((caught) => caught)
    for (const error of [requests, tokens]) {
      expect(error).toBeInstanceOf(OpenAI.RateLimitError)
      expect(error.code).toBe('rate_limit_exceeded')
      expect(error.headers.get('x-should-retry')).toBeNull()
    }
  })
})

describe('defaults and allow-lists', () => {
  test('TRELLIS_DEFAULT_LIMITS applies to a token without limits of its own, field by field', async () => {
    const defaulted = await makeTestApp({ env: { TRELLIS_DEFAULT_LIMITS: '{"rpm":3}' } })
    try {
      const plain = await defaulted.tokenFor('plain')
      const statuses = []
      for (let i = 0; i < 4; i++) statuses.push((await defaulted.request('/plants', { token: plain })).status)
      expect(statuses).toEqual([200, 200, 200, 429])
    } finally {
      await defaulted.close()
    }
  })

  test('a model outside the allow-list is 404 model_not_found, exactly like one that does not exist, and /models lists only the allowed', async () => {
    const narrow = await token({ models: ['echo'] })
    const client = sdk(narrow)
    expect((await client.models.list()).data.map((model) => model.id)).toEqual(['echo'])
    const hidden = await client.chat.completions.create({ ...ask(), model: 'echo-reasoner' }).catch((caught) => caught)
    const missing = await client.chat.completions.create({ ...ask(), model: 'nonesuch' }).catch((caught) => caught)
    expect(hidden).toBeInstanceOf(OpenAI.NotFoundError)
    expect(hidden.code).toBe('model_not_found')
    expect(hidden.message.replace('echo-reasoner', 'X')).toBe(missing.message.replace('nonesuch', 'X'))
    expect((await t.request('/v1/models/echo-reasoner', { token: narrow })).status).toBe(404)
    expect((await client.chat.completions.create(ask())).choices[0]!.message.content).toBe('hello there')
  })
})
