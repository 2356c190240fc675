/**
 * What a request costs, through real requests: each ledger row is priced once, from its exact counts (cache reads and
 * writes, reasoning), by the price version in effect, and refers to that version; `GET /usage` totals it, `/metrics`
 * counts it per model, and a token that asks for it gets `x-trellis-cost`. Costs here are computed by hand from the
 * prices in US dollars per million tokens: tokens × price / 1,000,000 dollars, rounded half up to a micro-dollar.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { asc, eq } from 'drizzle-orm'
import type { Pricing } from '../../src/cost/pricing'
import { usageRecords } from '../../src/db/schema'
import { useMockAnthropic } from '../chat/mock-anthropic'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const usage = (prompt: number, completion: number, extra: Record<string, number> = {}) => [
  { usage: { prompt_tokens: prompt, completion_tokens: completion, ...extra } },
  { text: 'a b c d e f g h i j' },
]

const SCENARIO = {
  rules: [
    { match: { last_user: 'plain' }, reply: usage(1000, 500, { reasoning_tokens: 0 }) },
    {
      match: { last_user: 'everything' },
      reply: usage(1000, 500, { cached_tokens: 400, cache_write_tokens: 100, reasoning_tokens: 200 }),
    },
    { match: { last_user: 'one token' }, reply: usage(1, 0, { reasoning_tokens: 0 }) },
    { match: { last_user: 'all cached' }, reply: usage(3000, 7, { cached_tokens: 3000, reasoning_tokens: 7 }) },
    { match: { last_user: 'long' }, reply: [{ gap_ms: 30 }, { text: 'w '.repeat(200) }] },
  ],
}

/** US dollars per million tokens, as an author writes them. */
const PRICES = {
  priced: { input: 2.5, cached_input: 1.25, cache_write: 3.125, output: 10, reasoning: 12, from: '2026-01-01' },
  'claude/claude-sonnet-4-5': { input: 3, cached_input: 0.3, cache_write: 3.75, output: 15 },
}

const anthropic = useMockAnthropic()
let t: TestApp
let pricing: Pricing
let plain: string
let shown: string

