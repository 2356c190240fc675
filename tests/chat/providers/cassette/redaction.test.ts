/**
 * What a cassette never holds: the credentials a provider sends (Authorization, x-api-key), the headers named in
 * `redact:`, and the API key wherever an upstream echoes it (a body, a header). Each row records one exchange and
 * reads the cassette file itself.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { startMockAnthropic, type MockAnthropic } from '../../mock-anthropic'
import { startMockUpstream, type MockUpstream } from '../../mock-upstream'
import { cassettePath, exchangesOf, recordingSide } from './apps'

setDefaultTimeout(30_000)

const KEY = 'sk-live-0123456789abcdef'
const ORG_SECRET = 'org-secret-value-42'

let openai: MockUpstream
let anthropic: MockAnthropic

beforeAll(async () => {
  openai = await startMockUpstream()
  anthropic = await startMockAnthropic()
})

afterAll(async () => {
  await openai.stop()
  await anthropic.stop()
})

type Row = {
  name: string
  upstream: () => Record<string, unknown>
  record?: Record<string, unknown>
  script: () => void
  path: string
  body: Record<string, unknown>
  /** Request and response headers the exchange must show as `[redacted]`. */
  redacted: { request: string[]; response: string[] }
}

const ROWS: Row[] = [
  {
    name: 'openai: the Authorization header carrying the key',
    upstream: () => ({ baseUrl: openai.baseUrl, apiKey: KEY }),
    script: () => openai.script({}),
    path: '/v1/chat/completions',
    body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
    redacted: { request: ['authorization'], response: [] },
  },
  {
    name: 'anthropic: x-api-key',
    upstream: () => ({ kind: 'anthropic', baseUrl: anthropic.baseUrl, apiKey: KEY }),
    script: () => anthropic.script({}),
    path: '/v1/messages',
    body: { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
    redacted: { request: ['x-api-key'], response: [] },
  },
  {
    name: 'a header named in redact:, sent and answered',
    upstream: () => ({ baseUrl: openai.baseUrl, headers: { 'X-Org-Token': ORG_SECRET } }),
    record: { redact: ['x-org-token'] },
    script: () => openai.script({ headers: { 'x-org-token': ORG_SECRET } }),
    path: '/v1/chat/completions',
    body: { model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] },
    redacted: { request: ['x-org-token'], response: ['x-org-token'] },
  },
  {
    name: 'the key echoed by the upstream in an error body and a header',
    upstream: () => ({ baseUrl: openai.baseUrl, apiKey: KEY }),
    script: () =>
      openai.script({
        status: 401,
        headers: { 'x-echo': `key ${KEY}` },
        errorBody: { error: { message: `Incorrect API key provided: ${KEY}`, type: 'invalid_request_error' } },
      }),
    path: '/v1/chat/completions',
    body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
    redacted: { request: ['authorization'], response: [] },
  },
]

describe('a cassette holds no credential', () => {
  test.each(ROWS.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const cassette = cassettePath()
    const side = await recordingSide(row.upstream(), cassette, row.record)
    try {
      row.script()
      const response = await side.post(row.path, row.body)
      await response.text()
    } finally {
      await side.close()
    }
    const text = readFileSync(cassette, 'utf8')
    expect(text).not.toContain(KEY)
    expect(text).not.toContain(ORG_SECRET)
    const [exchange] = exchangesOf(cassette)
    for (const name of row.redacted.request) expect(exchange.request.headers[name]).toBe('[redacted]')
    for (const name of row.redacted.response) expect(exchange.response.headers[name]).toBe('[redacted]')
    // What is not a credential stays: the request as the provider sent it.
    expect(exchange.request.headers['content-type']).toBe('application/json')
    expect(exchange.request.body.messages).toEqual(row.body.messages)
  })

  test('the echoed key is replaced where it stood, the rest of the text kept', async () => {
    const cassette = cassettePath()
    const side = await recordingSide({ baseUrl: openai.baseUrl, apiKey: KEY }, cassette)
    try {
      openai.script({ status: 401, errorBody: { error: { message: `Incorrect API key provided: ${KEY}.` } } })
      await (await side.post('/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'x' }] })).text()
    } finally {
      await side.close()
    }
    const [exchange] = exchangesOf(cassette)
    expect(exchange.response.json).toEqual({ error: { message: 'Incorrect API key provided: [redacted].' } })
  })
})

describe('a cassette is bounded', () => {
  test('an exchange that would take the file past maxCassetteBytes is served but not written', async () => {
    const cassette = cassettePath()
    const side = await recordingSide({ baseUrl: openai.baseUrl }, cassette, { maxCassetteBytes: 4096 })
    const statuses: number[] = []
    try {
      for (const content of ['first', 'second']) {
        // About 3 kB each: the first fits under 4096 bytes, the second would not.
        openai.script({ chunks: Array.from({ length: 6 }, (_, i) => `${content} ${'x'.repeat(100)} ${i}`) })
        const response = await side.post('/v1/chat/completions', {
          model: 'm',
          stream: true,
          messages: [{ role: 'user', content }],
        })
        statuses.push(response.status)
        expect(await response.text()).toContain(`${content} xxx`)
      }
    } finally {
      await side.close()
    }
    expect(statuses).toEqual([200, 200])
    expect(exchangesOf(cassette).map((exchange) => exchange.request.body.messages[0].content)).toEqual(['first'])
    expect(readFileSync(cassette).length).toBeLessThanOrEqual(4096)
  })
})

test('a stream the client abandoned is not written: its end was never seen', async () => {
  const cassette = cassettePath()
  const side = await recordingSide({ baseUrl: openai.baseUrl }, cassette)
  try {
    openai.script({ chunks: 5, stallAfterChunks: 2 })
    const controller = new AbortController()
    const response = await fetch(`${side.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${side.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'bye' }] }),
      signal: controller.signal,
    })
    const reader = response.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toStartWith('data: ')
    controller.abort()
    // The upstream sees the relay go away once the abort has travelled through Trellis.
    await openai.requests.at(-1)!.aborted
  } finally {
    await side.close()
  }
  expect(exchangesOf(cassette)).toEqual([])
})
