import { anthropicErrorBody, type AnthropicErrorInit } from '../../http/anthropic-errors'
import { toOpenAIError } from '../errors'
import type { StreamFraming } from '../sse/writer'
import { eventText } from './events'

/**
 * Maps anything thrown on a Messages route to an Anthropic error: the status, message and advice
 * (Retry-After, WWW-Authenticate) are those the chat routes would answer with (see
 * error-mapping.ts, which hides internals and names the request id); the type is the thrower's
 * when it is one of Anthropic's (a native upstream's `overloaded_error`), else the status's.
 */
export function toAnthropicError(error: unknown, requestId?: string): AnthropicErrorInit & { isInternal?: boolean } {
  const init = toOpenAIError(error, requestId)
  return {
    status: init.status,
    message: init.message,
    type: init.type,
    retryAfter: init.retryAfter,
    headers: init.headers,
    body: init.body,
    isInternal: init.isInternal,
  }
}

const encoder = new TextEncoder()

/**
 * Anthropic's stream framing: waits are filled with `ping` events (Anthropic's own bytes, the
 * space included), a failure after the first byte is an `error` event, and nothing follows
 * `message_stop`, which ends the last item.
 */
export const ANTHROPIC_FRAMING: StreamFraming = {
  keepAlive: encoder.encode('event: ping\ndata: {"type": "ping"}\n\n'),
  done: undefined,
  errorEvent: (error, requestId) =>
    encoder.encode(eventText(anthropicErrorBody(toAnthropicError(error, requestId), requestId))),
}
