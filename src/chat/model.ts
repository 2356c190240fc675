import { Integer } from '../http/integer'
import { t, type Static } from 'elysia'

/*
 * TypeBox schemas for the OpenAI Chat Completions wire format with DeepSeek's additions
 * (`reasoning_content`, prompt cache counters, `completion_tokens_details.reasoning_tokens`).
 *
 * Every object is open (`additionalProperties: true`): vendors add fields all the time and
 * the relay must pass them through untouched, so unknown fields are never rejected.
 * Optional fields also accept `null`, because the OpenAI SDK types allow it and sends it.
 */

const open = { additionalProperties: true } as const

const nullable = <T extends Parameters<typeof t.Optional>[0]>(schema: T) => t.Optional(t.Union([schema, t.Null()]))

/** OpenAI allows at most 4 stop sequences; DeepSeek and vLLM allow 16, which we follow. */
export const MAX_STOP_SEQUENCES = 16

/*
 * Bounds on everything a request can multiply (OWASP API4). Where OpenAI documents one, it is
 * OpenAI's: `n` 1..128, `top_logprobs` 0..20, 128 tools, 2048 messages, 300 `logit_bias` entries.
 * OpenAI bounds `max_tokens` by the model's context; a gateway in front of several models
 * takes 1,048,576, above every model it may relay to. The answer as a whole is capped too
 * (`CHAT_MAX_RESPONSE_BYTES`, see src/config/chat.ts), since these bounds multiply each other.
 */
export const MAX_MESSAGES = 2048
export const MAX_CONTENT_PARTS = 1024
export const MAX_TOOLS = 128
const MAX_TOOL_CALLS = 128
const MAX_CHOICES = 128
const MAX_TOP_LOGPROBS = 20
const MAX_LOGIT_BIAS = 300
export const MAX_OUTPUT_TOKENS = 1_048_576

/** A part of a multi-part message content (`text`, `image_url`, `input_audio`, …). */
const ContentPart = t.Object({ type: t.String({ minLength: 1 }) }, open)

/** A tool call made by the assistant, as sent back in the conversation or returned in a response. */
export const ToolCall = t.Object(
  {
    id: t.String(),
    type: t.Literal('function'),
    function: t.Object({ name: t.String(), arguments: t.String() }, open),
  },
  open,
)
export type ToolCall = Static<typeof ToolCall>

/** Roles a request message may have; `function` (deprecated by OpenAI) is not supported. */
const MessageRole = t.Union([
  t.Literal('system'),
  t.Literal('developer'),
  t.Literal('user'),
  t.Literal('assistant'),
  t.Literal('tool'),
])

/**
 * One message of the conversation. Rules that depend on the role (a `tool` message needs
 * `tool_call_id`, only an assistant may omit `content`) are checked in `request.ts`,
 * so an error can name the exact field rather than "no variant of the union matched".
 */
export const RequestMessage = t.Object(
  {
    role: MessageRole,
    content: nullable(t.Union([t.String(), t.Array(ContentPart, { maxItems: MAX_CONTENT_PARTS })])),
    name: t.Optional(t.String()),
    tool_calls: nullable(t.Array(ToolCall, { maxItems: MAX_TOOL_CALLS })),
    tool_call_id: t.Optional(t.String()),
    reasoning_content: nullable(t.String()),
  },
  open,
)
export type RequestMessage = Static<typeof RequestMessage>

/** An OpenAI function tool; `parameters` is a JSON Schema object. */
export const FunctionTool = t.Object(
  {
    type: t.Literal('function'),
    function: t.Object(
      {
        name: t.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' }),
        description: t.Optional(t.String()),
        parameters: t.Optional(t.Object({}, open)),
        strict: nullable(t.Boolean()),
      },
      open,
    ),
  },
  open,
)
export type FunctionTool = Static<typeof FunctionTool>

/** `{type: "function", function: {name}}`: force a call to that tool. */
const NamedToolChoice = t.Object({ type: t.Literal('function'), function: t.Object({ name: t.String() }, open) }, open)

const ToolChoice = t.Union([t.Literal('none'), t.Literal('auto'), t.Literal('required'), NamedToolChoice])
type ToolChoice = Static<typeof ToolChoice>

