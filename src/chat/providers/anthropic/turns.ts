import { isObject, type JsonObject } from '../provider'
import { unsupported } from './errors'

type Turn = { role: 'user' | 'assistant'; content: JsonObject[] }

/** Image types the Messages API takes as base64. */
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp'])

/**
 * OpenAI's conversation as Anthropic's: `system` and `developer` messages become the top-level
 * `system` (in order, wherever they stood: the Messages API has no system turns); user and
 * assistant messages become content blocks; a `tool` message becomes a `tool_result` block in a
 * user turn. Consecutive turns of one role are merged, since the API wants the roles to alternate
 * (several tool results after one assistant turn are one user turn).
 */
export function messagesOf(messages: JsonObject[]): { system: JsonObject[]; messages: Turn[] } {
  const system: JsonObject[] = []
  const turns: Turn[] = []
  const add = (role: Turn['role'], content: JsonObject[]) => {
    // A message with nothing to say is left out rather than sent as an empty turn, which the API refuses.
    if (content.length === 0) return
    const last = turns.at(-1)
    if (last?.role === role) last.content.push(...content)
    else turns.push({ role, content })
  }
  messages.forEach((message, index) => {
    const at = `messages[${index}]`
    if (typeof message.name === 'string')
      throw unsupported(`${at}.name`, "a message's 'name' has no equivalent in Anthropic's Messages API")
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...textBlocks(message.content, at))
        break
      case 'user':
        add('user', userBlocks(message.content, at))
        break
      case 'assistant':
        add('assistant', assistantBlocks(message, at))
        break
      case 'tool':
        add('user', [toolResult(message, at)])
        break
      default:
        throw unsupported(
          `${at}.role`,
          `the role '${String(message.role)}' is not supported by Anthropic's Messages API`,
        )
    }
  })
  return { system, messages: turns }
}

/**
 * Text only: a string, or `text` parts (`refusal` parts of an assistant's answer count as its text).
 * Empty text is left out: OpenAI takes `""` anywhere, the Messages API refuses an empty text block.
 */
function textBlocks(content: unknown, at: string): JsonObject[] {
  if (content == null) return []
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }]
  if (!Array.isArray(content)) throw unsupported(`${at}.content`, 'content must be a string or an array of parts')
  return content.map((part, index) => textPart(part, `${at}.content[${index}]`)).filter(isNotEmpty)
}

function textPart(part: unknown, at: string): JsonObject {
  if (isObject(part) && part.type === 'text' && typeof part.text === 'string') return { type: 'text', text: part.text }
  if (isObject(part) && part.type === 'refusal' && typeof part.refusal === 'string')
    return { type: 'text', text: part.refusal }
  if (isObject(part) && (part.type === 'text' || part.type === 'refusal'))
    throw unsupported(at, `a '${part.type}' part needs its ${part.type} as a string`)
  throw unsupported(
    at,
    `a '${isObject(part) ? String(part.type) : typeof part}' part is not supported here by Anthropic's Messages API`,
  )
}

const isNotEmpty = (block: JsonObject) => block.type !== 'text' || block.text !== ''

function userBlocks(content: unknown, at: string): JsonObject[] {
  if (!Array.isArray(content)) return textBlocks(content, at)
  return content
    .map((part, index) => {
      const where = `${at}.content[${index}]`
      return isObject(part) && part.type === 'image_url'
        ? imageBlock(part.image_url, `${where}.image_url`)
        : textPart(part, where)
    })
    .filter(isNotEmpty)
}

/**
 * A data URL becomes a base64 source, an http(s) URL a url source. `detail` has no equivalent and
 * is left behind: it tunes OpenAI's cost of an image, not what the model is asked.
 */
function imageBlock(image: unknown, at: string): JsonObject {
  const url = isObject(image) ? image.url : image
  if (typeof url !== 'string') throw unsupported(at, "an 'image_url' part needs a url")
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url)
  if (data) {
    if (!IMAGE_TYPES.has(data[1]!))
      throw unsupported(
        at,
        `images of type '${data[1]}' are not supported by Anthropic's Messages API (jpeg, png, gif and webp are)`,
      )
    return { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } }
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } }
  throw unsupported(at, 'an image must be a base64 data URL or an http(s) URL')
}

/**
 * Text, then tool calls as `tool_use` blocks (clients send `content: ""` beside tool calls:
 * no text block). `reasoning_content` is left out too:
 * Anthropic takes earlier thinking back only with the signature OpenAI's format cannot carry.
 */
function assistantBlocks(message: JsonObject, at: string): JsonObject[] {
  const blocks = textBlocks(message.content, at)
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : []
  calls.forEach((call, index) => {
    const where = `${at}.tool_calls[${index}]`
    if (!isObject(call) || !isObject(call.function)) throw unsupported(where, 'a tool call must be a function call')
    blocks.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: argumentsOf(call.function.arguments, `${where}.function.arguments`),
    })
  })
  return blocks
}

/** A tool call's `arguments`, a JSON text, as the object Anthropic's `input` is. */
function argumentsOf(text: unknown, at: string): JsonObject {
  if (text === '' || text == null) return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(String(text))
  } catch {
    throw unsupported(at, 'tool call arguments must be a JSON object')
  }
  if (!isObject(parsed)) throw unsupported(at, 'tool call arguments must be a JSON object')
  return parsed
}

function toolResult(message: JsonObject, at: string): JsonObject {
  const content = message.content
  const result: JsonObject = { type: 'tool_result', tool_use_id: message.tool_call_id }
  // An empty result is a result without content: an empty text block would be refused.
  const blocks = textBlocks(content, at)
  if (typeof content === 'string' && content !== '') result.content = content
  else if (blocks.length > 0) result.content = blocks
  return result
}
