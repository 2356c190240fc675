import type { ChunkDelta, FinishReason, ResponseMessage, Usage } from '../../model'
import type { Step as EchoStep } from '../echo/answer'
import { promptOf, type PromptMessage, tokenize } from '../echo/tokenizer'
import type { ChatRequest } from '../provider'
import type { ScriptedError, Step } from './model'

/**
 * A rule's reply made into what the provider sends, decided before the first event:
 *
 * - Content comes in the order every wire format has it: reasoning, then text or refusal, then tool calls, whatever
 *   the order of the steps. Several `text` (or `pieces`) steps are one text; several `tool_call` steps are parallel
 *   calls. `text` is streamed one echo token per event (src/chat/providers/echo/tokenizer.ts), `pieces` one piece
 *   per event, reasoning, a refusal and tool arguments one token per event.
 * - The stream's events are those of a Chat Completions stream: the first carries the role, then one per token or
 *   piece (a tool call's first event its name), then the one with `finish_reason`; a usage event follows when asked
 *   for. Fault counts (`error_after_events`, `disconnect_after_events`) count these events; a count past the last
 *   content event stops right before the finishing one, so a faulty stream never ends cleanly.
 * - Usage that is not given is counted with echo's tokenizer: the prompt as echo counts it (no cache), the answer's
 *   reasoning, text, refusal and tool arguments; `total_tokens` is always their sum.
 */
export type Plan = {
  steps: EchoStep[]
  message: ResponseMessage
  finishReason: FinishReason
  usage: Usage
  /** An HTTP error before the first byte. */
  error?: ScriptedError
  fault?: Fault
  ttftMs: number
  gapMs: number
  deadlineMs?: number
}

type Fault =
  | { kind: 'error'; afterEvents: number; error?: ScriptedError }
  | { kind: 'disconnect'; afterEvents: number }
  | { kind: 'disconnect'; afterBytes: number }
  | { kind: 'stall' }

type ToolCall = { id: string; name: string; arguments: string }

export function planReply(reply: Step[], request: ChatRequest, choices: number, newId: () => string): Plan {
  let reasoning = ''
  const texts: string[] = []
  let refusal = ''
  const calls: ToolCall[] = []
  let finish: FinishReason | undefined
  let usage: Step['usage']
  let error: ScriptedError | undefined
  let fault: Fault | undefined
  let ttftMs = 0
  let gapMs = 0
  let deadlineMs: number | undefined
  for (const step of reply) {
    if (step.text !== undefined) texts.push(...tokenize(step.text))
    if (step.pieces !== undefined) texts.push(...step.pieces.filter((piece) => piece !== ''))
    if (step.reasoning !== undefined) reasoning += step.reasoning
    if (step.refusal !== undefined) refusal += step.refusal
    if (step.tool_call !== undefined) {
      const args = step.tool_call.arguments ?? {}
      calls.push({
        id: step.tool_call.id ?? `call_${newId()}`,
        name: step.tool_call.name,
        arguments: typeof args === 'string' ? args : JSON.stringify(args),
      })
    }
    if (step.finish_reason !== undefined) finish = step.finish_reason as FinishReason
    if (step.usage !== undefined) usage = step.usage
    if (step.error_after_events !== undefined)
      fault ??= { kind: 'error', afterEvents: step.error_after_events, error: step.error }
    else if (step.error !== undefined) error ??= step.error
    if (step.disconnect_after_events !== undefined)
      fault ??= { kind: 'disconnect', afterEvents: step.disconnect_after_events }
    if (step.disconnect_after_bytes !== undefined)
      fault ??= { kind: 'disconnect', afterBytes: step.disconnect_after_bytes }
    if (step.stall) fault ??= { kind: 'stall' }
    if (step.ttft_ms !== undefined) ttftMs = step.ttft_ms
    if (step.gap_ms !== undefined) gapMs = step.gap_ms
    if (step.deadline_ms !== undefined) deadlineMs = step.deadline_ms
  }
  const finishReason = finish ?? (calls.length > 0 ? 'tool_calls' : 'stop')
  const content = texts.join('')
  const reasoningTokens = tokenize(reasoning)
  const refusalTokens = tokenize(refusal)
  const argumentTokens = calls.map((call) => tokenize(call.arguments))

  // Text when there is text, or nothing else to say (an empty answer is an empty text, as echo's is).
  const hasText = texts.length > 0 || (calls.length === 0 && !refusal)
  const steps: EchoStep[] = []
  const first: ChunkDelta = { role: 'assistant', content: hasText ? '' : null, refusal: null }
  if (reasoning) first.reasoning_content = ''
  steps.push({ delta: first })
  for (const token of reasoningTokens) steps.push({ delta: { reasoning_content: token } })
  for (const token of refusalTokens) steps.push({ delta: { refusal: token } })
  for (const piece of texts) steps.push(piece)
  calls.forEach((call, index) => {
    const start = { index, id: call.id, type: 'function' as const, function: { name: call.name, arguments: '' } }
    steps.push({ delta: { tool_calls: [start] } })
    for (const token of argumentTokens[index]!)
      steps.push({ delta: { tool_calls: [{ index, function: { arguments: token } }] } })
  })
  steps.push({ delta: {}, finishReason })

  const message: ResponseMessage = { role: 'assistant', content: hasText ? content : null, refusal: refusal || null }
  if (reasoning) message.reasoning_content = reasoning
  if (calls.length > 0)
    message.tool_calls = calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }))

  const counted =
    reasoningTokens.length +
    tokenize(content).length +
    refusalTokens.length +
    argumentTokens.reduce((sum, tokens) => sum + tokens.length, 0)
  const prompt =
    usage?.prompt_tokens ?? promptOf(request.messages as PromptMessage[], request.tools as unknown[]).ends.length
  const completion = usage?.completion_tokens ?? counted * choices
  const cached = Math.min(usage?.cached_tokens ?? 0, prompt)
  const written = Math.min(usage?.cache_write_tokens ?? 0, prompt - cached)
  const reasoned = usage?.reasoning_tokens ?? Math.min(reasoningTokens.length * choices, completion)
  return {
    steps,
    message,
    finishReason,
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_cache_hit_tokens: cached,
      prompt_cache_miss_tokens: prompt - cached,
      prompt_tokens_details: written
        ? { cached_tokens: cached, cache_write_tokens: written }
        : { cached_tokens: cached },
      completion_tokens_details: { reasoning_tokens: reasoned },
    },
    error,
    fault,
    ttftMs,
    gapMs,
    deadlineMs,
  }
}

/** How many events are sent before a fault strikes: never the finishing one. */
export function eventsBeforeFault(plan: Plan, afterEvents: number): number {
  return Math.min(afterEvents, plan.steps.length - 1)
}
