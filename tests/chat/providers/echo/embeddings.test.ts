import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { MAX_INPUT_TOKENS } from '../../../../src/chat/embeddings/model'
import { tokenEstimate } from '../../../../src/chat/embeddings/request'
import { createEchoProvider } from '../../../../src/chat/providers/echo/echo'
import { ECHO_DEFAULT_DIMENSIONS, ECHO_MAX_DIMENSIONS } from '../../../../src/chat/providers/echo/embeddings'
import { tokenize } from '../../../../src/chat/providers/echo/tokenizer'
import { type EmbeddingsRequest, ProviderError } from '../../../../src/chat/providers/provider'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/*
 * echo's embeddings (src/chat/providers/echo/embeddings.ts): deterministic unit vectors made from
 * the input, OpenAI's answer shape, usage by echo's tokenizer, and bounded work.
 */

type Answer = {
  object: string
  model: string
  data: { object: string; index: number; embedding: number[] | string }[]
  usage: { prompt_tokens: number; total_tokens: number }
}

const signal = () => new AbortController().signal

async function embed(
  request: Partial<EmbeddingsRequest> & Pick<EmbeddingsRequest, 'input'>,
  maxResponseBytes?: number,
) {
  const provider = createEchoProvider(maxResponseBytes ? { maxResponseBytes } : {})
  return (await provider.embeddings!.create({ model: 'echo', ...request }, signal())) as Answer
}

const vectors = async (input: EmbeddingsRequest['input'], extra: Partial<EmbeddingsRequest> = {}) =>
  (await embed({ input, ...extra })).data.map((entry) => entry.embedding as number[])

const norm = (vector: number[]) => Math.hypot(...vector)
const dot = (a: number[], b: number[]) => a.reduce((sum, value, i) => sum + value * b[i]!, 0)

/** Little-endian float32 values of a base64 string. */
function float32s(base64: string): number[] {
  const bytes = Buffer.from(base64, 'base64')
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4))
}

describe('vectors', () => {
  test("OpenAI's answer: a list of embedding objects in input order, the model, and usage", async () => {
    const answer = await embed({ input: ['a', 'b c'] })
    expect(Object.keys(answer)).toEqual(['object', 'data', 'model', 'usage'])
    expect(answer.object).toBe('list')
    expect(answer.model).toBe('echo')
    expect(answer.data.map(({ object, index }) => ({ object, index }))).toEqual([
      { object: 'embedding', index: 0 },
      { object: 'embedding', index: 1 },
    ])
  })

  test(`unit length, ${ECHO_DEFAULT_DIMENSIONS} dimensions unless asked otherwise`, async () => {
    const [vector] = await vectors(['The food was delicious and the waiter was friendly.'])
    expect(vector).toHaveLength(ECHO_DEFAULT_DIMENSIONS)
    expect(norm(vector!)).toBeCloseTo(1, 6)
  })

  test('the same text gives the same vector, in this process and in any other (a pinned prefix)', async () => {
    const [first, again] = await vectors(['Hello, world!', 'Hello, world!'])
    expect(again).toEqual(first!)
    expect((await vectors(['Hello, world!']))[0]).toEqual(first!)
    expect(first!.slice(0, 4)).toEqual([0.02556605, 0.041466015, -0.025326947, 0.019084647])
  })

  test('different texts give different vectors, far from each other', async () => {
    const texts = ['Hello, world!', 'Hello, world', 'hello, world!', 'Hello, world! ', '🌱', '\ud800', '\ud801']
    const all = await vectors(texts)
    for (let i = 0; i < all.length; i++)
      for (let j = i + 1; j < all.length; j++) {
        expect({ pair: [texts[i], texts[j]], same: Bun.deepEquals(all[i], all[j]) }).toEqual({
          pair: [texts[i], texts[j]],
          same: false,
        })
        // Random unit vectors of 1536 dimensions have a cosine of about 0 ± 0.03.
        expect(Math.abs(dot(all[i]!, all[j]!))).toBeLessThan(0.15)
      }
  })

  test('dimensions: the first components of the longest vector, back to unit length', async () => {
    const [longest] = await vectors(['shorten me'], { dimensions: ECHO_MAX_DIMENSIONS })
    for (const dimensions of [1, 2, 3, 256, 1024, 3071]) {
      const [short] = await vectors(['shorten me'], { dimensions })
      expect(short).toHaveLength(dimensions)
      expect(norm(short!)).toBeCloseTo(1, 6)
      const scale = norm(longest!.slice(0, dimensions))
      // Both are rounded to 9 places, which scaling a short prefix back up magnifies.
      short!.forEach((value, i) => expect(value).toBeCloseTo(longest![i]! / scale, 6))
    }
  })

  test('each float has at most 9 decimal places', async () => {
    const [vector] = await vectors(['precision'])
    for (const value of vector!) expect(Math.round(value * 1e9) / 1e9).toBe(value)
  })

  test('base64: the float values as little-endian float32 bytes', async () => {
    const input = ['one', 'two']
    const floats = await vectors(input, { dimensions: 64 })
    const encoded = await embed({ input, dimensions: 64, encoding_format: 'base64' })
    encoded.data.forEach((entry, i) => {
      expect(typeof entry.embedding).toBe('string')
      expect(Buffer.from(entry.embedding as string, 'base64')).toHaveLength(64 * 4)
      expect(float32s(entry.embedding as string)).toEqual(floats[i]!.map(Math.fround))
    })
  })

  test('token lists: embedded from their ids, never as a text, one token per id', async () => {
    const answer = await embed({ input: [[9906, 11, 1917, 0], [9906, 11, 1917, 0], [9906], [0]] })
    const [list, again, one, zero] = answer.data.map((entry) => entry.embedding as number[])
    expect(again).toEqual(list!)
    expect(one).not.toEqual(list!)
    expect(zero).not.toEqual(one!)
    expect(norm(list!)).toBeCloseTo(1, 6)
    expect(answer.usage).toEqual({ prompt_tokens: 10, total_tokens: 10 })
    // A token list and the text of its ids are different inputs.
    const [text] = await vectors(['9906'])
    expect(text).not.toEqual(one!)
  })
})

