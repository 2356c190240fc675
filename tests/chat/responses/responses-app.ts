import type { AppDeps } from '../../../src/app'
import type { ChatSetup } from '../../../src/chat'
import type { ChatCompletionChunk, ChatProvider, ChatRequest } from '../../../src/chat/providers/provider'
import { makeChatApp } from '../chat-app'

/** The app of chat-app.ts, with `respond(body)`: `POST /v1/responses` with the chat token. */
export async function makeResponsesApp(
  options: { chat?: ChatSetup; env?: Record<string, string>; deps?: Partial<AppDeps> } = {},
) {
  const app = await makeChatApp(options)
  const respond = (body: unknown, init: RequestInit & { token?: string; path?: string } = {}) =>
    app.request(init.path ?? '/v1/responses', { method: 'POST', token: app.token, json: body, ...init })
  return { ...app, respond }
}

/** One server-sent event of a Responses stream: its `event:` line, its data, and the data's JSON. */
export type SentEvent = { event: string | undefined; data: Record<string, any> }

/** The events of a Responses stream's body; keep-alive comments are left out. */
export function responseEventsOf(body: string): SentEvent[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const lines = block.split('\n')
      const event = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length)
      const data = lines.find((line) => line.startsWith('data: '))!.slice('data: '.length)
      return { event, data: JSON.parse(data) }
    })
}

export const chunk = (
  delta: Record<string, unknown>,
  finish: string | null = null,
  usage?: Record<string, unknown>,
): ChatCompletionChunk => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'up',
  choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }],
  ...(usage ? { usage } : {}),
})

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts, as a provider must. */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true })
  })

/**
 * A provider that streams `script` (chunks, waits of so many ms, a failure to throw) and answers a
 * whole completion with `message`; it records every request it was sent in `sent`.
 */
export function scripted(
  name: string,
  script: (ChatCompletionChunk | number | Error)[] = [],
  message: Record<string, unknown> = { role: 'assistant', content: 'ok' },
  finish = 'stop',
): ChatProvider & { sent: ChatRequest[] } {
  const sent: ChatRequest[] = []
  return {
    name,
    sent,
    complete: async (request) => {
      sent.push(request)
      for (const step of script) if (step instanceof Error) throw step
      return {
        id: 'c',
        object: 'chat.completion',
        created: 1,
        model: 'up',
        choices: [{ index: 0, message, finish_reason: finish }],
        usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
      }
    },
    stream: async function* (request, signal) {
      sent.push(request)
      for (const step of script) {
        if (typeof step === 'number') await sleep(step, signal)
        else if (step instanceof Error) throw step
        else yield step
      }
    },
  }
}
