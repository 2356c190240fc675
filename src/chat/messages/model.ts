import { t, type Static, type TSchema } from 'elysia'
import { MIN_THINKING_BUDGET } from '../providers/anthropic/settings'
import { Integer } from '../../http/integer'
import { MAX_CONTENT_PARTS, MAX_MESSAGES, MAX_OUTPUT_TOKENS, MAX_STOP_SEQUENCES, MAX_TOOLS } from '../model'

/*
 * TypeBox schemas for Anthropic's Messages API (`POST /v1/messages`, `/v1/messages/count_tokens`).
 *
 * Every object is open: Anthropic adds fields often, and a native Anthropic provider receives the
 * client's body as it came, so fields Trellis does not model are accepted here (what happens to them
 * on a model that is not natively Anthropic is decided in translate.ts). Unlike OpenAI's, optional
 * fields do not take `null`: Anthropic's API refuses it. The bounds are the OpenAI route's (see the
 * MAX_* in ../model.ts), since a request may be translated into one.
 */

const open = { additionalProperties: true } as const

/**
 * Any content block: its `type` picks the schema it must then match (see {@link BLOCKS}); unknown types pass as they
 * are.
 */
export const ContentBlock = t.Object(
  { type: t.String({ minLength: 1 }) },
  { ...open, description: 'A content block; `type` picks its shape' },
)

export const TextBlock = t.Object({ type: t.Literal('text'), text: t.String() }, open)

/** `base64` (`media_type`, `data`), `url` (`url`) or `file` (`file_id`). */
const ImageSource = t.Object({ type: t.String({ minLength: 1 }) }, open)
export const ImageBlock = t.Object({ type: t.Literal('image'), source: ImageSource }, open)
const DocumentBlock = t.Object(
  { type: t.Literal('document'), source: t.Object({ type: t.String({ minLength: 1 }) }, open) },
  open,
)
export const ToolUseBlock = t.Object(
  {
    type: t.Literal('tool_use'),
    id: t.String({ minLength: 1 }),
    name: t.String({ minLength: 1 }),
    input: t.Object({}, open),
  },
  open,
)
export const ToolResultBlock = t.Object(
  {
    type: t.Literal('tool_result'),
    tool_use_id: t.String({ minLength: 1 }),
    content: t.Optional(t.Union([t.String(), t.Array(ContentBlock, { maxItems: MAX_CONTENT_PARTS })])),
    is_error: t.Optional(t.Boolean()),
  },
  open,
)
const ThinkingBlock = t.Object({ type: t.Literal('thinking'), thinking: t.String(), signature: t.String() }, open)
const RedactedThinkingBlock = t.Object({ type: t.Literal('redacted_thinking'), data: t.String() }, open)

/** The blocks Trellis models, by `type`: a block of one of these types must match its schema. */
export const BLOCKS: Record<string, TSchema> = {
  text: TextBlock,
  image: ImageBlock,
  document: DocumentBlock,
  tool_use: ToolUseBlock,
  tool_result: ToolResultBlock,
  thinking: ThinkingBlock,
  redacted_thinking: RedactedThinkingBlock,
}
export type TextBlock = Static<typeof TextBlock>
export type ImageBlock = Static<typeof ImageBlock>
export type ToolUseBlock = Static<typeof ToolUseBlock>
export type ToolResultBlock = Static<typeof ToolResultBlock>
type ThinkingBlock = Static<typeof ThinkingBlock>
export type ContentBlock = Static<typeof ContentBlock>

/**
 * A turn. `system` is not in Anthropic's documentation, but its SDK types it and Claude Code sends
 * it (an instruction at its place in the conversation, with text blocks or a string).
 */
export const MessageParam = t.Object(
  {
    role: t.Union([t.Literal('user'), t.Literal('assistant'), t.Literal('system')]),
    content: t.Union([t.String(), t.Array(ContentBlock, { maxItems: MAX_CONTENT_PARTS })]),
  },
  open,
)
export type MessageParam = Static<typeof MessageParam>

/**
 * A tool. A custom tool (no `type`, or `custom`) needs `input_schema`; Anthropic's server tools
 * (`web_search_20250305`, `bash_20250124`, …) have a `type` and no schema.
 */
export const Tool = t.Object(
  {
    name: t.String({ pattern: '^[a-zA-Z0-9_-]{1,128}$' }),
    type: t.Optional(t.String({ minLength: 1 })),
    description: t.Optional(t.String()),
    input_schema: t.Optional(t.Object({ type: t.Literal('object') }, open)),
    strict: t.Optional(t.Boolean()),
  },
  open,
)
export type Tool = Static<typeof Tool>

export const ToolChoice = t.Object(
  {
    type: t.Union([t.Literal('auto'), t.Literal('any'), t.Literal('tool'), t.Literal('none')]),
    name: t.Optional(t.String({ minLength: 1 })),
    disable_parallel_tool_use: t.Optional(t.Boolean()),
  },
  open,
)
export type ToolChoice = Static<typeof ToolChoice>

/**
 * `enabled` needs `budget_tokens` (at least 1024, below `max_tokens`); `adaptive` lets the model decide;
 * `between_tools` is thinking off with progress notes between tool calls. `display` is `summarized` or
 * `omitted` in the SDK, and other words in Claude Code (`updates`).
 */
export const ThinkingConfig = t.Object(
  {
    type: t.Union([t.Literal('enabled'), t.Literal('disabled'), t.Literal('adaptive'), t.Literal('between_tools')]),
    budget_tokens: t.Optional(Integer({ minimum: MIN_THINKING_BUDGET, maximum: MAX_OUTPUT_TOKENS })),
    display: t.Optional(t.Union([t.String(), t.Null()])),
  },
  open,
)
export type ThinkingConfig = Static<typeof ThinkingConfig>

