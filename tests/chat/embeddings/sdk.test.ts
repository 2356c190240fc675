/**
 * `POST /v1/embeddings` on echo, through the official `openai` SDK against a real listening
 * Trellis: the SDK's default (it asks for base64 and decodes it), `float` and `base64` asked for,
 * echo's vectors (deterministic, distinct, unit length, `dimensions`), and every answer valid
 * against OpenAI's published CreateEmbeddingResponse schema.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import OpenAI, { AuthenticationError, BadRequestError, NotFoundError, PermissionDeniedError } from 'openai'
import { makeTestApp, type TestApp } from '../../helpers/app'
import { openAISpec } from '../../helpers/openai-spec'

// The first app of a process starts a database, which takes seconds on a busy machine.
setDefaultTimeout(30_000)

let t: TestApp
let client: OpenAI

beforeAll(async () => {
  t = await makeTestApp({
    transport: 'listening server',
    env: {
      // An anthropic provider has no embeddings endpoint; it is never called here.
      CHAT_PROVIDERS: JSON.stringify({ claude: { kind: 'anthropic', baseUrl: 'http://127.0.0.1:9/v1' } }),
      CHAT_MODELS: JSON.stringify({
        echo: [{ provider: 'echo', model: 'echo' }],
        'text-embedding-3-small': [{ provider: 'echo', model: 'echo' }],
        claude: [{ provider: 'claude', model: 'claude-sonnet-4-5' }],
      }),
    },
  })
  client = new OpenAI({ apiKey: await t.tokenFor('embedder', ['chat']), baseURL: `${t.origin}/v1`, maxRetries: 0 })
})

afterAll(() => t.close())

const openai = () => openAISpec()

/** The raw answer of a request, as the wire carried it. */
async function raw(body: Record<string, unknown>) {
  const response = await client.embeddings.create(body as never).asResponse()
  return (await response.json()) as {
    object: string
    model: string
    data: { object: string; index: number; embedding: number[] | string }[]
    usage: { prompt_tokens: number; total_tokens: number }
  }
}

const norm = (vector: ArrayLike<number>) => Math.hypot(...Array.from(vector))

/** Little-endian float32 values of a base64 string. */
function float32s(base64: string): number[] {
  const bytes = Buffer.from(base64, 'base64')
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4))
}

describe('client.embeddings.create on echo', () => {
  test("the SDK's default: base64 on the wire, decoded by the SDK into the float32 of the float answer", async () => {
    const input = ['The food was delicious and the waiter was friendly.', 'Hello, world!']
    const decoded = await client.embeddings.create({ model: 'echo', input })
    const floats = await client.embeddings.create({ model: 'echo', input, encoding_format: 'float' })
    expect(decoded.object).toBe('list')
    expect(decoded.model).toBe('echo')
    expect(decoded.data.map((entry) => entry.index)).toEqual([0, 1])
    decoded.data.forEach((entry, i) => {
      expect(entry.embedding).toHaveLength(1536)
      expect(Array.from(entry.embedding)).toEqual(floats.data[i]!.embedding.map(Math.fround))
    })
    // 10 + 4 tokens by echo's tokenizer (words and punctuation).
    expect(decoded.usage).toEqual({ prompt_tokens: 14, total_tokens: 14 })
  })

  test('encoding_format base64, asked for: strings of little-endian float32 bytes, passed through by the SDK', async () => {
    const input = 'base64 please'
    const encoded = await client.embeddings.create({ model: 'echo', input, encoding_format: 'base64' })
    const floats = await client.embeddings.create({ model: 'echo', input, encoding_format: 'float' })
    const text = encoded.data[0]!.embedding as unknown as string
    expect(typeof text).toBe('string')
    expect(Buffer.from(text, 'base64')).toHaveLength(1536 * 4)
    expect(float32s(text)).toEqual(floats.data[0]!.embedding.map(Math.fround))
  })

  test('encoding_format float: unit-length vectors of 9-decimal numbers', async () => {
    const answer = await client.embeddings.create({ model: 'echo', input: 'floats', encoding_format: 'float' })
    const vector = answer.data[0]!.embedding
    expect(norm(vector)).toBeCloseTo(1, 6)
    for (const value of vector) expect(Math.round(value * 1e9) / 1e9).toBe(value)
  })

  test('the same text gives the same vector, different texts different ones', async () => {
    const [a, b, c] = (await client.embeddings.create({ model: 'echo', input: ['same', 'same', 'Same'] })).data
    const again = (await client.embeddings.create({ model: 'text-embedding-3-small', input: 'same' })).data[0]!
    expect(Array.from(b!.embedding)).toEqual(Array.from(a!.embedding))
    expect(Array.from(again.embedding)).toEqual(Array.from(a!.embedding))
    expect(Array.from(c!.embedding)).not.toEqual(Array.from(a!.embedding))
  })

  test('dimensions: that many components, unit length, in every encoding', async () => {
    for (const dimensions of [1, 8, 256, 3072]) {
      const decoded = await client.embeddings.create({ model: 'echo', input: 'short', dimensions })
      const floats = await client.embeddings.create({
        model: 'echo',
        input: 'short',
        dimensions,
        encoding_format: 'float',
      })
      expect(decoded.data[0]!.embedding).toHaveLength(dimensions)
      expect(floats.data[0]!.embedding).toHaveLength(dimensions)
      expect(norm(floats.data[0]!.embedding)).toBeCloseTo(1, 6)
    }
  })

  test('token lists, one or several; each counts one token per id', async () => {
    const one = await client.embeddings.create({ model: 'echo', input: [9906, 1917] })
    const several = await client.embeddings.create({ model: 'echo', input: [[9906, 1917], [0]] })
    expect(one.usage.prompt_tokens).toBe(2)
    expect(several.usage.prompt_tokens).toBe(3)
    expect(Array.from(several.data[0]!.embedding)).toEqual(Array.from(one.data[0]!.embedding))
  })
})

