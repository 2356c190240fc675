import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { PROVIDER_DEFAULTS } from '../../../../src/config/chat'
import { openaiProvider } from '../../../../src/chat/providers/openai/openai'
import { type EmbeddingsRequest, ProviderError } from '../../../../src/chat/providers/provider'
import { startMockUpstream, type MockReply, type MockUpstream } from '../../mock-upstream'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/*
 * An `openai` provider's `embeddings`: `POST {baseUrl}/embeddings` with the request as the route
 * passes it, the answer as the upstream wrote it (a JSON object), and every failure mapped as
 * chat completions map theirs.
 */

let upstream: MockUpstream
beforeEach(async () => {
  upstream = await startMockUpstream()
})
afterEach(async () => {
  await upstream.stop()
})

const provider = (options: Partial<typeof PROVIDER_DEFAULTS> & { maxResponseBytes?: number } = {}) =>
  openaiProvider({ ...PROVIDER_DEFAULTS, name: 'mock', baseUrl: upstream.baseUrl, apiKey: 'sk-upstream', ...options })

const REQUEST: EmbeddingsRequest = {
  model: 'text-embedding-3-small',
  input: ['hello', 'world'],
  encoding_format: 'base64',
  dimensions: 8,
  user: 'u-1',
  vendor_option: { kept: true },
}

/** An upstream's answer, with a field Trellis does not model and numbers as an upstream writes them. */
const ANSWER_TEXT =
  '{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.0023064255,-0.009327292]},' +
  '{"object":"embedding","index":1,"embedding":[1e-7,0.5]}],"model":"text-embedding-3-small",' +
  '"usage":{"prompt_tokens":2,"total_tokens":2},"vendor_meta":{"id":"abc"}}'

const answering = (text: string, extra: MockReply = {}): MockReply => ({
  rawBody: new TextEncoder().encode(text),
  ...extra,
})

const create = (request = REQUEST, options: Parameters<typeof provider>[0] = {}) =>
  provider(options).embeddings.create(request, new AbortController().signal)

describe('the relay', () => {
  test('POSTs the request as given to {baseUrl}/embeddings, with the provider key', async () => {
    upstream.script(answering(ANSWER_TEXT))
    await create()
    const [seen] = upstream.requests
    expect(seen!.path).toBe('/v1/embeddings')
    expect(seen!.body).toEqual(REQUEST)
    expect(seen!.headers.get('authorization')).toBe('Bearer sk-upstream')
    expect(seen!.headers.get('content-type')).toBe('application/json')
  })

  test('answers with the upstream object, unmodelled fields included', async () => {
    upstream.script(answering(ANSWER_TEXT))
    const answer = await create()
    expect(answer).toEqual(JSON.parse(ANSWER_TEXT))
    expect(JSON.stringify(answer)).toBe(ANSWER_TEXT)
  })
})

describe('failures', () => {
  type Row = {
    name: string
    reply: MockReply
    status: number
    code: string | null
    param?: string
    /** Whether the registry may retry it, or fall back (400s it may not; 502s of a bad answer it may). */
    retryable?: boolean
    text: string
  }
  const ROWS: Row[] = [
    {
      name: "the upstream's 400, with its message and param",
      reply: {
        status: 400,
        errorBody: { error: { message: "'input' is too long", type: 'invalid_request_error', param: 'input' } },
      },
      status: 400,
      code: null,
      param: 'input',
      text: "'input' is too long",
    },
    {
      name: 'a 401 about our own key: 502',
      reply: { status: 401 },
      status: 502,
      code: 'upstream_auth_failed',
      text: "rejected this gateway's credentials",
    },
    {
      name: 'a 404 (the upstream has no such model, or no embeddings)',
      reply: { status: 404, errorBody: { error: { message: 'no such model' } } },
      status: 404,
      code: 'model_not_found',
      param: 'model',
      text: "does not serve the model 'text-embedding-3-small': no such model",
    },
    {
      name: 'a 429, retryable',
      reply: { status: 429, headers: { 'retry-after': '2' } },
      status: 429,
      code: 'rate_limit_exceeded',
      retryable: true,
      text: 'rate limit',
    },
    {
      name: 'a 503, retryable',
      reply: { status: 503 },
      status: 503,
      code: 'upstream_unavailable',
      retryable: true,
      text: 'unavailable',
    },
    {
      name: 'an answer that is not a JSON object',
      reply: answering('[0.1, 0.2]'),
      status: 502,
      code: 'upstream_error',
      text: 'answered with a body that is not a JSON object',
    },
    {
      name: 'an answer that is not JSON at all',
      reply: answering('<html>'),
      status: 502,
      code: 'upstream_error',
      text: 'not a JSON object',
    },
    {
      name: 'an error reported inside a 200',
      reply: answering('{"error":{"message":"quota exceeded"}}'),
      status: 502,
      code: 'upstream_error',
      text: 'reported an error',
    },
  ]
  test.each(ROWS)('$name', async ({ reply, status, code, param, retryable, text }) => {
    upstream.script(reply)
    const error = await create().catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ProviderError)
    expect(error).toMatchObject({ status, options: { code } })
    if (retryable) expect((error as ProviderError).options.retryable).toBe(true)
    if (param) expect((error as ProviderError).options.param).toBe(param)
    expect((error as ProviderError).message).toContain(text)
  })

  test('an answer larger than the response cap: 502 naming the limit, without reading it all', async () => {
    const big = `{"object":"list","data":[],"pad":"${'x'.repeat(200_000)}"}`
    upstream.script(answering(big))
    const error = await create(REQUEST, { maxResponseBytes: 65_536 }).catch((caught: unknown) => caught)
    expect(error).toMatchObject({ status: 502, options: { code: 'upstream_error' } })
    expect((error as ProviderError).message).toContain('limit of 65536 bytes (CHAT_MAX_RESPONSE_BYTES)')
  })

  test('an upstream slower than requestTimeoutMs: 504, and the upstream request is abandoned', async () => {
    upstream.script(answering(ANSWER_TEXT, { headerDelayMs: 2_000 }))
    const error = await create(REQUEST, { requestTimeoutMs: 100 }).catch((caught: unknown) => caught)
    expect(error).toMatchObject({ status: 504, options: { code: 'upstream_request_timeout' } })
    await upstream.requests[0]!.aborted
    expect(upstream.requests[0]!.wasAborted).toBe(true)
  })

  test("the caller's abort ends the upstream request", async () => {
    upstream.script(answering(ANSWER_TEXT, { headerDelayMs: 2_000 }))
    const controller = new AbortController()
    const pending = provider().embeddings.create(REQUEST, controller.signal)
    while (upstream.requests.length === 0) await Bun.sleep(5)
    controller.abort(new Error('client left'))
    await expect(pending).rejects.toThrow('client left')
    await upstream.requests[0]!.aborted
  })
})