const ResponseFormat = t.Object(
  {
    type: t.Union([t.Literal('text'), t.Literal('json_object'), t.Literal('json_schema')]),
    json_schema: t.Optional(
      t.Object(
        {
          name: t.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' }),
          description: t.Optional(t.String()),
          schema: t.Optional(t.Object({}, open)),
          strict: nullable(t.Boolean()),
        },
        open,
      ),
    ),
  },
  open,
)

/** The body of `POST /chat/completions`. Bounds are OpenAI's. */
export const ChatCompletionRequest = t.Object(
  {
    model: t.String({ minLength: 1 }),
    messages: t.Array(RequestMessage, { minItems: 1, maxItems: MAX_MESSAGES }),
    frequency_penalty: nullable(t.Number({ minimum: -2, maximum: 2 })),
    presence_penalty: nullable(t.Number({ minimum: -2, maximum: 2 })),
    logit_bias: nullable(
      t.Record(t.String(), t.Number({ minimum: -100, maximum: 100 }), { maxProperties: MAX_LOGIT_BIAS }),
    ),
    logprobs: nullable(t.Boolean()),
    top_logprobs: nullable(Integer({ minimum: 0, maximum: MAX_TOP_LOGPROBS })),
    max_tokens: nullable(Integer({ minimum: 1, maximum: MAX_OUTPUT_TOKENS })),
    max_completion_tokens: nullable(Integer({ minimum: 1, maximum: MAX_OUTPUT_TOKENS })),
    n: nullable(Integer({ minimum: 1, maximum: MAX_CHOICES })),
    response_format: t.Optional(ResponseFormat),
    seed: nullable(Integer()),
    stop: nullable(t.Union([t.String(), t.Array(t.String(), { maxItems: MAX_STOP_SEQUENCES })])),
    stream: nullable(t.Boolean()),
    stream_options: nullable(t.Object({ include_usage: t.Optional(t.Boolean()) }, open)),
    temperature: nullable(t.Number({ minimum: 0, maximum: 2 })),
    top_p: nullable(t.Number({ minimum: 0, maximum: 1 })),
    tools: nullable(t.Array(FunctionTool, { maxItems: MAX_TOOLS })),
    tool_choice: t.Optional(ToolChoice),
    parallel_tool_calls: nullable(t.Boolean()),
    user: t.Optional(t.String()),
  },
  open,
)
export type ChatCompletionRequest = Static<typeof ChatCompletionRequest>

/** Why a choice stopped. `content_filter` is OpenAI's and may come from a relayed upstream. */
export const FinishReason = t.Union([
  t.Literal('stop'),
  t.Literal('length'),
  t.Literal('tool_calls'),
  t.Literal('content_filter'),
])
export type FinishReason = Static<typeof FinishReason>

const TopLogprob = t.Object(
  { token: t.String(), logprob: t.Number(), bytes: t.Union([t.Array(Integer()), t.Null()]) },
  open,
)

/** One sampled token with its log-probability and the most likely alternatives. */
export const TokenLogprob = t.Object(
  {
    token: t.String(),
    logprob: t.Number(),
    bytes: t.Union([t.Array(Integer()), t.Null()]),
    top_logprobs: t.Array(TopLogprob),
  },
  open,
)
export type TokenLogprob = Static<typeof TokenLogprob>

/** OpenAI's schema requires both lists; `refusal` is `null` unless the model refused (echo never does). */
const Logprobs = t.Object(
  { content: t.Union([t.Array(TokenLogprob), t.Null()]), refusal: t.Union([t.Array(TokenLogprob), t.Null()]) },
  open,
)
type Logprobs = Static<typeof Logprobs>

