import { t, type Static, type TSchema } from 'elysia'
import { Integer } from '../../http/integer'
import { MAX_CONTENT_PARTS, MAX_OUTPUT_TOKENS, MAX_TOOLS } from '../model'

/*
 * TypeBox schemas for the body of `POST /v1/responses` (OpenAI's `CreateResponse`).
 *
 * Every object is open: a provider that speaks the Responses API natively receives the client's
 * body as it came, so fields Trellis does not model are accepted here; what happens to them on a
 * translated model is decided in translate.ts. Optional fields take `null`, as OpenAI's SDKs send
 * it. Input items, their content parts and tools are checked by their `type` (see {@link ITEMS},
 * {@link PARTS}, {@link TOOLS}), so that an error names the member that is wrong rather than "no
 * branch of the union matched".
 */

const open = { additionalProperties: true } as const
const nullable = <T extends TSchema>(schema: T) => t.Optional(t.Union([schema, t.Null()]))
/** One of these words, or null: one flat union, so that a wrong word is answered with the words allowed. */
const wordOrNull = (...words: string[]) => t.Optional(t.Union([...words.map((word) => t.Literal(word)), t.Null()]))

/** Input items in one request: twice chat's messages, since a tool call and its output are two items. */
const MAX_INPUT_ITEMS = 4096
/** Keys of `metadata`, and their lengths: OpenAI's bounds. */
const MAX_METADATA_KEYS = 16
export const MAX_METADATA_KEY = 64

/**
 * Ids of responses and items, as OpenAI words the rule: letters, numbers, underscores or dashes.
 * They name rows of the store and go into paths, so nothing else is taken.
 */
export const ID_PATTERN = '^[A-Za-z0-9_-]+$'
const Id = t.String({ pattern: ID_PATTERN, minLength: 1, maxLength: 256 })
const CallId = t.String({ minLength: 1, maxLength: 256 })

/** A content part of a message; `type` picks the schema it must then match (see {@link PARTS}). */
const ContentPart = t.Object({ type: t.String({ minLength: 1 }) }, { ...open, description: '`type` picks its shape' })
const Content = t.Union([t.String(), t.Array(ContentPart, { maxItems: MAX_CONTENT_PARTS })])

export const PARTS: Record<string, TSchema> = {
  input_text: t.Object({ type: t.Literal('input_text'), text: t.String() }, open),
  input_image: t.Object(
    {
      type: t.Literal('input_image'),
      image_url: nullable(t.String()),
      file_id: nullable(t.String()),
      detail: wordOrNull('low', 'high', 'auto', 'original'),
    },
    open,
  ),
  output_text: t.Object({ type: t.Literal('output_text'), text: t.String() }, open),
  refusal: t.Object({ type: t.Literal('refusal'), refusal: t.String() }, open),
}

/** Any input item: `type` (or, without one, `role` for a message) picks its schema (see {@link ITEMS}). */
export const InputItem = t.Object(
  { type: nullable(t.String({ minLength: 1 })), id: nullable(Id) },
  {
    ...open,
    description: 'An input item: a message, function_call, function_call_output, reasoning or item_reference',
  },
)

const Role = t.Union([t.Literal('user'), t.Literal('assistant'), t.Literal('system'), t.Literal('developer')])

const MessageItem = t.Object({ type: nullable(t.Literal('message')), role: Role, content: Content }, open)
const FunctionCallItem = t.Object(
  {
    type: t.Literal('function_call'),
    call_id: CallId,
    name: t.String({ minLength: 1, maxLength: 128 }),
    arguments: t.String(),
    namespace: nullable(t.String({ minLength: 1, maxLength: 64 })),
  },
  open,
)
const FunctionCallOutputItem = t.Object(
  { type: t.Literal('function_call_output'), call_id: CallId, output: Content },
  open,
)
const ReasoningItem = t.Object(
  { type: t.Literal('reasoning'), summary: t.Optional(t.Array(t.Object({}, open), { maxItems: MAX_CONTENT_PARTS })) },
  open,
)
const ItemReference = t.Object({ type: nullable(t.Literal('item_reference')), id: Id }, open)

/** The item types Trellis reads, by `type`; `message` also stands for an item with a `role` and no type. */
export const ITEMS: Record<string, TSchema> = {
  message: MessageItem,
  function_call: FunctionCallItem,
  function_call_output: FunctionCallOutputItem,
  reasoning: ReasoningItem,
  item_reference: ItemReference,
}
export type FunctionCallItem = Static<typeof FunctionCallItem>
export type FunctionCallOutputItem = Static<typeof FunctionCallOutputItem>
export type InputItem = Static<typeof InputItem>

/** A tool; `type` picks the schema it must then match (see {@link TOOLS}); hosted tools pass as they are. */
const Tool = t.Object({ type: t.String({ minLength: 1 }) }, { ...open, description: '`type` picks its shape' })

