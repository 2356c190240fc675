import type {
  ChatCompletionRequest,
  ChunkDelta,
  FinishReason,
  FunctionTool,
  ResponseMessage,
  TokenLogprob,
  ToolCall,
  Usage,
} from '../../model'
import { ProviderError, type ChatRequest } from '../provider'
import { logprobFor } from './logprobs'
import { ExampleTooLarge, exampleFor } from './schema-example'
import { contentText, leadingTokens, promptOf, type PromptCache, tokenAt } from './tokenizer'
import { utf8Length } from '../../../utf8'

/**
 * What the echo provider answers (see echo.ts for the rules), decided from the request alone:
 * the texts, the tool call, the usage, the logprobs, and the steps a stream is made of. echo.ts
 * turns them into chunks and paces them.
 */

/**
 * The message `complete` answers with and its logprobs (built only when `keep`), sized as they
 * are made: n choices share one message and one logprobs list, which only serialising would
 * multiply, so an answer larger than `limit` is refused before that, and before a logprobs list
 * larger than the cap is built. The estimate is at most ~1 KB above the real size, never below.
 */
export function sized(request: ChatCompletionRequest, answer: Answer, limit: number, keep: boolean) {
  const message: ResponseMessage = {
    role: 'assistant',
    content: answer.toolCall ? null : answer.content,
    refusal: null,
  }
  if (answer.reasoningTokens > 0) message.reasoning_content = answer.reasoning
  if (answer.toolCall)
    message.tool_calls = [
      { ...answer.toolCall, function: { ...answer.toolCall.function, arguments: answer.arguments } },
    ]
  const choices = request.n ?? 1
  const shared = 256 + request.model.length * 6 + utf8Length(JSON.stringify(answer.usage))
  let perChoice = 96 + utf8Length(JSON.stringify(message))
  const fits = () => shared + choices * perChoice <= limit
  if (!fits()) throw answerTooLarge(request, limit)
  if (!request.logprobs) return { message, logprobs: null }
  const content: TokenLogprob[] = []
  let token: string | undefined
  for (let at = 0; (token = tokenAt(answer.content, at)) !== undefined; at += token.length) {
    const entry = logprobFor(token, request.top_logprobs ?? 0)
    perChoice += utf8Length(JSON.stringify(entry)) + 1
    if (!fits()) throw answerTooLarge(request, limit)
    if (keep) content.push(entry)
  }
  return { message, logprobs: { content, refusal: null } }
}

/**
 * The 400 for an answer larger than `limit`. The echo provider's answers are determined by the
 * request, so the client can fix it; `param` names the multiplier to lower first.
 */
function answerTooLarge(request: ChatCompletionRequest, limit: number): ProviderError {
  const param =
    (request.n ?? 1) > 1
      ? 'n'
      : request.logprobs && request.top_logprobs
        ? 'top_logprobs'
        : request.logprobs
          ? 'logprobs'
          : request.max_completion_tokens != null
            ? 'max_completion_tokens'
            : 'max_tokens'
  return new ProviderError(
    400,
    `The answer would be larger than this server's limit of ${limit} bytes per response; lower '${param}'.`,
    {
      type: 'invalid_request_error',
      param,
      code: 'response_too_large',
    },
  )
}

/** The route has checked the request against `ChatCompletionRequest`; echo relies on that shape. */
export function validated(request: ChatRequest): ChatCompletionRequest {
  return request as ChatCompletionRequest
}

/**
 * Everything the echo provider will say, decided before the first chunk. The texts are
 * kept as strings and split into tokens only while streaming, so a held stream does not
 * hold a list of its tokens.
 */
export type Answer = {
  reasoning: string
  reasoningTokens: number
  content: string
  contentTokens: number
  toolCall?: ToolCall
  arguments: string
  argumentTokens: number
  finishReason: FinishReason
  /** The `stop` sequence that ended the answer, when one did (and `max_tokens` did not come first). */
  stopSequence?: string
  usage: Usage
}

