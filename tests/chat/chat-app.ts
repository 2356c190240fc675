import type { AppDeps } from '../../src/app'
import type { ChatSetup } from '../../src/chat'
import type { ChatCompletionChunkObject } from '../../src/chat/model'
import type { ChatProvider } from '../../src/chat/providers/provider'
import { ModelRegistry } from '../../src/chat/registry'
import { makeTestApp } from '../helpers/app'

/** A registry serving each given provider under its own public model name, without retries. */
export function registryOf(providers: Record<string, ChatProvider>): ModelRegistry {
  const noRetry = { maxRetries: 0, retryBaseMs: 0, retryMaxMs: 0 }
  return new ModelRegistry(
    new Map(Object.entries(providers).map(([name, provider]) => [name, [{ provider, model: name, retry: noRetry }]])),
  )
}

/**
 * The real application whose chat routes serve `chat` (default: what the environment
 * describes), with a token that has the `chat` scope.
 */
export async function makeChatApp(
  options: { chat?: ChatSetup; env?: Record<string, string>; deps?: Partial<AppDeps> } = {},
) {
  const deps: Partial<AppDeps> & { chat?: ChatSetup } = {
    ...options.deps,
    ...(options.chat ? { chat: options.chat } : {}),
  }
  const app = await makeTestApp({ env: options.env, deps })
  const token = await app.tokenFor('chat-user', ['chat'])
  /** `POST /v1/chat/completions` with a JSON body and the chat token. */
  const chat = (body: unknown, init: RequestInit = {}) =>
    app.request('/v1/chat/completions', { method: 'POST', token, json: body, ...init })
  return { ...app, token, chat }
}

/** Reads a response body to the end as a list of byte chunks, via `getReader()`. */
export async function readAll(response: Response): Promise<string> {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return text + decoder.decode()
    text += decoder.decode(value, { stream: true })
  }
}

/** The JSON payloads of the `data:` events of an SSE body (without `[DONE]`). */
export function eventsOf(body: string): ChatCompletionChunkObject[] {
  return body
    .split('\n\n')
    .filter((event) => event.startsWith('data: ') && event !== 'data: [DONE]')
    .map((event) => JSON.parse(event.slice('data: '.length)))
}

export const USER = (content: string) => [{ role: 'user', content }]
