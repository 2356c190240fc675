import { openAIErrorBody } from '../../http/openai-errors'
import { toOpenAIError } from '../errors'
import { ProviderError } from '../providers/provider'
import { KEEP_ALIVE, type StreamFraming } from '../sse/writer'
import { badRequest } from './request'

const encoder = new TextEncoder()

/**
 * The Responses API's stream framing: waits are filled with `: keep-alive` comments, nothing
 * follows the terminal event, and a failure after the first byte is an `error` event
 * (`{type, code, message, param, sequence_number}`), numbered after the events already sent:
 * `nextSequence` says which number that is. One per stream, since the number is the stream's.
 */
export function responsesFraming(nextSequence: () => number): StreamFraming {
  return {
    keepAlive: KEEP_ALIVE,
    done: undefined,
    errorEvent: (error, requestId) => {
      const { code, message, param } = openAIErrorBody(toOpenAIError(error, requestId)).error
      const data = JSON.stringify({ type: 'error', code, message, param, sequence_number: nextSequence() })
      return encoder.encode(`event: error\ndata: ${data}\n\n`)
    },
  }
}

/**
 * A provider's error naming a Chat Completions parameter, renamed to the Responses parameter it
 * came from (`max_completion_tokens` → `max_output_tokens`, `tools[2]` → `tools[4].tools[1]`);
 * anything else as it is.
 */
export function renamed(error: unknown, param: (chat: string) => string | undefined): unknown {
  if (!(error instanceof ProviderError) || !error.options.param) return error
  const name = param(error.options.param)
  if (name === undefined || name === error.options.param) return error
  return new ProviderError(error.status, error.message, { ...error.options, param: name })
}

/**
 * OpenAI's answer to a `previous_response_id` it does not have: a 400 with code
 * `previous_response_not_found` (clients recover from it by sending the whole conversation). A
 * response of another owner's is answered alike, word for word.
 */
export const previousNotFound = (id: string) =>
  badRequest(`Previous response with id '${id}' not found.`, 'previous_response_id', 'previous_response_not_found')
