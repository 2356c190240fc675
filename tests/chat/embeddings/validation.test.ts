/**
 * What `POST /v1/embeddings` refuses, and how: every bad body is a 400 in OpenAI's shape naming
 * the field (`param`), before any provider is asked; bodies past the limits are refused at the
 * door. One row per case.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { makeChatApp } from '../chat-app'
import { SETUP_TIMEOUT } from '../../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let t: Awaited<ReturnType<typeof makeChatApp>>
beforeAll(async () => {
  t = await makeChatApp()
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const embed = (json: unknown, init: RequestInit = {}) =>
  t.request('/v1/embeddings', { method: 'POST', token: t.token, json, ...init })

const texts = (count: number) => Array.from({ length: count }, (_, i) => `text ${i}`)
const lists = (count: number) => Array.from({ length: count }, (_, i) => [i])
const nested = (depth: number): unknown => (depth === 0 ? 1 : [nested(depth - 1)])

type Row = [name: string, body: unknown, param: string | null, code: string | null, says: string]

const ROWS: Row[] = [
  ['not JSON', '{"model":', null, null, 'We could not parse the JSON body'],
  ['a JSON array', [], null, null, 'must be a JSON object'],
  ['no model', { input: 'x' }, 'model', 'missing_required_parameter', "Missing required parameter: 'model'"],
  ['an empty model', { model: '', input: 'x' }, 'model', 'invalid_value', 'length'],
  ['a model that is not a string', { model: 5, input: 'x' }, 'model', 'invalid_type', 'expected a string'],
  ['no input', { model: 'echo' }, 'input', 'missing_required_parameter', "Missing required parameter: 'input'"],
  ['input null', { model: 'echo', input: null }, 'input', 'invalid_type', 'got null'],
  ['input a number', { model: 'echo', input: 5 }, 'input', 'invalid_type', 'expected a string or an array'],
  ['input an object', { model: 'echo', input: { text: 'x' } }, 'input', 'invalid_type', 'got an object'],
  ['input a boolean', { model: 'echo', input: true }, 'input', 'invalid_type', 'got a boolean'],
  ['an empty string', { model: 'echo', input: '' }, 'input', 'invalid_value', 'may not be an empty string'],
  ['an empty list', { model: 'echo', input: [] }, 'input', 'empty_array', 'at least 1 item'],
  ['an empty string in a list', { model: 'echo', input: ['a', ''] }, 'input[1]', 'invalid_value', 'empty string'],
  ['a number among texts', { model: 'echo', input: ['a', 1] }, 'input[1]', 'invalid_type', 'expected a string'],
  ['null among texts', { model: 'echo', input: ['a', null] }, 'input[1]', 'invalid_type', 'got null'],
  ['a list of null', { model: 'echo', input: [null] }, 'input[0]', 'invalid_type', 'a string, an integer or'],
  ['a list of objects', { model: 'echo', input: [{}] }, 'input[0]', 'invalid_type', 'got an object'],
  ['a list of booleans', { model: 'echo', input: [true] }, 'input[0]', 'invalid_type', 'got a boolean'],
  ['a fraction as a token id', { model: 'echo', input: [1.5] }, 'input[0]', 'invalid_type', 'expected an integer'],
  ['a text among token ids', { model: 'echo', input: [1, 'a'] }, 'input[1]', 'invalid_type', 'expected an integer'],
  ['a negative token id', { model: 'echo', input: [-1] }, 'input[0]', 'invalid_value', 'from 0 to 2147483647'],
  ['a token id past int32', { model: 'echo', input: [2 ** 31] }, 'input[0]', 'invalid_value', 'but got 2147483648'],
  ['an empty token list', { model: 'echo', input: [[]] }, 'input[0]', 'empty_array', 'at least 1 id'],
  ['an empty token list later', { model: 'echo', input: [[1], []] }, 'input[1]', 'empty_array', 'at least 1 id'],
  ['an id among token lists', { model: 'echo', input: [[1], 2] }, 'input[1]', 'invalid_type', 'array of integers'],
  ['a text in a token list', { model: 'echo', input: [[1, 'x']] }, 'input[0][1]', 'invalid_type', 'an integer'],
  ['a list in a token list', { model: 'echo', input: [[[1]]] }, 'input[0][0]', 'invalid_type', 'got an array'],
  ['a fraction in a token list', { model: 'echo', input: [[2, 1.5]] }, 'input[0][1]', 'invalid_type', 'an integer'],
  ['2049 texts', { model: 'echo', input: texts(2049) }, 'input', 'array_above_max_length', 'at most 2048'],
  ['2049 token lists', { model: 'echo', input: lists(2049) }, 'input', 'array_above_max_length', 'at most 2048'],
  [
    'a text of 900,004 bytes (300,002 tokens by the estimate)',
    { model: 'echo', input: 'x'.repeat(900_004) },
    'input',
    'invalid_value',
    'about 300002 tokens',
  ],
  [
    'texts of 300,001 tokens by the estimate in all',
    { model: 'echo', input: [...texts(1).map(() => 'é'.repeat(450_000)), 'abc', 'd'] },
    'input',
    'invalid_value',
    'more than the 300000 one request may hold',
  ],
  [
    'a token list of 300,001 ids',
    { model: 'echo', input: Array.from({ length: 300_001 }, () => 7) },
    'input',
    'invalid_value',
    'about 300001 tokens',
  ],
  [
    'encoding_format unknown',
    { model: 'echo', input: 'x', encoding_format: 'float16' },
    'encoding_format',
    'invalid_value',
    "Supported values are: 'float', 'base64'",
  ],
  ['encoding_format null', { model: 'echo', input: 'x', encoding_format: null }, 'encoding_format', 'invalid_type', ''],
  ['dimensions 0', { model: 'echo', input: 'x', dimensions: 0 }, 'dimensions', 'invalid_value', 'equal to 1'],
  ['dimensions negative', { model: 'echo', input: 'x', dimensions: -8 }, 'dimensions', 'invalid_value', 'equal to 1'],
  ['dimensions a fraction', { model: 'echo', input: 'x', dimensions: 1.5 }, 'dimensions', 'invalid_type', 'integer'],
  ['dimensions a string', { model: 'echo', input: 'x', dimensions: '8' }, 'dimensions', 'invalid_type', 'integer'],
  ['dimensions null', { model: 'echo', input: 'x', dimensions: null }, 'dimensions', 'invalid_type', 'got null'],
  [
    'dimensions 1e999',
    '{"model":"echo","input":"x","dimensions":1e999}',
    'dimensions',
    'invalid_value',
    'too large to be represented',
  ],
  [
    'dimensions past what echo makes',
    { model: 'echo', input: 'x', dimensions: 3073 },
    'dimensions',
    'invalid_value',
    'echo makes vectors of 1 to 3072 dimensions',
  ],
  ['user a number', { model: 'echo', input: 'x', user: 7 }, 'user', 'invalid_type', 'expected a string'],
  [
    'an unknown field nested past 128 levels',
    { model: 'echo', input: 'x', extra: nested(130) },
    'extra[0][0][0][0]',
    'invalid_value',
    'at most 128 levels deep',
  ],
  [
    "an echo answer past CHAT_MAX_RESPONSE_BYTES (2048 × 1536 floats are about 40 MB; the cap's 8 MiB)",
    { model: 'echo', input: texts(2048) },
    'input',
    'response_too_large',
    'send fewer inputs',
  ],
]

describe('bad bodies: a 400 naming the field', () => {
  test.each(ROWS)('%s', async (_name, body, param, code, says) => {
    // A body given as a string is sent as it is (`not JSON`).
    const response = await embed(body)
    expect(response.status).toBe(400)
    expect(response.headers.get('content-type')).toBe('application/json')
    const { error } = await response.json()
    expect(error).toMatchObject({ type: 'invalid_request_error', param, code })
    expect(error.message).toContain(says)
  })
})

describe('what is accepted at the bounds', () => {
  test.each([
    ['2048 texts', { input: texts(2048), dimensions: 1 }, 2048],
    ['2048 token lists', { input: lists(2048), dimensions: 1 }, 2048],
    ['a text of exactly 300,000 tokens by the estimate', { input: 'x'.repeat(900_000) }, 1],
    ['a token list longer than 2048 ids (one input)', { input: Array.from({ length: 8191 }, () => 7) }, 1],
    ['fields Trellis does not model (echo ignores them)', { input: 'x', input_type: 'query', truncate: true }, 1],
    ['user', { input: 'x', user: 'end-user-1' }, 1],
  ])('%s', async (_name, body, vectors) => {
    const response = await embed({ model: 'echo', ...body })
    expect(response.status).toBe(200)
    expect((await response.json()).data).toHaveLength(vectors)
  })
})

describe('at the door', () => {
  test('a body over BODY_LIMIT: 413, before it is parsed', async () => {
    const response = await embed({ model: 'echo', input: 'x'.repeat(1024 * 1024 + 1) })
    expect(response.status).toBe(413)
    expect((await response.json()).error.code).toBe('request_too_large')
  })

  test('a body not declared as JSON: 415', async () => {
    const response = await t.request('/v1/embeddings', {
      method: 'POST',
      token: t.token,
      headers: { 'content-type': 'text/plain' },
      body: '{"model":"echo","input":"x"}',
    })
    expect(response.status).toBe(415)
  })

  test('no token: 401 before the body is read, so a bad body from a stranger learns nothing', async () => {
    const response = await t.request('/v1/embeddings', { method: 'POST', json: '{"model":' })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toContain('Bearer')
  })
})