/** `effort` (`low` … `max`) and `format` (`{type: "json_schema", schema}`); the SDK sends `null` for either. */
const OutputConfig = t.Object(
  {
    effort: t.Optional(t.Union([t.String({ minLength: 1 }), t.Null()])),
    format: t.Optional(t.Union([t.Object({ type: t.String({ minLength: 1 }) }, open), t.Null()])),
  },
  open,
)

const System = t.Union([t.String(), t.Array(TextBlock, { maxItems: MAX_CONTENT_PARTS })])

/** What a Messages request and a count_tokens request share: the prompt. */
const promptFields = {
  model: t.String({ minLength: 1 }),
  messages: t.Array(MessageParam, { minItems: 1, maxItems: MAX_MESSAGES }),
  system: t.Optional(System),
  tools: t.Optional(t.Array(Tool, { maxItems: MAX_TOOLS })),
  tool_choice: t.Optional(ToolChoice),
  thinking: t.Optional(ThinkingConfig),
}

/** The body of `POST /v1/messages`. */
export const MessagesRequest = t.Object(
  {
    ...promptFields,
    max_tokens: Integer({ minimum: 1, maximum: MAX_OUTPUT_TOKENS }),
    stop_sequences: t.Optional(t.Array(t.String(), { maxItems: MAX_STOP_SEQUENCES })),
    stream: t.Optional(t.Boolean()),
    temperature: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
    top_p: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
    top_k: t.Optional(Integer({ minimum: 0 })),
    metadata: t.Optional(t.Object({ user_id: t.Optional(t.Union([t.String({ maxLength: 256 }), t.Null()])) }, open)),
    output_config: t.Optional(OutputConfig),
  },
  open,
)
export type MessagesRequest = Static<typeof MessagesRequest>

/** The body of `POST /v1/messages/count_tokens`: the prompt of a Messages request. */
export const CountTokensRequest = t.Object(promptFields, open)
export type CountTokensRequest = Static<typeof CountTokensRequest>

export const CountTokensResponse = t.Object({ input_tokens: Integer({ minimum: 0 }) })

const nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()])

/**
 * Usage as the SDK types it. `cache_creation_input_tokens` is 0 for a translated model: OpenAI-style
 * caching writes nothing that is charged. Trellis's own answers have every field, `null` where it
 * knows nothing (a native upstream's are as it sent them).
 */
const MessageUsage = t.Object(
  {
    input_tokens: Integer({ minimum: 0, description: 'Input tokens not read from the cache' }),
    output_tokens: Integer({ minimum: 0 }),
    cache_creation_input_tokens: nullable(Integer({ minimum: 0 })),
    cache_read_input_tokens: nullable(Integer({ minimum: 0 })),
    output_tokens_details: t.Optional(
      nullable(
        t.Object(
          { thinking_tokens: Integer({ minimum: 0 }) },
          { ...open, description: 'The reasoning tokens, when the model counted them' },
        ),
      ),
    ),
    cache_creation: t.Optional(nullable(t.Object({}, open))),
    server_tool_use: t.Optional(nullable(t.Object({}, open))),
    service_tier: t.Optional(nullable(t.String())),
    inference_geo: t.Optional(nullable(t.String())),
    speed: t.Optional(nullable(t.String())),
  },
  open,
)

const StopReason = t.Union([
  t.Literal('end_turn'),
  t.Literal('max_tokens'),
  t.Literal('stop_sequence'),
  t.Literal('tool_use'),
  t.Literal('pause_turn'),
  t.Literal('refusal'),
  t.Literal('model_context_window_exceeded'),
])

/** The non-streaming answer, a `message`. */
export const MessageResponse = t.Object(
  {
    id: t.String({ description: '`msg_…`' }),
    type: t.Literal('message'),
    role: t.Literal('assistant'),
    model: t.String(),
    content: t.Array(t.Union([ThinkingBlock, RedactedThinkingBlock, TextBlock, ToolUseBlock])),
    stop_reason: nullable(StopReason),
    stop_sequence: nullable(t.String({ description: 'The stop sequence that ended the answer, when it is known' })),
    stop_details: t.Optional(nullable(t.Object({}, open))),
    container: t.Optional(nullable(t.Object({}, open))),
    diagnostics: t.Optional(nullable(t.Object({}, open))),
    usage: MessageUsage,
  },
  open,
)

/**
 * One model in Anthropic's shape (`GET /v1/models` with `anthropic-version`): every field the SDK's
 * `ModelInfo` has, `null` for what Trellis does not know of an upstream model (its limits, its line,
 * its capabilities) and `active` for the lifecycle of a model it serves.
 */
export const AnthropicModel = t.Object({
  type: t.Literal('model'),
  id: t.String({ description: 'The public model name, as in `model` of a request' }),
  display_name: t.String({ description: 'The same name' }),
  created_at: t.String({ format: 'date-time', description: 'RFC 3339: when this process began listing it' }),
  capabilities: t.Null(),
  deprecated_at: t.Null(),
  lifecycle: t.Literal('active'),
  line: t.Null(),
  max_input_tokens: t.Null(),
  max_tokens: t.Null(),
  retires_at: t.Null(),
})
export type AnthropicModel = Static<typeof AnthropicModel>

/** A page of models in Anthropic's shape, with its cursors. */
export const AnthropicModelList = t.Object({
  data: t.Array(AnthropicModel),
  has_more: t.Boolean(),
  first_id: nullable(t.String()),
  last_id: nullable(t.String()),
})
export type AnthropicModelList = Static<typeof AnthropicModelList>
