import type Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'

/**
 * One question asked of a script provider through each wire format with the official SDKs, the answer reduced to what
 * the three must agree on: the text, the tool calls, and the usage (as Chat Completions counts it).
 */
export type Said = {
  text: string
  calls: { name: string; arguments: unknown }[]
  usage: { prompt: number; completion: number; total: number }
}

export type Turn = { ask: string; toolResult?: { id: string; name: string; arguments: unknown; output: string } }
export type Way = 'chat' | 'chat stream' | 'responses' | 'responses stream' | 'messages' | 'messages stream'
export const WAYS: Way[] = ['chat', 'chat stream', 'responses', 'responses stream', 'messages', 'messages stream']

type Clients = { openai: OpenAI; anthropic: Anthropic }

export async function ask(clients: Clients, way: Way, model: string, turn: Turn, headers?: Record<string, string>) {
  const options = headers ? { headers } : undefined
  if (way.startsWith('chat')) return chat(clients.openai, way === 'chat stream', model, turn, options)
  if (way.startsWith('responses')) return responses(clients.openai, way === 'responses stream', model, turn, options)
  return messages(clients.anthropic, way === 'messages stream', model, turn, options)
}

async function chat(client: OpenAI, stream: boolean, model: string, turn: Turn, options?: object): Promise<Said> {
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: turn.ask }]
  const tool = turn.toolResult
  if (tool) {
    const call = {
      id: tool.id,
      type: 'function' as const,
      function: { name: tool.name, arguments: JSON.stringify(tool.arguments) },
    }
    messages.push({ role: 'assistant', content: null, tool_calls: [call] })
    messages.push({ role: 'tool', tool_call_id: tool.id, content: tool.output })
  }
  if (!stream) {
    const completion = await client.chat.completions.create({ model, messages }, options)
    const message = completion.choices[0]!.message
    const usage = completion.usage!
    return {
      text: message.content ?? '',
      calls: (message.tool_calls ?? []).map((call) => {
        const fn = (call as { function: { name: string; arguments: string } }).function
        return { name: fn.name, arguments: JSON.parse(fn.arguments) }
      }),
      usage: { prompt: usage.prompt_tokens, completion: usage.completion_tokens, total: usage.total_tokens },
    }
  }
  const events = await client.chat.completions.create(
    { model, messages, stream: true, stream_options: { include_usage: true } },
    options,
  )
  let text = ''
  const calls: { name: string; arguments: string }[] = []
  let usage: Said['usage'] | undefined
  for await (const chunk of events) {
    const delta = chunk.choices[0]?.delta
    if (delta?.content) text += delta.content
    for (const call of delta?.tool_calls ?? []) {
      calls[call.index] ??= { name: '', arguments: '' }
      calls[call.index]!.name += call.function?.name ?? ''
      calls[call.index]!.arguments += call.function?.arguments ?? ''
    }
    if (chunk.usage)
      usage = {
        prompt: chunk.usage.prompt_tokens,
        completion: chunk.usage.completion_tokens,
        total: chunk.usage.total_tokens,
      }
  }
  return {
    text,
    calls: calls.map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments) })),
    usage: usage!,
  }
}

async function responses(client: OpenAI, stream: boolean, model: string, turn: Turn, options?: object): Promise<Said> {
  const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: turn.ask }]
  const tool = turn.toolResult
  if (tool) {
    input.push({ type: 'function_call', call_id: tool.id, name: tool.name, arguments: JSON.stringify(tool.arguments) })
    input.push({ type: 'function_call_output', call_id: tool.id, output: tool.output })
  }
  let response: OpenAI.Responses.Response | undefined
  if (!stream) response = await client.responses.create({ model, input, store: false }, options)
  else {
    const events = await client.responses.create({ model, input, store: false, stream: true }, options)
    for await (const event of events) if (event.type === 'response.completed') response = event.response
  }
  const usage = response!.usage!
  return {
    // The streamed `response` is the wire's object, without the SDK's `output_text` convenience.
    text: response!.output
      .flatMap((item) => (item.type === 'message' ? item.content : []))
      .map((part) => (part.type === 'output_text' ? part.text : ''))
      .join(''),
    calls: response!.output
      .filter((item) => item.type === 'function_call')
      .map((item) => ({ name: item.name, arguments: JSON.parse(item.arguments) })),
    usage: { prompt: usage.input_tokens, completion: usage.output_tokens, total: usage.total_tokens },
  }
}

async function messages(
  client: Anthropic,
  stream: boolean,
  model: string,
  turn: Turn,
  options?: object,
): Promise<Said> {
  const conversation: Anthropic.MessageParam[] = [{ role: 'user', content: turn.ask }]
  const tool = turn.toolResult
  if (tool) {
    conversation.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: tool.id, name: tool.name, input: tool.arguments }],
    })
    conversation.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: tool.id, content: tool.output }] })
  }
  const body = { model, max_tokens: 1024, messages: conversation }
  const message = stream
    ? await client.messages.stream(body, options).finalMessage()
    : await client.messages.create(body, options)
  const usage = message.usage
  const prompt = usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0)
  return {
    text: message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
    calls: message.content.flatMap((block) =>
      block.type === 'tool_use' ? [{ name: block.name, arguments: block.input }] : [],
    ),
    usage: { prompt, completion: usage.output_tokens, total: prompt + usage.output_tokens },
  }
}
