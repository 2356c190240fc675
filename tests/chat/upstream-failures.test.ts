import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { makeTestApp, type TestApp } from '../helpers/app'
import { USER } from './chat-app'
import { startMockUpstream, type MockUpstream } from './mock-upstream'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/*
 * What a client and an operator see when an upstream fails (issue #29 §3): a 429 or 503 always says
 * when to retry, even when the upstream did not; the failed attempts are counted as what happened
 * (a model with one entry gives up, it does not fall back); the request latency has its status.
 */

let upstream: MockUpstream
let app: TestApp & { chat: (body: unknown) => Promise<Response> }
let metricsToken: string

beforeAll(async () => {
  upstream = await startMockUpstream()
  // A listening server: the request metrics are recorded after the response has gone out.
  const served = await makeTestApp({
    transport: 'listening server',
    env: {
      CHAT_PROVIDERS: JSON.stringify({
        only: { baseUrl: upstream.baseUrl, maxRetries: 1, retryBaseMs: 1 },
        once: { baseUrl: upstream.baseUrl, maxRetries: 0 },
      }),
      CHAT_MODELS: JSON.stringify({
        single: [{ provider: 'only', model: 'upstream-model' }],
        'no-retry': [{ provider: 'once', model: 'upstream-model' }],
      }),
    },
  })
  const token = await served.tokenFor('chat-user', ['chat'])
  app = { ...served, chat: (body) => served.request('/v1/chat/completions', { method: 'POST', token, json: body }) }
  metricsToken = await app.tokenFor('ops', ['metrics'])
})
afterAll(async () => {
  await app.close()
  await upstream.stop()
})

const ask = (stream: boolean) => ({ model: 'single', messages: USER('hello'), stream })

describe('a 429 or 503 from the upstream always carries Retry-After', () => {
  test.each([
    [503, false],
    [503, true],
    [429, false],
    [429, true],
  ])('an upstream %i without Retry-After (stream: %p): the client is told to wait 1 s', async (status, stream) => {
    upstream.script({ status, errorBody: { error: { message: 'busy', type: 'server_error' } } })
    const response = await app.chat(ask(stream))
    expect(response.status).toBe(status)
    expect(response.headers.get('retry-after')).toBe('1')
  })

  test("an upstream's own Retry-After is passed on as it said", async () => {
    upstream.script({ status: 503, headers: { 'retry-after': '4' }, errorBody: { error: { message: 'busy' } } })
    const response = await app.chat({ ...ask(false), model: 'no-retry' })
    expect(response.status).toBe(503)
    expect(response.headers.get('retry-after')).toBe('4')
  })
})

type Family = { name: string; metrics: { labels?: Record<string, string>; value?: string; buckets?: unknown }[] }

async function scrape(): Promise<Family[]> {
  const response = await app.request('/metrics', { token: metricsToken })
  expect(response.status).toBe(200)
  return parsePrometheusTextFormat(await response.text()) as Family[]
}

const failedAttempts = (families: Family[], next: string) =>
  families
    .find((family) => family.name === 'trellis_upstream_attempts_failed_total')
    ?.metrics.filter((metric) => metric.labels?.next === next)
    .reduce((sum, metric) => sum + Number(metric.value), 0) ?? 0

describe('the metrics say what happened', () => {
  test('a one-entry model that failed its retry gave up: counted as retry then give up, never fallback', async () => {
    const before = await scrape()
    upstream.script({ status: 502, errorBody: { error: { message: 'bad gateway' } } })
    expect((await app.chat(ask(false))).status).toBe(502)
    const after = await scrape()
    expect(failedAttempts(after, 'retry') - failedAttempts(before, 'retry')).toBe(1)
    expect(failedAttempts(after, 'give up') - failedAttempts(before, 'give up')).toBe(1)
    expect(failedAttempts(after, 'fallback') - failedAttempts(before, 'fallback')).toBe(0)
  })

  test('trellis_http_request_duration_seconds is labelled by status, as README says', async () => {
    upstream.script({})
    expect((await app.chat(ask(false))).status).toBe(200)
    const text = await (await app.request('/metrics', { token: metricsToken })).text()
    const counted = [...text.matchAll(/^trellis_http_request_duration_seconds_count\{([^}]*)\}/gm)].map((m) => m[1]!)
    const chat = counted.filter((labels) => labels.includes('route="/v1/chat/completions"'))
    expect(chat.some((labels) => labels.includes('status="200"'))).toBe(true)
    expect(chat.some((labels) => labels.includes('status="502"'))).toBe(true)
  })
})
