/**
 * `/v1/messages` under the same governance as chat completions (one admission and settlement
 * for both wire formats): the token's rpm, tpm and model allow-list, refused in Anthropic's shape;
 * one ledger row per request whose tokens are what the answer reported.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import Anthropic, { NotFoundError, RateLimitError } from '@anthropic-ai/sdk'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../../helpers/app'
import { readAll } from '../chat-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp({ transport: 'listening server', env: { ECHO_TOKEN_DELAY_MS: '0' } })
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

/** A token made through the admin API, as an operator would; its owner is unique. */
async function token(body: Record<string, unknown> = {}): Promise<{ token: string; owner: string }> {
  const admin = await t.tokenFor('root', ['admin'])
  const owner = `m-${crypto.randomUUID().slice(0, 8)}`
  const response = await t.request('/admin/tokens', {
    method: 'POST',
    token: admin,
    json: { owner, scopes: ['chat'], ...body },
  })
  expect(response.status).toBe(201)
  return { token: (await response.json()).token, owner }
}

/** Writes the rows the app's ledger has queued now, rather than sleeping past its one-second batch. */
/**
 * The ledger's rows written now, rather than after its 1 s batch delay; then a moment, because
 * `/usage` counts rows strictly before "now" (`to` is exclusive) and a row of this millisecond would not count yet.
 */
const settled = async () => {
  expect(await t.deps.ledger!.flush()).toBe(true)
  await Bun.sleep(5)
}

const sdk = (apiKey: string) => new Anthropic({ apiKey, baseURL: t.origin!, maxRetries: 0 })
const ask = (content = 'hello there', max_tokens = 16) => ({
  model: 'echo',
  max_tokens,
  messages: [{ role: 'user' as const, content }],
})

describe("limits, refused in Anthropic's shape", () => {
  test('rpm: past the limit, a 429 rate_limit_error with Retry-After', async () => {
    const { token: limited } = await token({ limits: { rpm: 2 } })
    const client = sdk(limited)
    await client.messages.create(ask())
    await client.messages.countTokens({ model: 'echo', messages: ask().messages })
    const response = await t.request('/v1/messages', { method: 'POST', headers: { 'x-api-key': limited }, json: ask() })
    expect(response.status).toBe(429)
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(response.headers.get('x-should-retry')).toBeNull()
    expect(await response.json()).toEqual({
      type: 'error',
      error: {
        type: 'rate_limit_error',
        message: 'Rate limit reached for requests: this token may make 2 requests per minute.',
      },
      request_id: response.headers.get('request-id'),
    })
  })

  test('tpm: a request whose reservation (prompt estimate + max_tokens) the bucket cannot hold is a RateLimitError', async () => {
    const { token: limited } = await token({ limits: { tpm: 100 } })
    const client = sdk(limited)
    const answered = await client.messages.create(ask('hello there', 20)).asResponse()
    expect(answered.headers.get('x-ratelimit-limit-tokens')).toBe('100')
    const error = await client.messages.create(ask('hello there', 500)).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(RateLimitError)
    expect((error as RateLimitError).type).toBe('rate_limit_error')
    expect((error as RateLimitError).message).toContain('Rate limit reached for tokens')
  })

  test('a spent monthly budget: a rate_limit_error with x-should-retry: false, which the SDK does not retry', async () => {
    const { token: limited } = await token({ limits: { budget_tokens: 10 } })
    await sdk(limited).messages.create(ask('hello there', 5))
    let requests = 0
    const client = new Anthropic({
      apiKey: limited,
      baseURL: t.origin!,
      maxRetries: 2,
      fetch: (input, init) => (requests++, fetch(input, init)),
    })
    const error = await client.messages.create(ask('hello there', 5)).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(RateLimitError)
    expect((error as RateLimitError).message).toContain('monthly budget')
    expect((error as RateLimitError).headers.get('x-should-retry')).toBe('false')
    expect(requests).toBe(1)
  })

  test("a model outside the token's allow-list is a 404 not_found_error, as one that does not exist", async () => {
    const { token: narrow } = await token({ models: ['echo-reasoner'] })
    const client = sdk(narrow)
    const refused = await client.messages.create(ask()).catch((caught: unknown) => caught)
    expect(refused).toBeInstanceOf(NotFoundError)
    expect((refused as NotFoundError).type).toBe('not_found_error')
    expect(
      await client.messages.countTokens({ model: 'echo', messages: ask().messages }).catch((caught: unknown) => caught),
    ).toBeInstanceOf(NotFoundError)
    const allowed = await client.messages.create({ ...ask(), model: 'echo-reasoner' })
    expect(allowed.content.map((block) => (block.type === 'text' ? block.text : block.type))).toEqual(['hello there'])
  })
})

describe('the ledger', () => {
  test('one row per /v1/messages call (streamed or not, count_tokens none), with the tokens the answers reported', async () => {
    const { token: own, owner } = await token()
    const client = sdk(own)
    const whole = await client.messages.create(ask('the quick brown fox'))
    const streamed = await client.messages
      .stream({
        ...ask('the quick brown fox jumps'),
        model: 'echo-reasoner',
        thinking: { type: 'enabled', budget_tokens: 1024 },
        max_tokens: 2048,
      })
      .finalMessage()
    await client.messages.countTokens({ model: 'echo', messages: ask().messages })
    await settled()
    const body = await (await t.request('/usage?group_by=owner', { token: own })).json()
    const input = (usage: Anthropic.Usage) => usage.input_tokens + (usage.cache_read_input_tokens ?? 0)
    expect(body.data).toEqual([
      {
        owner,
        requests: 2,
        prompt_tokens: input(whole.usage) + input(streamed.usage),
        completion_tokens: whole.usage.output_tokens + streamed.usage.output_tokens,
        cached_tokens: (whole.usage.cache_read_input_tokens ?? 0) + (streamed.usage.cache_read_input_tokens ?? 0),
        reasoning_tokens: expect.any(Number),
        cache_write_tokens: 0,
        // echo costs nothing, and has its price (src/cost/default-prices.ts).
        cost_micros: 0,
        cost_usd: 0,
        unpriced_requests: 0,
        errors: 0,
        estimated_requests: 0,
        estimated_prompt_tokens: 0,
        estimated_completion_tokens: 0,
      },
    ])
    expect(body.data[0].reasoning_tokens).toBeGreaterThan(0)
  })

  test('a refused request leaves an error row with its status', async () => {
    const { token: own } = await token()
    const response = await t.request('/v1/messages', { method: 'POST', token: own, json: { ...ask(), top_k: 3 } })
    expect(response.status).toBe(400)
    await readAll(response)
    await settled()
    const [row] = (await (await t.request('/usage?group_by=owner', { token: own })).json()).data
    expect(row).toMatchObject({ requests: 1, errors: 1 })
  })
})
