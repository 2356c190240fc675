import { t } from 'elysia'
import { Integer } from '../../http/integer'

/*
 * TypeBox schemas of what the Responses routes answer, for the OpenAPI document: the Response
 * object, a page of input items, a deletion, and the query of the item list. Items are described
 * by their common fields; OpenAI's own document has every item type in full.
 */

const open = { additionalProperties: true } as const

const OutputItem = t.Object(
  {
    id: t.String({ description: '`msg_…`, `fc_…` or `rs_…`' }),
    type: t.String({ description: '`message`, `function_call` or `reasoning`' }),
  },
  { ...open, description: 'An output item: a message (output_text parts), a function call or a reasoning item' },
)

const Usage = t.Object(
  {
    input_tokens: Integer({ minimum: 0 }),
    input_tokens_details: t.Object({
      cached_tokens: Integer({ minimum: 0 }),
      cache_write_tokens: Integer({ minimum: 0 }),
    }),
    output_tokens: Integer({ minimum: 0 }),
    output_tokens_details: t.Object({ reasoning_tokens: Integer({ minimum: 0 }) }),
    total_tokens: Integer({ minimum: 0 }),
  },
  open,
)

/** OpenAI's `Response`: the request's fields echoed, the output, the status and the usage. */
export const ResponseObject = t.Object(
  {
    id: t.String({ description: '`resp_…`' }),
    object: t.Literal('response'),
    created_at: Integer({ description: 'Unix seconds' }),
    status: t.Union([t.Literal('completed'), t.Literal('incomplete'), t.Literal('in_progress')]),
    error: t.Null(),
    incomplete_details: t.Union([
      t.Object({ reason: t.Union([t.Literal('max_output_tokens'), t.Literal('content_filter')]) }),
      t.Null(),
    ]),
    instructions: t.Union([t.String(), t.Null()]),
    model: t.String({ description: 'The public model name the request named' }),
    output: t.Array(OutputItem),
    parallel_tool_calls: t.Boolean(),
    previous_response_id: t.Union([t.String(), t.Null()]),
    store: t.Boolean(),
    tools: t.Array(t.Object({ type: t.String() }, open)),
    usage: t.Optional(Usage),
    metadata: t.Record(t.String(), t.String()),
  },
  { ...open, description: 'A response, as OpenAI defines `Response`' },
)

/** OpenAI's `ResponseItemList`: a page of a response's input items, each with its id. */
export const InputItemList = t.Object({
  object: t.Literal('list'),
  data: t.Array(t.Object({ id: t.String(), type: t.String() }, open)),
  first_id: t.Union([t.String(), t.Null()], { description: 'null on an empty page' }),
  last_id: t.Union([t.String(), t.Null()], { description: 'null on an empty page' }),
  has_more: t.Boolean(),
})

export const DeletedResponse = t.Object({
  id: t.String(),
  object: t.Literal('response'),
  deleted: t.Literal(true),
})

export const InputItemsQuery = t.Object(
  {
    limit: t.Optional(t.String({ description: 'Items per page, 1 to 100 (default 20)' })),
    order: t.Optional(t.String({ description: '`asc` (oldest first) or `desc` (the default)' })),
    after: t.Optional(t.String({ description: 'The id of the item the page starts after' })),
  },
  open,
)

export const ResponseQuery = t.Object(
  { stream: t.Optional(t.String({ description: 'Only `false`: stored responses are not replayed as events' })) },
  open,
)