export function planAnswer(request: ChatCompletionRequest, cache: PromptCache, limit: number): Answer {
  const messages = request.messages
  const lastUser = [...messages].reverse().find((message) => message.role === 'user')
  const text = contentText(lastUser?.content)
  let budget = request.max_completion_tokens ?? request.max_tokens ?? Number.POSITIVE_INFINITY
  let truncated = false
  const take = (full: string) => {
    const kept = leadingTokens(full, budget)
    truncated ||= kept.cut
    budget -= kept.count
    return kept
  }

  const reasoning = take(
    isReasoner(request.model) ? reasoningFor(leadingTokens(text, Number.POSITIVE_INFINITY).count) : '',
  )
  const tool = forcedTool(request)
  let content = take('')
  let args = take('')
  let toolCall: ToolCall | undefined
  let stopped: string | undefined
  if (tool) {
    toolCall = { id: toolCallId(), type: 'function', function: { name: tool.function.name, arguments: '' } }
    const param = `tools[${(request.tools ?? []).indexOf(tool)}].function.parameters`
    args = take(
      JSON.stringify(
        boundedExample(tool.function.parameters ?? { type: 'object', properties: {} }, text, limit, param),
      ),
    )
  } else {
    const cut = cutAtStop(formatted(request, text, limit), request.stop)
    content = take(cut.text)
    stopped = cut.sequence
  }

  const prompt = promptOf(messages, request.tools)
  const { hits, misses } = cache.lookupAndRemember(prompt)
  const perChoice = reasoning.count + content.count + args.count
  const choices = choiceIndexes(request).length
  return {
    reasoning: reasoning.text,
    reasoningTokens: reasoning.count,
    content: content.text,
    contentTokens: content.count,
    toolCall,
    arguments: args.text,
    argumentTokens: args.count,
    finishReason: truncated ? 'length' : toolCall ? 'tool_calls' : 'stop',
    ...(truncated || stopped === undefined ? {} : { stopSequence: stopped }),
    usage: {
      prompt_tokens: prompt.ends.length,
      completion_tokens: perChoice * choices,
      total_tokens: prompt.ends.length + perChoice * choices,
      // DeepSeek's counters, and OpenAI's spelling of the same for clients that read only that.
      prompt_cache_hit_tokens: hits,
      prompt_cache_miss_tokens: misses,
      prompt_tokens_details: { cached_tokens: hits },
      completion_tokens_details: { reasoning_tokens: reasoning.count * choices },
    },
  }
}

/**
 * One streamed event of a choice, before it is wrapped into a chunk per choice. A content token
 * without logprobs, most of every answer, is just the token: no objects are made for it.
 */
export type Step = string | FullStep
type FullStep = {
  delta: ChunkDelta
  logprobs?: { content: TokenLogprob[]; refusal: null }
  finishReason?: FinishReason
  /** The stop sequence that ended the answer, sent as vLLM does: `stop_reason` on the last chunk's choice. */
  stopSequence?: string
}

/** A step with its delta, also when it is a bare content token. */
export function spelledOut(step: Step): FullStep {
  return typeof step === 'string' ? { delta: { content: step } } : step
}