/** Token counts; the cache and reasoning counters are DeepSeek's. */
export const Usage = t.Object(
  {
    prompt_tokens: Integer({ minimum: 0 }),
    completion_tokens: Integer({ minimum: 0 }),
    total_tokens: Integer({ minimum: 0 }),
    prompt_cache_hit_tokens: t.Optional(Integer({ minimum: 0 })),
    prompt_cache_miss_tokens: t.Optional(Integer({ minimum: 0 })),
    prompt_tokens_details: t.Optional(
      t.Object(
        {
          cached_tokens: Integer({ minimum: 0 }),
          // OpenRouter's name: prompt tokens written to a cache (an Anthropic upstream's cache_creation_input_tokens).
          cache_write_tokens: t.Optional(Integer({ minimum: 0 })),
        },
        open,
      ),
    ),
    completion_tokens_details: t.Optional(t.Object({ reasoning_tokens: Integer({ minimum: 0 }) }, open)),
  },
  open,
)
export type Usage = Static<typeof Usage>

export const ResponseMessage = t.Object(
  {
    role: t.Literal('assistant'),
    content: t.Union([t.String(), t.Null()]),
    reasoning_content: t.Optional(t.Union([t.String(), t.Null()])),
    /** OpenAI's; the SDK types require it, so providers send `null`. */
    refusal: t.Optional(t.Union([t.String(), t.Null()])),
    tool_calls: t.Optional(t.Array(ToolCall)),
  },
  open,
)
export type ResponseMessage = Static<typeof ResponseMessage>

const Choice = t.Object(
  {
    index: Integer({ minimum: 0 }),
    message: ResponseMessage,
    logprobs: t.Union([Logprobs, t.Null()]),
    finish_reason: FinishReason,
  },
  open,
)
type Choice = Static<typeof Choice>

/** The non-streaming response, `object: "chat.completion"`; `created` is in unix seconds. */
export const ChatCompletionResponse = t.Object(
  {
    id: t.String(),
    object: t.Literal('chat.completion'),
    created: Integer(),
    model: t.String(),
    system_fingerprint: t.Union([t.String(), t.Null()]),
    choices: t.Array(Choice),
    usage: t.Optional(Usage),
  },
  open,
)
export type ChatCompletionResponse = Static<typeof ChatCompletionResponse>

/**
 * A streamed tool-call fragment: the first carries `id`, `type` and `function.name` with
 * `arguments: ""`; later ones carry `index` and a piece of `arguments`.
 */
const ToolCallDelta = t.Object(
  {
    index: Integer({ minimum: 0 }),
    id: t.Optional(t.String()),
    type: t.Optional(t.Literal('function')),
    function: t.Optional(t.Object({ name: t.Optional(t.String()), arguments: t.Optional(t.String()) }, open)),
  },
  open,
)
type ToolCallDelta = Static<typeof ToolCallDelta>

export const ChunkDelta = t.Object(
  {
    role: t.Optional(t.Literal('assistant')),
    content: t.Optional(t.Union([t.String(), t.Null()])),
    reasoning_content: t.Optional(t.Union([t.String(), t.Null()])),
    refusal: t.Optional(t.Union([t.String(), t.Null()])),
    tool_calls: t.Optional(t.Array(ToolCallDelta)),
  },
  open,
)
export type ChunkDelta = Static<typeof ChunkDelta>

export const ChunkChoice = t.Object(
  {
    index: Integer({ minimum: 0 }),
    delta: ChunkDelta,
    logprobs: t.Optional(t.Union([Logprobs, t.Null()])),
    finish_reason: t.Union([FinishReason, t.Null()]),
  },
  open,
)
export type ChunkChoice = Static<typeof ChunkChoice>

/** One streamed event, `object: "chat.completion.chunk"`; the usage chunk has `choices: []`. */
const ChatCompletionChunkSchema = t.Object(
  {
    id: t.String(),
    object: t.Literal('chat.completion.chunk'),
    created: Integer(),
    model: t.String(),
    system_fingerprint: t.Optional(t.Union([t.String(), t.Null()])),
    choices: t.Array(ChunkChoice),
    usage: t.Optional(t.Union([Usage, t.Null()])),
  },
  open,
)
export type ChatCompletionChunkObject = Static<typeof ChatCompletionChunkSchema>

/** One entry of `GET /models`. */
export const ModelEntry = t.Object({
  id: t.String(),
  object: t.Literal('model'),
  created: Integer(),
  owned_by: t.String(),
})

export const ModelList = t.Object({ object: t.Literal('list'), data: t.Array(ModelEntry) })
export type ModelList = Static<typeof ModelList>
