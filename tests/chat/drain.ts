import type { ChatCompletionChunk } from '../../src/chat/providers/provider'

/**
 * Reads a provider's chunk stream to its end or its failure: what arrived, and the error if any.
 * `pauseMs` is spent after each chunk, as a slow client would, so tests can tell the time a
 * consumer takes from the upstream's silence.
 *
 * @example
 * const { received, error } = await drain(provider.stream(REQUEST, signal), 100)
 */
export async function drain(
  chunks: AsyncIterable<ChatCompletionChunk>,
  pauseMs = 0,
): Promise<{ received: ChatCompletionChunk[]; error: unknown }> {
  const received: ChatCompletionChunk[] = []
  try {
    for await (const chunk of chunks) {
      received.push(chunk)
      if (pauseMs) await Bun.sleep(pauseMs)
    }
    return { received, error: undefined }
  } catch (error) {
    return { received, error }
  }
}
