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
  CLIENT_HEADERS,
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
import type { CountTokensRequest, MessagesRequest } from './model'
import { ignoredHeader } from '../ignored'
import { type AnswerShape, anthropicEvents, messageOf } from './events'
import { thinkingShown } from './fields'
import { promptOf, toChatRequest } from './translate'

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
  const routes = new EntryRequests(request, {
    signal: run.abort.signal,
    report: run.report,
    maxBytes: deps.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    passed: passedHeaders(context.request),
    headers: context.request.headers,
    setHeaders: context.setHeaders,
  })
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

/** What the entries of one request share: its abort, its report, the response cap, and where headers are set. */
type EntryContext = {
  signal: AbortSignal
  report: StreamReport
  maxBytes: number
  passed: PassedHeaders
  /** The client's request headers, which the OpenAI form carries under `CLIENT_HEADERS`. */
  headers: Headers
  setHeaders: (headers: Record<string, string>) => void
}

/**
 * The request as each registry entry takes it. The OpenAI form is made once, on the first entry
 * that needs it, and names the fields it ignored in `x-trellis-ignored` then: before the answer's
 * first byte, since entries are tried only until one answers. (Should a translated entry fail
 * and a native one serve, the header still names them.)
 */
class EntryRequests {
  readonly #request: MessagesRequest
  readonly #context: EntryContext
  readonly #shape: AnswerShape
  #chat: ChatRequest | undefined

  constructor(request: MessagesRequest, context: EntryContext) {
    this.#request = request
    this.#context = context
    this.#shape = {
      model: request.model,
      thinking: thinkingShown(request.thinking),
      stopSequences: request.stop_sequences ?? [],
    }
  }

  async complete(entry: RouteEntry): Promise<JsonObject> {
    const { signal, report, passed } = this.#context
    const native = entry.provider.messages
    if (native) return native.complete(this.#native(entry), signal, report, passed)
    const completion = await entry.provider.complete({ ...this.#translated(), model: entry.model }, signal)
    if (isObject(completion.usage)) report.usage = completion.usage
    const finish = (completion.choices[0] as { finish_reason?: unknown } | undefined)?.finish_reason
    if (typeof finish === 'string') report.finishReason = finish
    return messageOf(completion, this.#shape)
  }

  stream(entry: RouteEntry): AsyncIterable<Uint8Array> {
    const { signal, report, passed, maxBytes } = this.#context
    const native = entry.provider.messages
    if (native) return native.streamEvents(this.#native(entry), signal, report, passed)
    const chunks = entry.provider.stream({ ...this.#translated(), model: entry.model }, signal)
    return anthropicEvents(chunks, this.#shape, report, maxBytes)
  }

  #native(entry: RouteEntry): NativeRequest {
    return { ...this.#request, model: entry.model } as NativeRequest
  }

  #translated(): ChatRequest {
    if (this.#chat) return this.#chat
    const { chat, ignored } = toChatRequest(this.#request)
    this.#context.setHeaders(ignoredHeader(ignored))
    return (this.#chat = { ...chat, [CLIENT_HEADERS]: this.#context.headers })
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