export function* streamSteps(answer: Answer, request: ChatCompletionRequest): Generator<Step> {
  const reasons = answer.reasoningTokens > 0
  const first: ChunkDelta = { role: 'assistant', content: answer.toolCall || reasons ? null : '', refusal: null }
  if (reasons) first.reasoning_content = ''
  if (answer.toolCall && !reasons) first.tool_calls = [toolCallStart(answer.toolCall)]
  yield { delta: first }
  // Tokens are walked with tokenAt rather than a nested generator: one generator per held stream, not four.
  let token: string | undefined
  for (let at = 0; (token = tokenAt(answer.reasoning, at)) !== undefined; at += token.length)
    yield { delta: { reasoning_content: token } }
  if (answer.toolCall && reasons) yield { delta: { tool_calls: [toolCallStart(answer.toolCall)] } }
  for (let at = 0; (token = tokenAt(answer.arguments, at)) !== undefined; at += token.length) {
    yield { delta: { tool_calls: [{ index: 0, function: { arguments: token } }] } }
  }
  for (let at = 0; (token = tokenAt(answer.content, at)) !== undefined; at += token.length) {
    yield request.logprobs
      ? {
          delta: { content: token },
          logprobs: { content: [logprobFor(token, request.top_logprobs ?? 0)], refusal: null },
        }
      : token
  }
  yield answer.stopSequence === undefined
    ? { delta: {}, finishReason: answer.finishReason }
    : { delta: {}, finishReason: answer.finishReason, stopSequence: answer.stopSequence }
}

function toolCallStart(call: ToolCall) {
  return { index: 0, id: call.id, type: 'function' as const, function: { name: call.function.name, arguments: '' } }
}

function isReasoner(model: string): boolean {
  return model.startsWith('echo-reasoner')
}

function reasoningFor(tokenCount: number): string {
  return `Echo provider, not a model: repeating ${tokenCount} tokens.`
}

/** The tool `tool_choice` forces: a named function, or the first tool when `required`. */
function forcedTool(request: ChatCompletionRequest): FunctionTool | undefined {
  const tools = request.tools ?? []
  const choice = request.tool_choice
  if (choice === 'required') return tools[0]
  if (typeof choice === 'object') return tools.find((tool) => tool.function.name === choice.function.name)
  return undefined
}

function formatted(request: ChatCompletionRequest, text: string, limit: number): string {
  const format = request.response_format
  if (format?.type === 'json_object') return JSON.stringify({ echo: text })
  if (format?.type === 'json_schema')
    return JSON.stringify(
      boundedExample(format.json_schema?.schema ?? {}, text, limit, 'response_format.json_schema.schema'),
    )
  return text
}

/**
 * {@link exampleFor} within the response cap, or a 400 naming the schema: echo's examples follow
 * `minItems` and `minLength`, and a schema whose example cannot fit is the request's to change.
 */
function boundedExample(schema: unknown, text: string, limit: number, param: string): unknown {
  try {
    return exampleFor(schema, text, limit)
  } catch (error) {
    if (!(error instanceof ExampleTooLarge)) throw error
    throw new ProviderError(
      400,
      `Invalid '${param}': an example of this schema would be larger than this server's limit of ${limit} bytes ` +
        `per response; lower its 'minItems' or 'minLength'.`,
      { type: 'invalid_request_error', param, code: 'response_too_large' },
    )
  }
}

/** The text before the first `stop` sequence in it, and that sequence (the earliest; the first listed on a tie). */
function cutAtStop(text: string, stop: ChatCompletionRequest['stop']): { text: string; sequence?: string } {
  const sequences = typeof stop === 'string' ? [stop] : (stop ?? [])
  let end = text.length
  let matched: string | undefined
  for (const sequence of sequences) {
    const at = sequence ? text.indexOf(sequence) : -1
    if (at >= 0 && at < end) {
      end = at
      matched = sequence
    }
  }
  // A stop sequence that is half a surrogate pair must not leave the other half behind.
  const previous = text.charCodeAt(end - 1)
  if (end < text.length && previous >= 0xd800 && previous <= 0xdbff) end--
  return matched === undefined ? { text } : { text: text.slice(0, end), sequence: matched }
}

export function choiceIndexes(request: ChatCompletionRequest): number[] {
  return Array.from({ length: request.n ?? 1 }, (_, index) => index)
}

function toolCallId(): string {
  return `call_${randomHex(12)}`
}

export function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (byte) => byte.toString(16).padStart(2, '0')).join(
    '',
  )
}
