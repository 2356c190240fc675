import { t, type Static } from 'elysia'
import { Integer } from '../../http/integer'

/*
 * TypeBox schemas of OpenAI's `POST /embeddings` (CreateEmbeddingRequest, CreateEmbeddingResponse).
 * The request is open, as chat's is: fields Trellis does not model (a vendor's `input_type`,
 * `truncate_prompt_tokens`…) reach an upstream untouched; echo ignores them. Optional fields
 * do not take `null`: OpenAI's schema and SDKs never send it.
 */

const open = { additionalProperties: true } as const

/** OpenAI's bound on the inputs of one request. */
export const MAX_INPUTS = 2048
/**
 * OpenAI's bound on the tokens of one request, summed over its inputs, counted as the limits
 * reserve them: a text at one token per three bytes of UTF-8 (so about 900 KB of text), a token
 * list by its ids.
 */
export const MAX_INPUT_TOKENS = 300_000
/** Token ids are what tokenizers hold in an int32. */
export const MAX_TOKEN_ID = 2_147_483_647

const TokenId = Integer({ minimum: 0, maximum: MAX_TOKEN_ID })

/**
 * The body of `POST /embeddings`. `input` is checked by request.ts rather than by this union, so
 * that a 400 names the very item at fault (`input[3][7]`).
 */
export const CreateEmbeddingRequest = t.Object(
  {
    model: t.String({ minLength: 1, description: 'A public model name, as `GET /models` lists them.' }),
    input: t.Union(
      [
        t.String({ minLength: 1, description: 'One text.' }),
        t.Array(t.String({ minLength: 1 }), { minItems: 1, maxItems: MAX_INPUTS, description: 'Several texts.' }),
        t.Array(TokenId, { minItems: 1, description: 'One input as token ids.' }),
        t.Array(t.Array(TokenId, { minItems: 1 }), {
          minItems: 1,
          maxItems: MAX_INPUTS,
          description: 'Several inputs as token ids.',
        }),
      ],
      {
        description:
          `What to embed: one text, up to ${MAX_INPUTS} texts, or the same as token ids. No text may be empty; ` +
          `all together hold at most ${MAX_INPUT_TOKENS} tokens (a text counted at one per three bytes of UTF-8).`,
      },
    ),
    encoding_format: t.Optional(
      t.Union([t.Literal('float'), t.Literal('base64')], {
        description: '`float` (the default) or `base64`: each vector as little-endian float32 bytes, base64-encoded.',
      }),
    ),
    dimensions: t.Optional(
      Integer({
        minimum: 1,
        description: 'How many dimensions each vector has (echo: 1 to 3072, default 1536).',
      }),
    ),
    user: t.Optional(t.String({ description: 'Your end user, passed on to an upstream.' })),
  },
  open,
)
export type CreateEmbeddingRequest = Static<typeof CreateEmbeddingRequest>

/** One vector: a list of floats, or with `encoding_format: base64` a string. */
const Embedding = t.Object(
  {
    object: t.Literal('embedding'),
    index: Integer({ minimum: 0 }),
    embedding: t.Union([t.Array(t.Number()), t.String({ description: 'little-endian float32 bytes, base64' })]),
  },
  open,
)

/** The answer of `POST /embeddings`: the vectors in input order, the model and the usage. */
export const CreateEmbeddingResponse = t.Object(
  {
    object: t.Literal('list'),
    data: t.Array(Embedding),
    model: t.String(),
    usage: t.Object({ prompt_tokens: Integer({ minimum: 0 }), total_tokens: Integer({ minimum: 0 }) }, open),
  },
  open,
)
