/**
 * What the native Responses relay's tests share: a provider with `responses: "native"` in front of
 * the mock, a stream read to its end or its failure, and the checks of a ProviderError.
 */
import { expect } from 'bun:test'
import { PROVIDER_DEFAULTS } from '../../../../src/config/chat'
import { openaiProvider, type OpenAIProviderOptions } from '../../../../src/chat/providers/openai/openai'
import { ProviderError, type NativeResponses } from '../../../../src/chat/providers/provider'
import type { HangUp } from '../../../helpers/scripted-server'

/** The native relay of an `openai` provider named `oai` in front of `baseUrl`. */
export function nativeRelay(baseUrl: string, options: Partial<OpenAIProviderOptions> = {}): NativeResponses {
  const provider = openaiProvider({
    ...PROVIDER_DEFAULTS,
    name: 'oai',
    baseUrl,
    responses: 'native',
    clock: () => new Date('2026-01-01T00:00:00Z'),
    ...options,
  })
  if (!provider.responses) throw new Error('responses: "native" gave no native relay')
  return provider.responses
}

/** Reads a stream to its end or its failure: the text handed over, how many items, and the error. */
export async function drainText(stream: AsyncIterable<Uint8Array>, pauseMs = 0) {
  const decoder = new TextDecoder()
  let text = ''
  let items = 0
  try {
    for await (const bytes of stream) {
      items++
      text += decoder.decode(bytes, { stream: true })
      if (pauseMs) await Bun.sleep(pauseMs)
    }
    return { text, items, error: undefined as unknown }
  } catch (error) {
    return { text, items, error }
  }
}

/** How many whole events `text` holds. */
export const eventCount = (text: string) => text.split('\n\n').filter(Boolean).length

/** Waits up to a second for the upstream to see its client go; true if it did. */
export async function upstreamSawAbort(seen: HangUp): Promise<boolean> {
  await Promise.race([seen.aborted, Bun.sleep(1000)])
  return seen.wasAborted
}

/** What the registry and the route learn from a failure. */
export type Expected = { status: number; code: string | null; retryable: boolean; message: string; type?: string }

export function expectError(error: unknown, expected: Expected): void {
  expect(error).toBeInstanceOf(ProviderError)
  const { status, options, message } = error as ProviderError
  expect({ status, code: options.code ?? null, retryable: options.retryable ?? false }).toEqual({
    status: expected.status,
    code: expected.code,
    retryable: expected.retryable,
  })
  if (expected.type) expect(options.type).toBe(expected.type)
  expect(message).toContain(expected.message)
}
