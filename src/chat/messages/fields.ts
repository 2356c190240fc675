import type { ChatCompletionRequest, FunctionTool } from '../model'
import { ProviderError, type JsonObject } from '../providers/provider'
import type { MessagesRequest, ThinkingConfig, Tool } from './model'

/*
 * The rule for a Messages request that a model served through OpenAI's form cannot take whole:
 *
 * - A field that cannot change the content of the answer is accepted and ignored, and named in
 *   `x-trellis-ignored` (see ../ignored.ts): hints about caching, routing, billing or server-side
 *   bookkeeping (`cache_control` anywhere, `context_management`, `service_tier`, `speed`,
 *   `inference_geo`, `diagnostics`, `safeguards`, `defer_loading` and `eager_input_streaming` on
 *   a tool), and the empty values of features Trellis does not serve (`container: null`,
 *   `mcp_servers: []`, `thread: null`).
 * - A field that would change it, and has no OpenAI form, is a 400 naming it: `top_k`, a
 *   container, MCP servers, a thread, a tool's `input_examples`, and any field Trellis does not
 *   model (it cannot know that field would not change the answer).
 *
 * `context_management` is ignored although its edits remove earlier context: they exist to fit a
 * conversation into Anthropic's window, and the model is sent the whole conversation instead (an
 * upstream whose window it does not fit says so itself).
 */

/** What becomes of a top-level field: translated (by translate.ts), ignored, or refused for a reason. */
type Decision = 'translated' | 'ignored' | { refused: string }

const translated = (): Decision => 'translated'
const ignored = (): Decision => 'ignored'

/** Every top-level field Trellis knows, and what becomes of its value for a translated model. */
const TOP_LEVEL: Record<string, (value: unknown) => Decision> = {
  model: translated,
  messages: translated,
  system: translated,
  tools: translated,
  tool_choice: translated,
  thinking: translated,
  max_tokens: translated,
  stop_sequences: translated,
  stream: translated,
  temperature: translated,
  top_p: translated,
  metadata: translated,
  output_config: translated,
  // The beta's earlier name of output_config.format, which LangChain still sends.
  output_format: translated,
  top_k: () => ({ refused: "OpenAI's API has no top_k" }),
  cache_control: ignored,
  context_management: ignored,
  service_tier: ignored,
  speed: ignored,
  inference_geo: ignored,
  diagnostics: ignored,
  safeguards: ignored,
  container: (value) =>
    value === null ? 'ignored' : { refused: "containers hold Anthropic's server tools and skills" },
  mcp_servers: (value) =>
    Array.isArray(value) && value.length === 0
      ? 'ignored'
      : { refused: "MCP servers are connected by Anthropic's API, and their tools would change the answer" },
  thread: (value) =>
    value === null ? 'ignored' : { refused: 'Trellis keeps no threads; send the whole conversation' },
}

/**
 * Checks the top-level fields of a request for a translated model: throws the 400 for the first that would change the
 * answer and cannot be translated; returns those ignored, as the client wrote them.
 */
export function topLevelIgnored(request: MessagesRequest): string[] {
  const names: string[] = []
  for (const [field, value] of Object.entries(request)) {
    const decide = Object.hasOwn(TOP_LEVEL, field) ? TOP_LEVEL[field]! : undefined
    const decision = decide ? decide(value) : { refused: 'Trellis does not model this field' }
    if (decision === 'ignored') names.push(field)
    else if (decision !== 'translated') throw untranslatable(request.model, field, decision.refused)
  }
  const metadata = request.metadata as JsonObject | undefined
  for (const key of Object.keys(metadata ?? {})) if (key !== 'user_id') names.push(`metadata.${key}`)
  const display = (request.thinking as JsonObject | undefined)?.display
  // `omitted` is honoured (the thinking block comes without its text); any other display shows it as the model wrote it.
  if (display !== undefined && display !== null && display !== 'omitted') names.push('thinking.display')
  return names
}

/** The fields of a custom tool, and what becomes of each: translated, ignored, or refused. */
const TOOL_FIELDS: Record<string, (value: unknown) => Decision> = {
  name: translated,
  type: translated,
  description: translated,
  input_schema: translated,
  strict: translated,
  cache_control: ignored,
  defer_loading: ignored,
  eager_input_streaming: ignored,
  allowed_callers: (value) =>
    Array.isArray(value) && value.every((caller) => caller === 'direct')
      ? 'ignored'
      : { refused: "only the model may call a tool; Anthropic's code execution is not served" },
  input_examples: () => ({ refused: "OpenAI's tools have no place for examples, which would change the answer" }),
}

