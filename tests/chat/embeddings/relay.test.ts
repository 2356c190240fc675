/**
 * `POST /v1/embeddings` for models served by `openai` providers, through the official `openai`
 * SDK against a real listening Trellis whose providers point at a scripted upstream: the request
 * goes up with only `model` rewritten (and `input` as a list), the answer comes back as the
 * upstream sent it, its failures are mapped, retried and fallen back from as for chat, entries
 * without embeddings are skipped, and the ledger charges the upstream's own count.
 */
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import OpenAI, { BadRequestError, InternalServerError } from 'openai'
import { makeTestApp, type TestApp } from '../../helpers/app'
import { openAISpec } from '../../helpers/openai-spec'
import { startMockUpstream, type MockReply, type MockUpstream } from '../mock-upstream'

setDefaultTimeout(30_000)

let upstream: MockUpstream
let t: TestApp
let token: string
let client: OpenAI

beforeAll(async () => {
  upstream = await startMockUpstream()
  const up = { baseUrl: upstream.baseUrl, apiKey: 'sk-upstream', maxRetries: 0 }
  t = await makeTestApp({
    transport: 'listening server',
    env: {
      CHAT_PROVIDERS: JSON.stringify({
        up,
        patient: { ...up, maxRetries: 2, retryBaseMs: 1 },
        // Nothing listens on port 9: were it tried, the request would fail.
        claude: { kind: 'anthropic', baseUrl: 'http://127.0.0.1:9/v1', maxRetries: 0 },
      }),
      CHAT_MODELS: JSON.stringify({
        'text-embedding-3-small': [{ provider: 'up', model: 'te3-small-upstream' }],
        patient: [{ provider: 'patient', model: 'te3-small-upstream' }],
        'up-then-echo': [
          { provider: 'up', model: 'te3-small-upstream' },
          { provider: 'echo', model: 'echo' },
        ],
        'claude-then-up': [
          { provider: 'claude', model: 'claude-sonnet-4-5' },
          { provider: 'up', model: 'te3-small-upstream' },
        ],
      }),
    },
  })
  token = await t.tokenFor(`relay-${crypto.randomUUID().slice(0, 8)}`, ['chat'])
  client = new OpenAI({ apiKey: token, baseURL: `${t.origin}/v1`, maxRetries: 0 })
})

afterEach(() => {
  upstream.requests.length = 0
})

afterAll(async () => {
  await t.close()
  await upstream.stop()
})

/** Little-endian float32 bytes of `values`, base64-encoded, as OpenAI sends them. */
function base64Of(values: number[]): string {
  const bytes = Buffer.alloc(values.length * 4)
  values.forEach((value, i) => bytes.writeFloatLE(value, i * 4))
  return bytes.toString('base64')
}

/** An upstream answer, written compactly as OpenAI writes it, with a field Trellis does not model. */
function upstreamAnswer(vectors: number[][], options: { base64?: boolean; tokens?: number } = {}): string {
  const data = vectors.map((vector, index) => ({
    object: 'embedding',
    index,
    embedding: options.base64 ? base64Of(vector) : vector,
  }))
  const tokens = options.tokens ?? 3
  return JSON.stringify({
    object: 'list',
    data,
    model: 'text-embedding-3-small',
    usage: { prompt_tokens: tokens, total_tokens: tokens },
    vendor_meta: { region: 'eu' },
  })
}

const answering = (text: string): MockReply => ({ rawBody: new TextEncoder().encode(text) })

