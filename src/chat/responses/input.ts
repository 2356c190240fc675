import type { RequestMessage } from '../model'
import { randomId } from '../ids'
import { ProviderError, type JsonObject } from '../providers/provider'
import type { FunctionCallItem, FunctionCallOutputItem, InputItem } from './model'
import { badRequest, itemKind } from './request'

/*
 * Input items: as the client wrote them, as Trellis stores and lists them, and as chat messages.
 *
 * Stored items are OpenAI's item resources (`ItemResource`): each has an `id` (the client's, or
 * one made here: `msg_`, `fc_`, `fco_`, `rs_`), a message's content is a list of parts, and an
 * assistant message's text parts carry `annotations` and `logprobs`. A request's own input, the
 * items of a previous response (`previous_response_id`) and referenced items (`item_reference`)
 * are all in this form before they are translated, so one translation serves them all.
 */

/** An item as stored: its id and type are always there. */
export type StoredItem = JsonObject & { id: string; type: string }

/** A content part as checked by the schema of its type (model.ts `PARTS`). */
type Part = { type: string; text?: string; refusal?: string; image_url?: string | null; detail?: string | null }

/** Where an item came from, for error messages: `input[3]`, or the previous response it was carried from. */
export type ItemOrigin = (index: number) => string

const ID_PREFIXES: Record<string, string> = {
  message: 'msg_',
  function_call: 'fc_',
  function_call_output: 'fco_',
  reasoning: 'rs_',
}

/** An id for an item that came without one. */
export const itemId = (type: string) => randomId(ID_PREFIXES[type] ?? 'item_', 48)

/** The referenced ids of a request's input, to be looked up before {@link storedInput}. */
export function referencedIds(input: string | InputItem[] | undefined): string[] {
  if (!Array.isArray(input)) return []
  return input.filter((item) => itemKind(item) === 'item_reference').map((item) => item.id as string)
}

/**
 * A request's own input in the stored form. `found` holds the items its references name (the
 * owner's own, looked up beforehand); a reference to anything else is a 400 naming it.
 */
export function storedInput(
  input: string | InputItem[] | undefined,
  found: ReadonlyMap<string, StoredItem>,
): StoredItem[] {
  if (input === undefined) return []
  if (typeof input === 'string')
    return [message({ id: itemId('message'), type: 'message', role: 'user', content: input })]
  return input.map((given, i) => {
    const kind = itemKind(given)
    const item = given as JsonObject
    if (kind === 'item_reference') {
      const referenced = found.get(item.id as string)
      if (!referenced)
        throw badRequest(`Item with id '${item.id}' not found.`, `input[${i}]`, 'item_reference_not_found')
      return referenced
    }
    const id = typeof item.id === 'string' ? item.id : itemId(kind)
    if (kind === 'message') return message({ ...item, id, type: 'message' })
    if (kind === 'function_call' || kind === 'function_call_output')
      return { ...item, id, type: kind, status: item.status ?? 'completed' }
    if (kind === 'reasoning') {
      // Codex replays `content: null`, which a listed reasoning item may not have.
      const { content, ...rest } = item
      return { ...rest, id, type: kind, summary: item.summary ?? [], ...(content == null ? {} : { content }) }
    }
    return { ...item, id, type: kind }
  })
}

/** A message with its content as parts, as OpenAI lists input messages. */
function message(item: JsonObject & { id: string; type: string }): StoredItem {
  const assistant = item.role === 'assistant'
  const content = item.content
  const parts =
    typeof content === 'string'
      ? [{ type: assistant ? 'output_text' : 'input_text', text: content }]
      : (content as JsonObject[])
  return {
    ...item,
    content: parts.map((part) => (assistant ? outputPart(part) : inputPart(part))),
    status: item.status ?? 'completed',
  }
}

/** An assistant's text as an output part; its `input_text`, which some clients send back, too. */
function outputPart(part: JsonObject): JsonObject {
  if (part.type !== 'output_text' && part.type !== 'input_text') return part
  return { annotations: [], logprobs: [], ...part, type: 'output_text' }
}

/** An image's `detail` is required of a listed part; `auto` is what OpenAI assumes without one. */
const inputPart = (part: JsonObject): JsonObject =>
  part.type === 'input_image' && part.detail == null ? { ...part, detail: 'auto' } : part

/**
 * The conversation as chat messages. What chat's form cannot carry is a 400 naming the item:
 * files, images by file id, images in tool output, and item types other than messages, function
 * calls and their outputs; reasoning items are left out (OpenAI-compatible servers do not take
 * reasoning back, and DeepSeek refuses `reasoning_content` in input). `system` and `developer`
 * messages are both sent as `system`, which every OpenAI-compatible server knows (OpenAI treats
 * them alike). A function call of a `namespace` tool is named as translate.ts names it.
 */
