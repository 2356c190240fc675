/**
 * `POST /v1/embeddings` under the token's governance, as chat completions are (one admission and
 * settlement for every wire format): tpm reserves the inputs' estimate and settles with the
 * usage echo counted; rpm; the model allow-list; one ledger row per request with no completion
 * tokens; the chat metrics.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import OpenAI, { NotFoundError, RateLimitError } from 'openai'
import { tokenize } from '../../../src/chat/providers/echo/tokenizer'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp({ transport: 'listening server' })
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

/** A token made through the admin API, as an operator would; its owner is unique. */
async function token(body: Record<string, unknown> = {}): Promise<{ token: string; owner: string }> {
  const admin = await t.tokenFor('root', ['admin'])
  const owner = `e-${crypto.randomUUID().slice(0, 8)}`
  const response = await t.request('/admin/tokens', {
    method: 'POST',
    token: admin,
    json: { owner, scopes: ['chat'], ...body },
  })
  expect(response.status).toBe(201)
  return { token: (await response.json()).token, owner }
}

const sdk = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${t.origin}/v1`, maxRetries: 0 })
const embed = (apiKey: string, body: Record<string, unknown>) =>
  t.request('/v1/embeddings', { method: 'POST', token: apiKey, json: { model: 'echo', dimensions: 4, ...body } })

/**
 * The ledger's rows written now, rather than after its 1 s batch delay; then a moment, because
 * `/usage` counts rows strictly before "now" and a row of this millisecond would not count yet.
 */
const settled = async () => {
  expect(await t.deps.ledger!.flush()).toBe(true)
  await Bun.sleep(5)
}

describe('limits', () => {
  test("tpm: a request whose inputs' estimate (a token per 3 bytes) the bucket cannot hold is a RateLimitError", async () => {
    const { token: limited } = await token({ limits: { tpm: 100 } })
    const client = sdk(limited)
    const answered = await client.embeddings.create({ model: 'echo', input: 'x'.repeat(150) }).asResponse()
    expect(answered.headers.get('x-ratelimit-limit-tokens')).toBe('100')
    const error = await client.embeddings
      .create({ model: 'echo', input: ['y'.repeat(150), 'z'.repeat(150)] })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(RateLimitError)
    expect((error as RateLimitError).code).toBe('rate_limit_exceeded')
    expect((error as RateLimitError).message).toContain('Rate limit reached for tokens')
    expect(Number((error as RateLimitError).headers?.get('retry-after'))).toBeGreaterThan(0)
  })

  test('tpm settles with the usage counted: a 200-token estimate that echo counts as 1 token gives the rest back', async () => {
    const { token: limited } = await token({ limits: { tpm: 300 } })
    // 600 bytes: reserved as 200 tokens, one token by echo's tokenizer. Without the settlement
    // giving back 199, the bucket would hold 100 after the first and refuse the second.
    for (const letter of ['a', 'b', 'c']) {
      const response = await embed(limited, { input: letter.repeat(600) })
      expect(response.status).toBe(200)
      expect((await response.json()).usage.prompt_tokens).toBe(1)
      await Bun.sleep(20)
    }
  })

  test('rpm: past the limit, a 429 rate_limit_exceeded of type requests', async () => {
    const { token: limited } = await token({ limits: { rpm: 2 } })
    expect((await embed(limited, { input: 'one' })).status).toBe(200)
    expect((await embed(limited, { input: 'two' })).status).toBe(200)
    const refused = await embed(limited, { input: 'three' })
    expect(refused.status).toBe(429)
    expect((await refused.json()).error).toMatchObject({ code: 'rate_limit_exceeded', type: 'requests' })
  })

  test("a model outside the token's allow-list is a 404 word for word as one that does not exist", async () => {
    const { token: narrow } = await token({ models: ['echo-reasoner'] })
    const outside = await embed(narrow, { model: 'echo', input: 'x' })
    const missing = await embed(narrow, { model: 'no-such-model', input: 'x' })
    expect(outside.status).toBe(404)
    const [a, b] = [(await outside.json()).error, (await missing.json()).error]
    expect(a).toEqual({ ...b, message: b.message.replace('no-such-model', 'echo') })
    expect(
      await sdk(narrow)
        .embeddings.create({ model: 'echo', input: 'x' })
        .catch((caught: unknown) => caught),
    ).toBeInstanceOf(NotFoundError)
    expect((await embed(narrow, { model: 'echo-reasoner', input: 'x' })).status).toBe(200)
  })
})

describe('the ledger', () => {
  test("one row per request: echo's tokens as the prompt, no completion tokens; refused bodies leave none", async () => {
    const { token: own, owner } = await token()
    const input = ['Hello, world!', 'The quick brown fox']
    const tokens = input.reduce((sum, text) => sum + tokenize(text).length, 0)
    expect((await embed(own, { input })).status).toBe(200)
    expect((await embed(own, { input: [[1, 2, 3]] })).status).toBe(200)
    expect((await embed(own, { input: '' })).status).toBe(400)
    await settled()
    const { data } = await (await t.request('/usage?group_by=owner,model', { token: own })).json()
    expect(data).toEqual([
      {
        owner,
        model: 'echo',
        requests: 2,
        prompt_tokens: tokens + 3,
        completion_tokens: 0,
        cached_tokens: 0,
        reasoning_tokens: 0,
        cache_write_tokens: 0,
        cost_micros: 0,
        cost_usd: 0,
        unpriced_requests: 0,
        errors: 0,
        estimated_requests: 0,
        estimated_prompt_tokens: 0,
        estimated_completion_tokens: 0,
      },
    ])
  })

  test("an answer the provider refuses (echo's dimensions bound) is an error row", async () => {
    const { token: own } = await token()
    expect((await embed(own, { input: 'x', dimensions: 5000 })).status).toBe(400)
    await settled()
    const [row] = (await (await t.request('/usage?group_by=owner', { token: own })).json()).data
    expect(row).toMatchObject({ requests: 1, errors: 1 })
  })
})

test('the chat metrics count embeddings: prompt tokens by model and provider', async () => {
  const metricsToken = await t.tokenFor('prometheus', ['metrics'])
  const promptTokens = async () => {
    const text = await (await t.request('/metrics', { token: metricsToken })).text()
    const line = text.split('\n').find((l) => l.startsWith('trellis_chat_tokens_total{') && l.includes('kind="prompt"'))
    return line ? Number(line.split(' ').at(-1)) : 0
  }
  const before = await promptTokens()
  const { token: own } = await token()
  expect((await embed(own, { input: 'one two three four five' })).status).toBe(200)
  expect(await promptTokens()).toBe(before + 5)
})
