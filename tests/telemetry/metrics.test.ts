/**
 * `GET /metrics`, read by a Prometheus text-format parser (not by regular expressions): the series
 * the governance issue names, with values that follow what was done, and no owner, token or
 * request id among the labels.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

type Family = {
  name: string
  type: string
  metrics: { labels?: Record<string, string>; value?: string; buckets?: Record<string, string> }[]
}

let t: TestApp
let admin: string
let reader: string
beforeAll(async () => {
  t = await makeTestApp()
  admin = await t.tokenFor('root', ['admin'])
  reader = await t.tokenFor('prometheus', ['metrics'])
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

async function scrape(token = reader): Promise<Map<string, Family>> {
  // Requests are counted after their response has gone out.
  await Bun.sleep(50)
  const response = await t.request('/metrics', { token })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toStartWith('text/plain; version=0.0.4')
  return new Map((parsePrometheusTextFormat(await response.text()) as Family[]).map((family) => [family.name, family]))
}

const value = (families: Map<string, Family>, name: string, labels: Record<string, string> = {}) =>
  families
    .get(name)
    ?.metrics.filter((metric) => Object.entries(labels).every(([key, expected]) => metric.labels?.[key] === expected))
    .reduce((sum, metric) => sum + Number(metric.value ?? 0), 0) ?? 0

test('needs the metrics or admin scope', async () => {
  expect((await t.request('/metrics')).status).toBe(401)
  expect((await t.request('/metrics', { token: await t.tokenFor('nosy', ['chat']) })).status).toBe(403)
  expect((await t.request('/metrics', { token: admin })).status).toBe(200)
})

test('every series the governance issue names is there, and follows what is done', async () => {
  const limitedResponse = await t.request('/admin/tokens', {
    method: 'POST',
    token: admin,
    json: { owner: 'limited', scopes: ['chat', 'plants:read'], limits: { rpm: 1 } },
  })
  const limited = (await limitedResponse.json()).token
  const before = await scrape()
  const chatter = await t.tokenFor('chatter', ['chat', 'plants:read'])
  await t.request('/plants', { token: chatter })
  await t.request('/nowhere')
  await t.request('/v1/chat/completions', {
    method: 'POST',
    token: chatter,
    json: { model: 'echo', messages: [{ role: 'user', content: 'count these words' }] },
  })
  const streamed = await t.request('/v1/chat/completions', {
    method: 'POST',
    token: chatter,
    json: { model: 'echo-reasoner', stream: true, messages: [{ role: 'user', content: 'and these' }] },
  })
  await streamed.text()
  await t.request('/plants', { token: limited })
  await t.request('/plants', { token: limited })
  const after = await scrape()

  for (const name of [
    'trellis_http_requests_total',
    'trellis_http_request_duration_seconds',
    'trellis_chat_time_to_first_token_seconds',
    'trellis_chat_stream_duration_seconds',
    'trellis_chat_tokens_total',
    'trellis_chat_active_streams',
    'trellis_upstream_attempts_failed_total',
    'trellis_rate_limited_total',
    'trellis_ledger_queue_depth',
    'trellis_ledger_dropped_rows',
    'trellis_db_pool_connections',
  ])
    expect([name, after.has(name)]).toEqual([name, true])

  const delta = (name: string, labels: Record<string, string> = {}) =>
    value(after, name, labels) - value(before, name, labels)
  expect(delta('trellis_http_requests_total', { route: '/plants', method: 'GET', status: '200' })).toBe(2)
  expect(delta('trellis_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1)
  expect(delta('trellis_http_requests_total', { route: '/plants', status: '429' })).toBe(1)
  expect(delta('trellis_rate_limited_total', { kind: 'requests' })).toBe(1)
  expect(delta('trellis_chat_tokens_total', { model: 'echo', provider: 'echo', kind: 'prompt' })).toBeGreaterThan(0)
  expect(delta('trellis_chat_tokens_total', { model: 'echo-reasoner', kind: 'reasoning' })).toBeGreaterThan(0)
  // parse-prometheus-text-format folds a labelled histogram's label sets into one set of buckets
  // (the last one's): histograms are checked where one label set was observed, by their +Inf bucket.
  const observations = (families: Map<string, Family>, name: string) =>
    Number(families.get(name)?.metrics[0]?.buckets?.['+Inf'] ?? 0)
  expect(observations(before, 'trellis_chat_time_to_first_token_seconds')).toBe(0)
  expect(observations(after, 'trellis_chat_time_to_first_token_seconds')).toBe(1)
  expect(observations(after, 'trellis_chat_stream_duration_seconds')).toBeGreaterThan(0)
  expect(observations(after, 'trellis_http_request_duration_seconds')).toBeGreaterThan(0)
  expect(value(after, 'trellis_chat_active_streams')).toBe(0)
  expect(value(after, 'trellis_db_pool_connections', { state: 'open' })).toBeGreaterThanOrEqual(1)

  // Labels whose number has no bound never appear.
  const labels = new Set(
    [...after.values()].flatMap((family) => family.metrics.flatMap((metric) => Object.keys(metric.labels ?? {}))),
  )
  for (const forbidden of ['owner', 'token', 'token_id', 'request_id', 'path'])
    expect(labels.has(forbidden)).toBe(false)
})