const FunctionTool = t.Object(
  {
    type: t.Literal('function'),
    name: t.String({ pattern: '^[a-zA-Z0-9_-]+$', minLength: 1, maxLength: 128 }),
    description: nullable(t.String()),
    parameters: nullable(t.Object({}, open)),
    strict: nullable(t.Boolean()),
  },
  open,
)
export type FunctionTool = Static<typeof FunctionTool>

const NamespaceTool = t.Object(
  {
    type: t.Literal('namespace'),
    name: t.String({ pattern: '^[a-zA-Z0-9_-]+$', minLength: 1, maxLength: 64 }),
    description: t.Optional(t.String()),
    tools: t.Array(t.Object({ type: t.String({ minLength: 1 }) }, open), { minItems: 1, maxItems: MAX_TOOLS }),
  },
  open,
)
export type NamespaceTool = Static<typeof NamespaceTool>

export const TOOLS: Record<string, TSchema> = {
  function: FunctionTool,
  namespace: NamespaceTool,
  custom: t.Object({ type: t.Literal('custom'), name: t.String({ minLength: 1 }) }, open),
}

/** `none`, `auto`, `required`, or an object: `{type: "function", name}`, `allowed_tools`, a hosted tool's type. */
const ToolChoice = t.Union([
  t.Literal('none'),
  t.Literal('auto'),
  t.Literal('required'),
  t.Object(
    {
      type: t.String({ minLength: 1 }),
      name: t.Optional(t.String({ minLength: 1 })),
      mode: t.Optional(t.Union([t.Literal('auto'), t.Literal('required')])),
      tools: t.Optional(t.Array(t.Object({ type: t.String({ minLength: 1 }) }, open), { maxItems: MAX_TOOLS })),
    },
    open,
  ),
])
export type ToolChoice = Static<typeof ToolChoice>

const TextFormat = t.Object(
  {
    type: t.Union([t.Literal('text'), t.Literal('json_schema'), t.Literal('json_object')]),
    name: t.Optional(t.String({ pattern: '^[a-zA-Z0-9_-]+$', minLength: 1, maxLength: 64 })),
    description: t.Optional(t.String()),
    schema: t.Optional(t.Object({}, open)),
    strict: nullable(t.Boolean()),
  },
  open,
)

/** The body of `POST /v1/responses`. Bounds are OpenAI's where it has them. */
export const ResponsesRequest = t.Object(
  {
    model: t.String({ minLength: 1 }),
    input: t.Optional(t.Union([t.String(), t.Array(InputItem, { maxItems: MAX_INPUT_ITEMS })])),
    instructions: nullable(t.String()),
    previous_response_id: nullable(Id),
    store: nullable(t.Boolean()),
    stream: nullable(t.Boolean()),
    stream_options: nullable(t.Object({ include_obfuscation: t.Optional(t.Boolean()) }, open)),
    tools: nullable(t.Array(Tool, { maxItems: MAX_TOOLS })),
    tool_choice: t.Optional(ToolChoice),
    parallel_tool_calls: nullable(t.Boolean()),
    max_tool_calls: nullable(Integer({ minimum: 1 })),
    text: nullable(t.Object({ format: t.Optional(TextFormat), verbosity: wordOrNull('low', 'medium', 'high') }, open)),
    reasoning: nullable(
      t.Object(
        {
          effort: wordOrNull('none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'),
          summary: wordOrNull('auto', 'concise', 'detailed'),
        },
        open,
      ),
    ),
    max_output_tokens: nullable(Integer({ minimum: 16, maximum: MAX_OUTPUT_TOKENS })),
    temperature: nullable(t.Number({ minimum: 0, maximum: 2 })),
    top_p: nullable(t.Number({ minimum: 0, maximum: 1 })),
    top_logprobs: nullable(Integer({ minimum: 0, maximum: 20 })),
    user: t.Optional(t.String({ maxLength: 512 })),
    safety_identifier: nullable(t.String({ maxLength: 64 })),
    metadata: nullable(
      t.Record(t.String(), t.String({ maxLength: 512 }), {
        maxProperties: MAX_METADATA_KEYS,
        description: `At most ${MAX_METADATA_KEYS} keys of up to ${MAX_METADATA_KEY} characters`,
      }),
    ),
    include: nullable(t.Array(t.String(), { maxItems: 16 })),
    prompt_cache_key: nullable(t.String({ maxLength: 1024 })),
    prompt_cache_retention: nullable(t.String()),
    service_tier: nullable(t.String()),
    truncation: wordOrNull('auto', 'disabled'),
    background: nullable(t.Boolean()),
  },
  open,
)
export type ResponsesRequest = Static<typeof ResponsesRequest>