describe("the answers validate against OpenAI's CreateEmbeddingResponse", () => {
  test('float, for texts and for token lists', async () => {
    for (const input of ['one text', ['two', 'texts'], [1, 2, 3], [[1], [2, 3]]]) {
      const body = await raw({ model: 'echo', input, encoding_format: 'float', dimensions: 16 })
      openai().assert('CreateEmbeddingResponse', body)
    }
  })

  test('base64: valid once each string is decoded (the schema only knows float lists)', async () => {
    const body = await raw({ model: 'echo', input: ['a', 'b'], encoding_format: 'base64', dimensions: 16 })
    expect(openai().validate('CreateEmbeddingResponse', body).valid).toBe(false)
    for (const entry of body.data) entry.embedding = float32s(entry.embedding as string)
    openai().assert('CreateEmbeddingResponse', body)
  })

  test('the validator can fail: a vector of strings and a missing usage are refused', () => {
    const bad = { object: 'list', model: 'echo', data: [{ object: 'embedding', index: 0, embedding: ['0.1'] }] }
    const result = openai().validate('CreateEmbeddingResponse', bad)
    expect(result.valid).toBe(false)
    expect(result.message).toContain("must have required property 'usage'")
    expect(result.message).toContain('/data/0/embedding/0 must be number')
  })
})

describe('refusals, as the SDK raises them', () => {
  test('an unknown model: NotFoundError model_not_found', async () => {
    const error = await client.embeddings.create({ model: 'nope', input: 'x' }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(NotFoundError)
    expect((error as NotFoundError).code).toBe('model_not_found')
    expect((error as NotFoundError).param).toBe('model')
  })

  test('a model whose providers have no embeddings endpoint: BadRequestError naming model', async () => {
    const error = await client.embeddings.create({ model: 'claude', input: 'x' }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(BadRequestError)
    expect((error as BadRequestError).code).toBe('model_not_supported')
    expect((error as BadRequestError).param).toBe('model')
    expect((error as BadRequestError).message).toContain('The model `claude` does not serve embeddings')
  })

  test('a bad input: BadRequestError naming the item', async () => {
    const error = await client.embeddings.create({ model: 'echo', input: ['a', ''] }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(BadRequestError)
    expect((error as BadRequestError).param).toBe('input[1]')
  })

  test('no token, or one without the chat scope', async () => {
    const anonymous = new OpenAI({ apiKey: 'trl_unknown', baseURL: `${t.origin}/v1`, maxRetries: 0 })
    expect(await anonymous.embeddings.create({ model: 'echo', input: 'x' }).catch((caught) => caught)).toBeInstanceOf(
      AuthenticationError,
    )
    const plants = new OpenAI({ apiKey: await t.tokenFor('gardener'), baseURL: `${t.origin}/v1`, maxRetries: 0 })
    expect(await plants.embeddings.create({ model: 'echo', input: 'x' }).catch((caught) => caught)).toBeInstanceOf(
      PermissionDeniedError,
    )
  })
})

test('POST /embeddings answers as POST /v1/embeddings', async () => {
  const token = await t.tokenFor('unprefixed', ['chat'])
  const body = { model: 'echo', input: 'same either way', dimensions: 4 }
  const [plain, v1] = await Promise.all(
    ['/embeddings', '/v1/embeddings'].map(async (path) => {
      const response = await t.request(path, { method: 'POST', token, json: body })
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('application/json')
      return response.json()
    }),
  )
  expect(plain).toEqual(v1)
})