describe('usage', () => {
  test("each text counted by echo's tokenizer, summed; total_tokens the same", async () => {
    const input = ['Hello, world!\n', 'The quick brown fox', '🌱🌱 x']
    const tokens = input.reduce((sum, text) => sum + tokenize(text).length, 0)
    expect(tokens).toBe(5 + 4 + 3)
    expect((await embed({ input })).usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens })
  })
})

describe('bounds', () => {
  test(`dimensions above ${ECHO_MAX_DIMENSIONS}: a 400 naming dimensions`, async () => {
    const refused = await embed({ input: ['x'], dimensions: ECHO_MAX_DIMENSIONS + 1 }).catch((error) => error)
    expect(refused).toBeInstanceOf(ProviderError)
    expect(refused).toMatchObject({ status: 400, options: { param: 'dimensions', code: 'invalid_value' } })
    expect(refused.message).toContain(`1 to ${ECHO_MAX_DIMENSIONS}`)
  })

  test.each([
    ['many inputs', Array.from({ length: 400 }, (_, i) => `text ${i}`), 'float', 'input'],
    ['one input of many dimensions', ['x'], 'float', 'dimensions'],
  ] as const)(
    'an answer past the response cap is a 400 response_too_large, before any vector is made: %s',
    async (_, input, encoding_format, param) => {
      const refused = await embed(
        { input: [...input], encoding_format, dimensions: ECHO_MAX_DIMENSIONS },
        32_768,
      ).catch((error) => error)
      expect(refused).toMatchObject({ status: 400, options: { param, code: 'response_too_large' } })
    },
  )

  test('the cap counts the real size: the largest answer that fits is made, and is within it', async () => {
    const limit = 256 * 1024
    // base64 of 1536 float32 is 8192 characters: 30 of them fit in 256 KiB with room for the rest.
    const input = Array.from({ length: 30 }, (_, i) => `text ${i}`)
    const answer = await embed({ input, encoding_format: 'base64' }, limit)
    expect(JSON.stringify(answer).length).toBeLessThanOrEqual(limit)
    const floats = await embed({ input: input.slice(0, 12) }, limit)
    expect(JSON.stringify(floats).length).toBeLessThanOrEqual(limit)
  })

  test('2048 inputs of 438 bytes (the most text a request may hold) at 1536 dimensions take well under a second or two', async () => {
    const input = Array.from({ length: 2048 }, (_, i) => `input ${i} `.repeat(60).slice(0, 438))
    // 146 tokens each by the estimate: 299,008 in all, just under what the route lets through.
    expect(tokenEstimate(input)).toBe(299_008)
    expect(tokenEstimate(input)).toBeLessThanOrEqual(MAX_INPUT_TOKENS)
    for (const encoding_format of ['base64', 'float']) {
      const started = performance.now()
      const answer = await embed({ input, encoding_format }, 64 * 1024 * 1024)
      const body = JSON.stringify(answer)
      const elapsed = performance.now() - started
      expect(answer.data).toHaveLength(2048)
      expect(body.length).toBeGreaterThan(16_000_000)
      // About 0.15 s (base64) and 0.35 s (float, 39 MB of JSON) on one core; the bound leaves room for a busy machine.
      expect(elapsed).toBeLessThan(3_000)
    }
  })

  test('an aborted request makes nothing', async () => {
    const controller = new AbortController()
    controller.abort(new Error('gone'))
    const provider = createEchoProvider()
    await expect(provider.embeddings!.create({ model: 'echo', input: ['x'] }, controller.signal)).rejects.toThrow(
      'gone',
    )
  })
})