beforeAll(async () => {
  const claude = { kind: 'anthropic', baseUrl: anthropic.baseUrl, apiKey: 'sk-ant-upstream', maxRetries: 0 }
  const env = {
    ECHO_TOKEN_DELAY_MS: '0',
    CHAT_PROVIDERS: JSON.stringify({ script: { kind: 'script', scenario: SCENARIO }, claude }),
    CHAT_MODELS: JSON.stringify({
      priced: [{ provider: 'script', model: 'scripted' }],
      mystery: [{ provider: 'script', model: 'mystery-upstream' }],
      claude: [{ provider: 'claude', model: 'claude-sonnet-4-5' }],
    }),
    TRELLIS_PRICES: JSON.stringify(PRICES),
  }
  t = await makeTestApp({ env })
  pricing = t.deps.pricing!
  plain = await t.tokenFor('payer', ['chat'])
  const created = await t.deps.tokens.create({ owner: 'payer', scopes: ['chat'], costHeader: true })
  shown = created.token
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

async function chat(content: string, options: { model?: string; token?: string; stream?: boolean } = {}) {
  const response = await t.request('/v1/chat/completions', {
    method: 'POST',
    token: options.token ?? plain,
    headers: { 'x-request-id': `cost-${crypto.randomUUID()}` },
    json: { model: options.model ?? 'priced', messages: [{ role: 'user', content }], stream: options.stream },
  })
  expect(response.status).toBe(200)
  return { response, text: await response.text() }
}

/** The ledger's row of the request that `response` answered. */
async function rowOf(response: Response) {
  await t.deps.ledger!.flush()
  const requestId = response.headers.get('x-request-id')!
  const [row] = await t.deps.database.db.select().from(usageRecords).where(eq(usageRecords.requestId, requestId))
  return row!
}

describe('each row is priced from its exact counts, rounded once', () => {
  const CASES = [
    // prompt 1000 at 2.50 + completion 500 at 10.00 = 2,500 + 5,000 µ$
    { case: 'plain', micros: 7_500, counts: { prompt: 1000, completion: 500, cached: 0, write: 0, reasoning: 0 } },
    // 500 uncached × 2.50 + 400 cached × 1.25 + 100 written × 3.125 + 300 output × 10 + 200 reasoning × 12
    // = 1,250 + 500 + 312.5 + 3,000 + 2,400 = 7,462.5 → 7,463 (half up, once for the row)
    {
      case: 'everything',
      micros: 7_463,
      counts: { prompt: 1000, completion: 500, cached: 400, write: 100, reasoning: 200 },
    },
    // 1 × 2.50 = 2.5 → 3
    { case: 'one token', micros: 3, counts: { prompt: 1, completion: 0, cached: 0, write: 0, reasoning: 0 } },
    // 3,000 cached × 1.25 + 7 reasoning × 12 = 3,750 + 84
    {
      case: 'all cached',
      micros: 3_834,
      counts: { prompt: 3000, completion: 7, cached: 3000, write: 0, reasoning: 7 },
    },
  ]
  for (const { case: name, micros, counts } of CASES)
    test(`${name}: ${micros} µ$`, async () => {
      const { response } = await chat(name)
      const row = await rowOf(response)
      expect({
        prompt: row.promptTokens,
        completion: row.completionTokens,
        cached: row.cachedTokens,
        write: row.cacheWriteTokens,
        reasoning: row.reasoningTokens,
      }).toEqual(counts)
      expect(row.costMicros).toBe(micros)
      const version = pricing.versions().find((each) => each.model === 'priced')!
      expect(row.priceVersion).toBe(Number(version.id))
    })

  test('a streamed answer costs the same as a whole one', async () => {
    const { response } = await chat('everything', { stream: true })
    expect((await rowOf(response)).costMicros).toBe(7_463)
  })
})

describe('an Anthropic upstream: cache reads and writes priced, translated and native', () => {
  // 40 input × 3 + 1,200 read × 0.30 + 30 written × 3.75 + 25 output × 15 = 120 + 360 + 112.5 + 375 = 967.5 → 968
  const USAGE = { input_tokens: 40, output_tokens: 25, cache_read_input_tokens: 1200, cache_creation_input_tokens: 30 }
  const expected = {
    promptTokens: 1270,
    cachedTokens: 1200,
    cacheWriteTokens: 30,
    completionTokens: 25,
    costMicros: 968,
  }
  const pick = (row: typeof usageRecords.$inferSelect) => ({
    promptTokens: row.promptTokens,
    cachedTokens: row.cachedTokens,
    cacheWriteTokens: row.cacheWriteTokens,
    completionTokens: row.completionTokens,
    costMicros: row.costMicros,
  })

  for (const stream of [false, true])
    test(`translated to OpenAI's format${stream ? ', streamed' : ''}: the answer shows the writes`, async () => {
      anthropic.script({ usage: USAGE })
      const { response, text } = await chat('hi', { model: 'claude', stream })
      expect(pick(await rowOf(response))).toEqual(expected)
      if (!stream)
        expect(JSON.parse(text).usage.prompt_tokens_details).toEqual({ cached_tokens: 1200, cache_write_tokens: 30 })
    })

  for (const stream of [false, true])
    test(`native Messages${stream ? ', streamed' : ''}`, async () => {
      anthropic.script({ usage: USAGE })
      const response = await t.request('/v1/messages', {
        method: 'POST',
        token: plain,
        headers: { 'anthropic-version': '2023-06-01' },
        json: { model: 'claude', max_tokens: 64, stream, messages: [{ role: 'user', content: 'hi' }] },
      })
      expect(response.status).toBe(200)
      await response.text()
      expect(pick(await rowOf(response))).toEqual(expected)
    })

  test('the Responses API shows the writes apart', async () => {
    anthropic.script({ usage: USAGE })
    const response = await t.request('/v1/responses', {
      method: 'POST',
      token: plain,
      json: { model: 'claude', input: 'hi' },
    })
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body.usage.input_tokens_details).toEqual({ cached_tokens: 1200, cache_write_tokens: 30 })
    expect(pick(await rowOf(response))).toEqual(expected)
  })
})

describe('a streamed answer cut short by the client', () => {
  test('costs what was counted: the prompt and the events sent', async () => {
    const controller = new AbortController()
    const response = await t.request('/v1/chat/completions', {
      method: 'POST',
      token: plain,
      signal: controller.signal,
      headers: { 'x-request-id': `cost-cut-${crypto.randomUUID()}` },
      json: { model: 'priced', stream: true, messages: [{ role: 'user', content: 'long' }] },
    })
    const reader = response.body!.getReader()
    await reader.read()
    await reader.read()
    await reader.cancel()
    controller.abort()
    await Bun.sleep(100)
    const row = await rowOf(response)
    expect(row.errorCode).toBe('client_aborted')
    expect(row.completionTokens).toBeGreaterThan(0)
    expect(row.completionTokens).toBeLessThan(200)
    // No usage was reported: the prompt as estimated, at input; each event sent, at output.
    const exact = row.promptTokens * 2_500_000 + row.completionTokens * 10_000_000
    expect(row.costMicros).toBe(Math.floor((exact + 500_000) / 1_000_000))
  })
})

describe('a model without a price', () => {
  test('costs nothing, has no version, is counted as unpriced, and is logged once', async () => {
    const first = await chat('plain', { model: 'mystery' })
    await chat('plain', { model: 'mystery' })
    const row = await rowOf(first.response)
    expect(row.costMicros).toBe(0)
    expect(row.priceVersion).toBeNull()
    const report = await (await t.request('/usage?group_by=model', { token: plain })).json()
    expect(report.data.find((group: { model: string }) => group.model === 'mystery')).toMatchObject({
      requests: 2,
      cost_micros: 0,
      cost_usd: 0,
      unpriced_requests: 2,
    })
    expect(t.logs.filter((line) => line.model === 'mystery' && line.level === 'warn')).toHaveLength(1)
  })
})

describe('GET /usage and /metrics', () => {
  test("groups and the total carry cost in micro-dollars and dollars; the total is the groups' sum", async () => {
    const report = await (await t.request('/usage?group_by=model,day', { token: plain })).json()
    const micros = report.data.reduce((sum: number, group: { cost_micros: number }) => sum + group.cost_micros, 0)
    expect(report.total.cost_micros).toBe(micros)
    expect(report.total.cost_usd).toBe(micros / 1_000_000)
    for (const group of report.data) expect(group.cost_usd).toBe(group.cost_micros / 1_000_000)
    const rows = await t.deps.database.db.select().from(usageRecords).orderBy(asc(usageRecords.seq))
    expect(micros).toBe(rows.reduce((sum, row) => sum + row.costMicros, 0))
  })

  test('trellis_cost_total counts dollars per public model, with no owner or token label', async () => {
    const admin = await t.tokenFor('root', ['admin'])
    const text = await (await t.request('/metrics', { token: admin })).text()
    const line = text.split('\n').find((each) => each.startsWith('trellis_cost_total{model="priced"}'))!
    const rows = await t.deps.database.db.select().from(usageRecords).where(eq(usageRecords.model, 'priced'))
    const micros = rows.reduce((sum, row) => sum + row.costMicros, 0)
    expect(Number(line.split(' ').at(-1))).toBeCloseTo(micros / 1_000_000, 9)
    expect(text).not.toMatch(/trellis_cost_total\{[^}]*(owner|token)/)
  })
})

describe('x-trellis-cost, for a token that asks for it', () => {
  test('a whole answer carries it as a header, in dollars with 6 decimals', async () => {
    const { response } = await chat('everything', { token: shown })
    expect(response.headers.get('x-trellis-cost')).toBe('0.007463')
  })

  test('a stream ends with it as an SSE comment, after [DONE]', async () => {
    const { response, text } = await chat('plain', { token: shown, stream: true })
    expect(response.headers.get('x-trellis-cost')).toBeNull()
    expect(text.endsWith('data: [DONE]\n\n: x-trellis-cost: 0.007500\n\n')).toBe(true)
  })

  test("Anthropic's Messages: the header on a whole answer, the comment after message_stop on a stream", async () => {
    const ask = (stream: boolean) =>
      t.request('/v1/messages', {
        method: 'POST',
        token: shown,
        headers: { 'anthropic-version': '2023-06-01' },
        json: { model: 'priced', max_tokens: 64, stream, messages: [{ role: 'user', content: 'everything' }] },
      })
    const whole = await ask(false)
    expect(whole.headers.get('x-trellis-cost')).toBe('0.007463')
    await whole.text()
    const text = await (await ask(true)).text()
    expect(text).toMatch(/event: message_stop\ndata: [^\n]*\n\n: x-trellis-cost: 0\.007463\n\n$/)
  })

  test('a token that did not ask gets neither', async () => {
    const whole = await chat('plain')
    expect(whole.response.headers.get('x-trellis-cost')).toBeNull()
    const streamed = await chat('plain', { stream: true })
    expect(streamed.text).not.toContain('x-trellis-cost')
  })
})