export function chatMessages(items: StoredItem[], origin: ItemOrigin, model: string): RequestMessage[] {
  const messages: RequestMessage[] = []
  const calls = new Set<string>()
  /** The assistant message the next function call joins, while nothing else has followed it. */
  let open: RequestMessage | undefined
  items.forEach((item, i) => {
    const at = origin(i)
    const kind = item.type
    if (kind === 'reasoning') return
    if (kind === 'function_call') {
      const call = item as StoredItem & FunctionCallItem
      calls.add(call.call_id)
      const toolCall = {
        id: call.call_id,
        type: 'function' as const,
        function: { name: chatToolName(call.name, call.namespace), arguments: call.arguments },
      }
      if (open) (open.tool_calls ??= []).push(toolCall)
      else messages.push((open = { role: 'assistant', content: null, tool_calls: [toolCall] }))
      return
    }
    open = undefined
    if (kind === 'function_call_output') {
      const output = item as StoredItem & FunctionCallOutputItem
      if (!calls.has(output.call_id))
        throw badRequest(`No tool call found for function call output with call_id ${output.call_id}.`, `${at}.call_id`)
      messages.push({ role: 'tool', tool_call_id: output.call_id, content: toolText(output.output, model, at) })
      return
    }
    if (kind !== 'message') throw untranslatable(model, `${at}.type`, `'${kind}' items have no Chat Completions form`)
    const role = item.role
    const parts = item.content as Part[]
    if (role === 'assistant') messages.push((open = { role, content: assistantText(parts, model, at) }))
    else if (role === 'user') messages.push({ role, content: userParts(parts, model, at) as RequestMessage['content'] })
    else
      messages.push({
        role: 'system',
        content: textParts(parts, model, at, 'a system message') as RequestMessage['content'],
      })
  })
  return messages
}

/**
 * The chat name of a function tool: its own, or within a namespace `<namespace>__<name>` (chat has
 * no namespaces; translate.ts refuses tools whose names would then collide or be too long).
 */
export const chatToolName = (name: string, namespace?: string | null) => (namespace ? `${namespace}__${name}` : name)

function userParts(parts: Part[], model: string, at: string): JsonObject[] {
  return parts.map((part, j) => {
    const where = `${at}.content[${j}]`
    if (part.type === 'input_text') return { type: 'text', text: part.text }
    if (part.type !== 'input_image') throw untranslatable(model, where, partReason(part.type, 'a user message'))
    if (typeof part.image_url !== 'string')
      throw untranslatable(model, where, 'an image by file_id needs the Files API, which this server does not have')
    const detail = part.detail
    const image: JsonObject = { url: part.image_url }
    if (detail === 'low' || detail === 'high' || detail === 'auto') image.detail = detail
    return { type: 'image_url', image_url: image }
  })
}

function textParts(parts: Part[], model: string, at: string, where: string): JsonObject[] {
  return parts.map((part, j) => {
    if (part.type !== 'input_text') throw untranslatable(model, `${at}.content[${j}]`, partReason(part.type, where))
    return { type: 'text', text: part.text }
  })
}

/** An assistant turn's text: its output text and refusals, in order. */
function assistantText(parts: Part[], model: string, at: string): string {
  let text = ''
  parts.forEach((part, j) => {
    if (part.type === 'output_text') text += part.text
    else if (part.type === 'refusal') text += part.refusal
    else throw untranslatable(model, `${at}.content[${j}]`, partReason(part.type, 'an assistant message'))
  })
  return text
}

/** A function's output as a tool message's text: chat's tool messages hold only text. */
function toolText(output: unknown, model: string, at: string): string {
  if (typeof output === 'string') return output
  let text = ''
  ;(output as Part[]).forEach((part, j) => {
    if (part.type !== 'input_text')
      throw untranslatable(model, `${at}.output[${j}]`, 'a Chat Completions tool message holds only text')
    text += (text === '' ? '' : '\n') + part.text
  })
  return text
}

const partReason = (type: string, where: string) =>
  type === 'input_file'
    ? 'files need the Files API, which this server does not have'
    : `'${type}' parts cannot be in ${where}`

/**
 * The 400 for what a model served through Chat Completions cannot take, naming `param`. A
 * ProviderError, like any refusal of a provider, so that the registry does not fall back on it.
 */
export function untranslatable(model: string, param: string, why: string): ProviderError {
  return new ProviderError(
    400,
    `${param}: not supported by model '${model}', which is not served by a Responses API provider (${why}).`,
    { type: 'invalid_request_error', param },
  )
}
