import { Buffer } from 'node:buffer'
import { createHash } from 'node:crypto'
import { type Embeddings, type EmbeddingsRequest, type JsonObject, ProviderError } from '../provider'
import { leadingTokens } from './tokenizer'

/*
 * echo's embeddings: vectors made from the input alone, so that clients and tests can rely on them
 * offline. They carry no meaning (two texts about the same thing are no closer than any other
 * two); they are what a vector store, a cache or a pipeline needs to be exercised:
 *
 * - The same input and `dimensions` always give the same vector, in every process and on every
 *   runtime; different inputs give different vectors (they are seeded by SHA-256 of the input).
 * - A vector is unit length, as OpenAI's are, and `dimensions: d` gives the first d components of
 *   the vector of {@link ECHO_MAX_DIMENSIONS}, renormalised: the way OpenAI's text-embedding-3
 *   models shorten theirs.
 * - A text is hashed as its UTF-16 code units (lone surrogates included); a token list as its ids,
 *   apart from texts, so that no token list ever gets the vector of a text.
 * - Each `float` component has 9 decimal places; `base64` is the same values as little-endian float32.
 * - Usage counts each text by echo's tokenizer (tokenizer.ts) and each token list by its ids.
 */

/** What `dimensions` is when a request leaves it out: text-embedding-3-small's. */
export const ECHO_DEFAULT_DIMENSIONS = 1536
/** The most `dimensions` echo makes: text-embedding-3-large's. */
export const ECHO_MAX_DIMENSIONS = 3072

/** Bytes of the answer outside the vectors, at most: the envelope, usage and model name. */
const ENVELOPE_BYTES = 256
/** Bytes of one `data` entry outside its vector, at most (`{"object":"embedding","index":2047,"embedding":[]},`). */
const ENTRY_BYTES = 64
/** The longest a `float` component is written: `-0.123456789` and a comma. */
const FLOAT_BYTES = 13

/** echo's `embeddings`: answers never larger than `maxResponseBytes` (a 400 `response_too_large` instead). */
export function echoEmbeddings(maxResponseBytes: number): Embeddings {
  return {
    async create(request, signal) {
      signal.throwIfAborted()
      return embed(request, maxResponseBytes)
    },
  }
}

function embed(request: EmbeddingsRequest, limit: number): JsonObject {
  const dimensions = dimensionsOf(request)
  const base64 = request.encoding_format === 'base64'
  const inputs: (string | number[])[] = request.input
  const perVector = base64 ? 4 * Math.ceil((dimensions * 4) / 3) + 2 : dimensions * FLOAT_BYTES
  if (ENVELOPE_BYTES + request.model.length * 6 + inputs.length * (ENTRY_BYTES + perVector) > limit)
    throw tooLarge(inputs.length, limit)
  let tokens = 0
  const data = inputs.map((input, index) => {
    const text = typeof input === 'string'
    tokens += text ? leadingTokens(input, Number.POSITIVE_INFINITY).count : input.length
    const vector = unitVector(text ? seedOfText(input) : seedOfTokens(input), dimensions)
    return { object: 'embedding', index, embedding: base64 ? float32Base64(vector) : vector }
  })
  return { object: 'list', data, model: request.model, usage: { prompt_tokens: tokens, total_tokens: tokens } }
}

/** The route has checked that `dimensions` is a positive integer when present; the bound is echo's. */
function dimensionsOf(request: EmbeddingsRequest): number {
  const asked = request.dimensions
  if (typeof asked !== 'number') return ECHO_DEFAULT_DIMENSIONS
  if (asked > ECHO_MAX_DIMENSIONS)
    throw new ProviderError(
      400,
      `Invalid 'dimensions': echo makes vectors of 1 to ${ECHO_MAX_DIMENSIONS} dimensions, but ${asked} were asked for.`,
      { type: 'invalid_request_error', param: 'dimensions', code: 'invalid_value' },
    )
  return asked
}

/** The 400 for an answer larger than the cap, made before any vector is: the client can ask for less. */
function tooLarge(inputs: number, limit: number): ProviderError {
  const param = inputs > 1 ? 'input' : 'dimensions'
  return new ProviderError(
    400,
    `The answer would be larger than this server's limit of ${limit} bytes per response; send fewer inputs, ` +
      "lower 'dimensions', or ask for encoding_format 'base64' (a third of the size).",
    { type: 'invalid_request_error', param, code: 'response_too_large' },
  )
}

/** 128 bits of SHA-256 of a text's UTF-16 code units, after a prefix that keeps texts apart from token lists. */
function seedOfText(text: string): Uint32Array {
  return seedOf(createHash('sha256').update('text:').update(Buffer.from(text, 'utf16le')).digest())
}

function seedOfTokens(ids: number[]): Uint32Array {
  const bytes = Buffer.alloc(ids.length * 4)
  ids.forEach((id, i) => bytes.writeUInt32LE(id, i * 4))
  return seedOf(createHash('sha256').update('tokens:').update(bytes).digest())
}

const seedOf = (digest: Buffer): Uint32Array =>
  Uint32Array.of(digest.readUInt32LE(0), digest.readUInt32LE(4), digest.readUInt32LE(8), digest.readUInt32LE(12))

/**
 * `dimensions` components drawn from xoshiro128** seeded with `seed` (Blackman and Vigna's published
 * generator: a few integer operations a component, where hashing each would cost a SHA-256 call),
 * each uniform in (-1, 1) and never 0, so the norm is never 0; then scaled to unit length and
 * rounded to 9 decimal places. The components are drawn in order, so every `dimensions` ≥ d starts
 * with the same d, before scaling.
 */
function unitVector(seed: Uint32Array, dimensions: number): number[] {
  let s0 = seed[0]!
  let s1 = seed[1]!
  let s2 = seed[2]!
  let s3 = seed[3]!
  // A plain array, filled in order: what JSON.stringify writes fastest, and no copy for `float`.
  const vector: number[] = []
  let sum = 0
  for (let i = 0; i < dimensions; i++) {
    const scrambled = Math.imul(s1, 5)
    const next = Math.imul((scrambled << 7) | (scrambled >>> 25), 9) >>> 0
    const shifted = s1 << 9
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= shifted
    s3 = (s3 << 11) | (s3 >>> 21)
    const component = (next + 0.5) / 2 ** 31 - 1
    vector.push(component)
    sum += component * component
  }
  const scale = 1 / Math.sqrt(sum)
  for (let i = 0; i < dimensions; i++) vector[i] = Math.round(vector[i]! * scale * 1e9) / 1e9
  return vector
}

/** The vector as OpenAI's `base64` encoding has it: little-endian float32 bytes, base64-encoded. */
function float32Base64(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4)
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4)
  return bytes.toString('base64')
}