/** A custom tool as an OpenAI function; its ignored fields are added to `ignored` as `tools[i].field`. */
export function functionTool(model: string, tool: Tool, i: number, ignored: string[]): FunctionTool {
  if (tool.type !== undefined && tool.type !== 'custom')
    throw untranslatable(model, `tools.${i}.type`, `'${tool.type}' is one of Anthropic's server tools`)
  for (const [field, value] of Object.entries(tool)) {
    const decide = Object.hasOwn(TOOL_FIELDS, field) ? TOOL_FIELDS[field]! : undefined
    const decision = decide ? decide(value) : { refused: 'Trellis does not model this field' }
    if (decision === 'ignored') ignored.push(field === 'cache_control' ? field : `tools[${i}].${field}`)
    else if (decision !== 'translated') throw untranslatable(model, `tools.${i}.${field}`, decision.refused)
  }
  const fn: FunctionTool['function'] = { name: tool.name, parameters: tool.input_schema as JsonObject }
  if (tool.description !== undefined) fn.description = tool.description
  if (typeof tool.strict === 'boolean') fn.strict = tool.strict
  return { type: 'function', function: fn }
}

/**
 * Anthropic's effort as OpenAI's `reasoning_effort`: the same words, and `max`, which OpenAI has not, as its highest.
 */
const EFFORTS: Record<string, string> = { low: 'low', medium: 'medium', high: 'high', xhigh: 'xhigh', max: 'xhigh' }

/** The name OpenAI requires on a json_schema format; Anthropic's has none. */
const FORMAT_NAME = 'output'

/**
 * `output_config` (and the beta's `output_format`) in OpenAI's words: `format` (a JSON schema the
 * answer must match) as `response_format` json_schema, strict because Anthropic's structured output
 * is guaranteed to match; `effort` as `reasoning_effort`. Adaptive thinking sends no effort of its
 * own: the model decides how much to think, which is what an OpenAI reasoning model does without
 * `reasoning_effort`.
 */
export function outputOf(
  request: MessagesRequest,
): Pick<ChatCompletionRequest, 'response_format'> & { reasoning_effort?: string } {
  const model = request.model
  const config = (request.output_config ?? {}) as JsonObject
  const out: ReturnType<typeof outputOf> = {}
  for (const key of Object.keys(config))
    if (key !== 'effort' && key !== 'format')
      throw untranslatable(model, `output_config.${key}`, 'Trellis does not model this field')
  const effort = config.effort
  if (effort !== undefined && effort !== null) {
    if (typeof effort !== 'string' || !Object.hasOwn(EFFORTS, effort))
      throw untranslatable(model, 'output_config.effort', `effort is one of ${Object.keys(EFFORTS).join(', ')}`)
    out.reasoning_effort = EFFORTS[effort]
  }
  const [format, at] =
    config.format !== undefined && config.format !== null
      ? [config.format, 'output_config.format']
      : [(request as JsonObject).output_format, 'output_format']
  if (format === undefined || format === null) return out
  const { type, schema } = format as { type?: unknown; schema?: unknown }
  if (type !== 'json_schema') throw untranslatable(model, `${at}.type`, "the only output format is 'json_schema'")
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw untranslatable(model, `${at}.schema`, 'the schema is a JSON object')
  out.response_format = {
    type: 'json_schema',
    json_schema: { name: FORMAT_NAME, schema: schema as JsonObject, strict: true },
  }
  return out
}

/**
 * How the answer's reasoning is shown: `full` as `thinking` blocks when thinking is `enabled` or
 * `adaptive`; `omitted` as thinking blocks without their text when it asks for `display: "omitted"`;
 * `none` when thinking is off, `between_tools` (whose blocks hold progress notes between tool calls,
 * not reasoning) or not asked for.
 */
export type ThinkingShown = 'full' | 'omitted' | 'none'

export function thinkingShown(thinking: ThinkingConfig | undefined): ThinkingShown {
  if (thinking?.type !== 'enabled' && thinking?.type !== 'adaptive') return 'none'
  return (thinking as JsonObject).display === 'omitted' ? 'omitted' : 'full'
}

/** The 400 for what a model served through OpenAI's form cannot take. */
export function untranslatable(model: string, field: string, why: string): ProviderError {
  return new ProviderError(
    400,
    `${field}: not supported by model '${model}', which is not served by an Anthropic provider (${why}).`,
    { type: 'invalid_request_error', param: field },
  )
}
