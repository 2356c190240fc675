import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { PROVIDER_DEFAULTS } from '../../../../src/config/chat'
import { openaiProvider } from '../../../../src/chat/providers/openai/openai'
import { ProviderError } from '../../../../src/chat/providers/provider'
import { parseRetryAfter } from '../../../../src/chat/providers/upstream-error'
import { startMockUpstream, type MockReply, type MockUpstream } from '../../mock-upstream'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let upstream: MockUpstream
beforeEach(async () => {
  upstream = await startMockUpstream()
})
afterEach(async () => {
  await upstream.stop()
})

const NOW = new Date('2026-01-01T00:00:00Z')

// What the client sees for each upstream failure: status, OpenAI error fields, whether the
// registry may retry it, and a fragment of the message.
const ROWS: {
  upstream: MockReply
  status: number
  type: string
  code: string | null
  param?: string | null
  retryable: boolean
  retryAfter?: number
  message: string
  /** What only the log gets: the upstream's own words, or its status. */
  detail?: string
}[] = [
  {
    upstream: {
      status: 400,
      errorBody: {
        error: {
          message: 'temperature is too high',
          type: 'invalid_request_error',
          param: 'temperature',
          code: 'bad_value',
        },
      },
    },
    status: 400,
    type: 'invalid_request_error',
    code: 'bad_value',
    param: 'temperature',
    retryable: false,
    message: 'temperature is too high',
  },
  {
    upstream: {
      status: 400,
      errorBody: { object: 'error', message: 'vLLM says max_tokens too large', param: 'max_tokens', code: null },
    },
    status: 400,
    type: 'invalid_request_error',
    code: null,
    param: 'max_tokens',
    retryable: false,
    message: 'vLLM says max_tokens too large',
  },
  {
    upstream: { status: 422, errorBody: { detail: 'field required' } },
    status: 400,
    type: 'invalid_request_error',
    code: null,
    param: null,
    retryable: false,
    message: 'field required',
  },
  {
    upstream: { status: 401, errorBody: { error: { message: 'Incorrect API key provided' } } },
    status: 502,
    type: 'api_error',
    code: 'upstream_auth_failed',
    retryable: false,
    message: "provider 'mock' rejected this gateway's credentials (HTTP 401)",
    detail: 'HTTP 401: Incorrect API key provided',
  },
  {
    upstream: { status: 403, errorBody: { error: 'forbidden' } },
    status: 502,
    type: 'api_error',
    code: 'upstream_auth_failed',
    retryable: false,
    message: '(HTTP 403)',
  },
  {
    upstream: { status: 404, errorBody: { error: "model 'llama9' not found" } },
    status: 404,
    type: 'invalid_request_error',
    code: 'model_not_found',
    param: 'model',
    retryable: false,
    message: "does not serve the model 'upstream-model': model 'llama9' not found",
  },
  {
    upstream: { status: 413, errorBody: { error: { message: 'prompt too long' } } },
    status: 413,
    type: 'invalid_request_error',
    code: null,
    retryable: false,
    message: 'prompt too long',
  },
  {
    upstream: {
      status: 429,
      headers: { 'retry-after': '7' },
      errorBody: { error: { message: 'slow down', code: 'rate_limit_exceeded' } },
    },
    status: 429,
    type: 'rate_limit_error',
    code: 'rate_limit_exceeded',
    retryable: true,
    retryAfter: 7,
    message: 'slow down',
  },
  {
    // 30 s asked, passed on capped at the provider's retryMaxMs (10 s by default).
    upstream: { status: 429, headers: { 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' } },
    status: 429,
    type: 'rate_limit_error',
    code: 'rate_limit_exceeded',
    retryable: true,
    retryAfter: 10,
    message: 'rate limiting',
  },
  {
    upstream: { status: 500 },
    status: 502,
    type: 'api_error',
    code: 'upstream_error',
    retryable: true,
    message: 'failed with HTTP 500.',
    detail: 'HTTP 500: mock error 500',
  },
  {
    upstream: { status: 502, errorBody: '<html>bad gateway</html>' },
    status: 502,
    type: 'api_error',
    code: 'upstream_error',
    retryable: true,
    message: 'failed with HTTP 502',
  },
  {
    upstream: { status: 503, headers: { 'retry-after': '3' } },
    status: 503,
    type: 'api_error',
    code: 'upstream_unavailable',
    retryable: true,
    retryAfter: 3,
    message: "provider 'mock' is unavailable",
    detail: 'HTTP 503: mock error 503',
  },
  {
    upstream: { status: 408 },
    status: 504,
    type: 'timeout',
    code: 'upstream_request_timeout',
    retryable: true,
    message: 'did not finish the request',
  },
  {
    upstream: { status: 405 },
    status: 502,
    type: 'api_error',
    code: 'upstream_error',
    retryable: false,
    message: 'unexpected HTTP 405',
  },
]

describe('upstream errors become OpenAI errors with the right status', () => {
  for (const row of ROWS) {
    const { upstream: reply, ...expected } = row
    test(`upstream ${reply.status} ${JSON.stringify(reply.errorBody ?? '')} -> ${expected.status} ${expected.code}`, async () => {
      upstream.script(reply)
      const provider = openaiProvider({
        ...PROVIDER_DEFAULTS,
        name: 'mock',
        baseUrl: upstream.baseUrl,
        clock: () => NOW,
      })
      const signal = new AbortController().signal
      const failures = [
        await (async () => {
          for await (const _ of provider.stream({ model: 'upstream-model', messages: [] }, signal));
        })().catch((error) => error),
        await provider.complete({ model: 'upstream-model', messages: [] }, signal).catch((error) => error),
      ]
      for (const error of failures) {
        expect(error).toBeInstanceOf(ProviderError)
        expect(error.status).toBe(expected.status)
        expect(error.message).toContain(expected.message)
        expect(error.options.type).toBe(expected.type)
        expect(error.options.code ?? null).toBe(expected.code)
        if ('param' in expected) expect(error.options.param).toBe(expected.param)
        expect(error.options.retryable ?? false).toBe(expected.retryable)
        expect(error.options.retryAfter).toBe(expected.retryAfter)
        if (expected.detail) {
          expect(error.options.detail).toContain(expected.detail)
          expect(error.message).not.toContain(expected.detail)
        }
      }
    })
  }

  test('error messages name the provider, never its URL or key', async () => {
    upstream.script({ status: 401 })
    const provider = openaiProvider({
      ...PROVIDER_DEFAULTS,
      name: 'mock',
      baseUrl: upstream.baseUrl,
      apiKey: 'sk-secret',
    })
    const error = await provider
      .complete({ model: 'm', messages: [] }, new AbortController().signal)
      .catch((caught) => caught)
    expect(error.message).not.toContain('127.0.0.1')
    expect(error.message).not.toContain('sk-secret')
  })
})

describe('Retry-After', () => {
  const CASES: { header: string | null; seconds: number | undefined }[] = [
    { header: '120', seconds: 120 },
    { header: ' 2 ', seconds: 2 },
    { header: '0.5', seconds: 0.5 },
    { header: 'Thu, 01 Jan 2026 00:01:00 GMT', seconds: 60 },
    { header: 'Wed, 31 Dec 2025 23:59:00 GMT', seconds: 0 },
    { header: 'soon', seconds: undefined },
    { header: '-3', seconds: undefined },
    { header: null, seconds: undefined },
  ]
  for (const { header, seconds } of CASES) {
    test(`${JSON.stringify(header)} -> ${seconds} s`, () => {
      expect(parseRetryAfter(header, NOW)).toBe(seconds)
    })
  }
})