describe('the relay', () => {
  test("the SDK's default request: base64 asked of the upstream, its answer decoded by the SDK", async () => {
    upstream.script(answering(upstreamAnswer([[0.25, -0.5, 0.125]], { base64: true })))
    const answer = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'hello' })
    expect(upstream.requests[0]!.path).toBe('/v1/embeddings')
    expect(upstream.requests[0]!.body).toEqual({
      model: 'te3-small-upstream',
      input: ['hello'],
      encoding_format: 'base64',
    })
    expect(upstream.requests[0]!.headers.get('authorization')).toBe('Bearer sk-upstream')
    expect(Array.from(answer.data[0]!.embedding)).toEqual([0.25, -0.5, 0.125])
    expect(answer.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 })
  })

  test('every field goes up as sent, model rewritten; the answer comes back as the upstream wrote it', async () => {
    const text = upstreamAnswer([
      [0.0023064255, -0.009327292],
      [1e-7, 0.5],
    ])
    upstream.script(answering(text))
    const body = {
      model: 'text-embedding-3-small',
      input: [[9906, 11], [1917]],
      encoding_format: 'float',
      dimensions: 2,
      user: 'end-user-1',
      input_type: 'query',
    }
    const response = await t.request('/v1/embeddings', { method: 'POST', token, json: body })
    expect(response.status).toBe(200)
    expect(await response.text()).toBe(text)
    expect(upstream.requests[0]!.body).toEqual({ ...body, model: 'te3-small-upstream' })
    openAISpec().assert('CreateEmbeddingResponse', JSON.parse(text))
  })

  test('an entry whose provider has no embeddings is skipped: claude-then-up is served by up', async () => {
    upstream.script(answering(upstreamAnswer([[1, 0]])))
    const answer = await client.embeddings.create({ model: 'claude-then-up', input: 'x', encoding_format: 'float' })
    expect(answer.data[0]!.embedding).toEqual([1, 0])
    expect(upstream.requests).toHaveLength(1)
  })
})

describe('upstream failures', () => {
  test("the upstream's 400 reaches the client with its message and param", async () => {
    upstream.script({
      status: 400,
      errorBody: {
        error: { message: "'input' is too long for this model", type: 'invalid_request_error', param: 'input' },
      },
    })
    const error = await client.embeddings
      .create({ model: 'text-embedding-3-small', input: 'x' })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(BadRequestError)
    expect((error as BadRequestError).message).toContain("'input' is too long for this model")
    expect((error as BadRequestError).param).toBe('input')
  })

  test('a 401 about our own key is a 502 that does not repeat what the upstream said', async () => {
    upstream.script({ status: 401, errorBody: { error: { message: 'Incorrect API key provided: sk-up***' } } })
    const error = await client.embeddings
      .create({ model: 'text-embedding-3-small', input: 'x' })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(InternalServerError)
    expect((error as InternalServerError).status).toBe(502)
    expect((error as InternalServerError).message).not.toContain('sk-up')
  })

  test('503s are retried with back-off by a provider that allows it', async () => {
    upstream.script({ status: 503 }, { status: 503 }, answering(upstreamAnswer([[0, 1]])))
    const answer = await client.embeddings.create({ model: 'patient', input: 'x', encoding_format: 'float' })
    expect(answer.data[0]!.embedding).toEqual([0, 1])
    expect(upstream.requests).toHaveLength(3)
  })

  test("then the model's next entry: up-then-echo falls back to echo's vectors", async () => {
    upstream.script({ status: 503 })
    const answer = await client.embeddings.create({ model: 'up-then-echo', input: 'x', encoding_format: 'float' })
    expect(upstream.requests).toHaveLength(1)
    expect(answer.model).toBe('echo')
    expect(answer.data[0]!.embedding).toHaveLength(1536)
  })
})

test("the ledger charges what the upstream counted, under the public model's name", async () => {
  const owner = `ledger-${crypto.randomUUID().slice(0, 8)}`
  const own = await t.tokenFor(owner, ['chat'])
  upstream.script(answering(upstreamAnswer([[1], [0]], { tokens: 42 })))
  const response = await t.request('/v1/embeddings', {
    method: 'POST',
    token: own,
    json: { model: 'text-embedding-3-small', input: ['a', 'b'] },
  })
  expect(response.status).toBe(200)
  expect(await t.deps.ledger!.flush()).toBe(true)
  // `/usage` counts rows strictly before "now": a row of this very millisecond would not count yet.
  await Bun.sleep(5)
  const { data } = await (await t.request('/usage?group_by=owner,model', { token: own })).json()
  expect(data).toEqual([
    {
      owner,
      model: 'text-embedding-3-small',
      requests: 1,
      prompt_tokens: 42,
      completion_tokens: 0,
      cached_tokens: 0,
      reasoning_tokens: 0,
      cache_write_tokens: 0,
      cost_micros: 0,
      cost_usd: 0,
      // No price for this model in the default table: it costs nothing, and is flagged.
      unpriced_requests: 1,
      errors: 0,
      estimated_requests: 0,
      estimated_prompt_tokens: 0,
      estimated_completion_tokens: 0,
    },
  ])
})
