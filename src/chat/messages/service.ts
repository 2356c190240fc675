import { DEFAULT_MAX_RESPONSE_BYTES, ECHO_PROVIDER } from '../../config/chat'
import { JSON_MEDIA_TYPE } from '../../http/media-type'
import {
  type CompletionContext,
  type CompletionDeps,
  CompletionRun,
  estimatedTokens,
  type Reservable,
} from '../completion'
import {
  type ChatRequest,
  type JsonObject,
  type MessagesRequest as NativeRequest,
  type PassedHeaders,
  type StreamReport,
  isObject,
} from '../providers/provider'
import { promptOf as echoPrompt } from '../providers/echo/tokenizer'
import { utf8Length } from '../../utf8'
import type { ModelRegistry, RouteEntry } from '../registry'
import { ANTHROPIC_FRAMING } from './errors'
import { anthropicEvents, messageOf } from './events'
import type { CountTokensRequest, MessagesRequest } from './model'
import { promptOf, showsThinking, toChatRequest } from './translate'

/**
 * A Messages request for admission: the estimate of its prompt (system, messages, tools) and
 * `max_tokens`, the most it may answer.
 */
const MESSAGES_REQUEST: Reservable<MessagesRequest> = {
  promptEstimate: (request) => estimatedTokens(promptBytes(request)),
  answerTokens: (request) => request.max_tokens,
}

function promptBytes(request: CountTokensRequest): number {
  const text = (value: unknown) => utf8Length(typeof value === 'string' ? value : JSON.stringify(value ?? ''))
  let bytes = text(request.system)
  for (const message of request.messages) bytes += text(message.content)
  if (request.tools) bytes += text(request.tools)
  return bytes
}

/**
 * `POST /v1/messages` from admission to settlement (the same as a chat completion's, see
 * `CompletionRun`). Each registry entry is reached in its own language: a provider with `messages`
 * gets the client's body with only `model` rewritten and its answer or event bytes go out as they
 * are; any other gets the request in OpenAI's form (translate.ts) and its answer comes back in
 * Anthropic's (events.ts). Entries may mix, and retry and fall back as for chat completions.
 */
export async function serveMessages(
  deps: CompletionDeps,
  context: CompletionContext,
  request: MessagesRequest,
): Promise<Response> {
  const streamed = request.stream === true
  const run = await CompletionRun.admit(deps, context, MESSAGES_REQUEST, request, request.model, streamed)
  const routes = new EntryRequests(
    request,
    run.abort.signal,
    run.report,
    deps.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    passedHeaders(context.request),
  )
  if (!streamed) {
    try {
      const message = await deps.registry.completeWith(
        request.model,
        run.abort.signal,
        (entry) => routes.complete(entry),
        run.report,
      )
      run.finish(200, undefined)
      return Response.json(message, { headers: { 'content-type': JSON_MEDIA_TYPE } })
    } catch (error) {
      run.failed(error)
      throw error
    }
  }
  const state = { committed: false }
  return run.stream(
    deps.registry.streamWith(request.model, run.abort.signal, state, (entry) => routes.stream(entry), run.report),
    state,
    ANTHROPIC_FRAMING,
  )
}

/** The request as each registry entry takes it; the OpenAI form is made once, on the first entry that needs it. */
class EntryRequests {
  readonly #request: MessagesRequest
  readonly #signal: AbortSignal
  readonly #report: StreamReport
  readonly #maxBytes: number
  readonly #passed: PassedHeaders
  #chat: ChatRequest | undefined

  constructor(
    request: MessagesRequest,
    signal: AbortSignal,
    report: StreamReport,
    maxBytes: number,
    passed: PassedHeaders,
  ) {
    this.#request = request
    this.#signal = signal
    this.#report = report
    this.#maxBytes = maxBytes
    this.#passed = passed
  }

  async complete(entry: RouteEntry): Promise<JsonObject> {
    const native = entry.provider.messages
    if (native) return native.complete(this.#native(entry), this.#signal, this.#report, this.#passed)
    const completion = await entry.provider.complete({ ...this.#translated(), model: entry.model }, this.#signal)
    if (isObject(completion.usage)) this.#report.usage = completion.usage
    const finish = (completion.choices[0] as { finish_reason?: unknown } | undefined)?.finish_reason
    if (typeof finish === 'string') this.#report.finishReason = finish
    return messageOf(completion, this.#request.model, showsThinking(this.#request.thinking))
  }

  stream(entry: RouteEntry): AsyncIterable<Uint8Array> {
    const native = entry.provider.messages
    if (native) return native.streamEvents(this.#native(entry), this.#signal, this.#report, this.#passed)
    const chunks = entry.provider.stream({ ...this.#translated(), model: entry.model }, this.#signal)
    return anthropicEvents(
      chunks,
      this.#request.model,
      showsThinking(this.#request.thinking),
      this.#report,
      this.#maxBytes,
    )
  }

  #native(entry: RouteEntry): NativeRequest {
    return { ...this.#request, model: entry.model } as NativeRequest
  }

  #translated(): ChatRequest {
    return (this.#chat ??= toChatRequest(this.#request))
  }
}

/** The client's headers a native provider passes on (see `PassedHeaders`). */
export function passedHeaders(request: Request): PassedHeaders {
  const beta = request.headers.get('anthropic-beta')
  return beta ? { anthropicBeta: beta } : {}
}

/**
 * How a token count was arrived at, sent as `x-trellis-token-count`: `exact` by echo's own
 * tokenizer, `upstream` by a native Anthropic provider's count_tokens, `estimate` for any other
 * model, whose tokenizer Trellis does not know.
 */
export type TokenCountMethod = 'exact' | 'upstream' | 'estimate'

/**
 * `POST /v1/messages/count_tokens`: the input tokens a Messages request with this prompt would
 * use, asked of the model's entries in order (retries and fallback as for a message).
 *
 * For a model served through OpenAI's form, whose tokenizer Trellis does not know, the answer is
 * the estimate Trellis reserves against token limits (a token per three bytes of UTF-8), which
 * errs high for most text. Clients call count_tokens to decide whether a prompt fits or must be
 * trimmed, so an estimate that errs high serves them, where an error would stop them. Only the
 * prompt is read (`promptOf`): top-level fields that `/v1/messages` would refuse for such a model
 * do not change a count, so they are not refused here.
 */
export async function countTokens(
  registry: ModelRegistry,
  request: CountTokensRequest,
  signal: AbortSignal,
  passed: PassedHeaders = {},
): Promise<{ input_tokens: number; method: TokenCountMethod }> {
  return registry.completeWith(request.model, signal, async (entry) => {
    const native = entry.provider.messages
    // A count_tokens body is a Messages request without `max_tokens`; the provider sends it on as it is.
    if (native)
      return {
        input_tokens: (
          await native.countTokens({ ...request, model: entry.model } as unknown as NativeRequest, signal, passed)
        ).input_tokens,
        method: 'upstream' as const,
      }
    const prompt = promptOf(request)
    // The count echo's usage reports as prompt tokens (input plus cache reads) for the same request.
    if (entry.provider.name === ECHO_PROVIDER)
      return { input_tokens: echoPrompt(prompt.messages, prompt.tools).ends.length, method: 'exact' as const }
    return { input_tokens: estimatedTokens(promptBytes(request)), method: 'estimate' as const }
  })
}
