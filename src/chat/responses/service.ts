import { DEFAULT_MAX_RESPONSE_BYTES } from '../../config/chat'
import { DATABASE_RETRY_AFTER_SECONDS, databaseUnavailable } from '../../db/failures'
import { OpenAIError } from '../../http/openai-errors'
import { JSON_MEDIA_TYPE } from '../../http/media-type'
import { utf8Length } from '../../utf8'
import {
  type CompletionContext,
  type CompletionDeps,
  CompletionRun,
  DEFAULT_COMPLETION_RESERVATION,
  estimatedTokens,
  type Reservable,
} from '../completion'
import { ignoredHeader } from '../ignored'
import {
  CLIENT_HEADERS,
  type ChunkTranslator,
  type JsonObject,
  type ResponsesReport,
  type ResponsesRequest as NativeRequest,
  isObject,
} from '../providers/provider'
import type { RouteEntry } from '../registry'
import { type ResponseFields, responseId, responseOf } from './answer'
import { previousNotFound, renamed, responsesFraming } from './errors'
import { responseEvents, type Sequence, translatedEvents } from './events'
import { referencedIds, type StoredItem, storedInput } from './input'
import { ID_PATTERN, type ResponsesRequest } from './model'
import { badRequest } from './request'
import type { ResponseStore } from './store'
import { toChatRequest, type Translation } from './translate'

/** What serving a response needs beside a completion's: the store and its bounds. */
export type ResponsesDeps = CompletionDeps & {
  store: ResponseStore
  clock: () => Date
  retentionDays: number
  /** Most UTF-8 bytes of conversation (carried and new input) one stored response may hold. */
  maxStoredBytes: number
}

/**
 * What a request says and continues from, resolved against the owner's store once, before
 * admission: the items carried from `previous_response_id` (`context`) and its own input with its
 * `item_reference`s resolved. A previous response or item the owner does not have is `failure`,
 * thrown by a translated model; a native provider gets the body as it came and resolves its own.
 */
type Conversation = {
  context: StoredItem[]
  input: StoredItem[]
  /** What is stored: the context as one JSON list, and each input item's JSON. */
  contextText: string
  inputTexts: string[]
  bytes: number
  failure?: unknown
}

type Served = { request: ResponsesRequest; promptBytes: number }

/** The estimate of a request's prompt (instructions, the whole conversation, tools) and the most it may answer. */
const RESPONSES_REQUEST: Reservable<Served> = {
  promptEstimate: (served) => estimatedTokens(served.promptBytes),
  answerTokens: (served) => served.request.max_output_tokens ?? DEFAULT_COMPLETION_RESERVATION,
}

const DAY_MS = 86_400_000
/** A response id that can be stored and named in a path (a native upstream's may be anything). */
const STORABLE_ID = new RegExp(ID_PATTERN)

/**
 * `POST /v1/responses` from admission to settlement (as a chat completion's, see `CompletionRun`),
 * storing the response when `store` is not false. Each registry entry is reached in its own
 * language: a provider with `responses` gets the client's body with only `model` rewritten, and
 * its answer or event bytes go out as they are; any other gets the request in Chat Completions
 * form (translate.ts) and its answer comes back as a Response (answer.ts, events.ts). Entries may
 * mix, and retry and fall back as for chat completions.
 */
export async function serveResponses(
  deps: ResponsesDeps,
  context: CompletionContext,
  request: ResponsesRequest,
): Promise<Response> {
  const owner = context.principal.owner
  const now = deps.clock()
  const store = request.store !== false
  const conversation = await resolve(deps.store, owner, request, now)
  if (store && conversation.bytes > deps.maxStoredBytes)
    throw badRequest(
      `Invalid 'store': this response's input, with the conversation it continues, is ${conversation.bytes} bytes, ` +
        `more than the ${deps.maxStoredBytes} a stored response may hold; send it with store: false.`,
      'store',
    )
  const promptBytes =
    conversation.bytes + utf8Length(request.instructions ?? '') + utf8Length(JSON.stringify(request.tools ?? []))
  const streamed = request.stream === true
  const served: Served = { request, promptBytes }
  const run = await CompletionRun.admit(deps, context, RESPONSES_REQUEST, served, request.model, streamed)
  const createdAt = Math.floor(now.getTime() / 1000)
  const fields: ResponseFields = { id: responseId(), createdAt, model: request.model, request, store }
  const keep = store
    ? (response: JsonObject) => {
        const id = response.id
        if (typeof id !== 'string' || !STORABLE_ID.test(id)) return Promise.resolve()
        return deps.store.save({
          id,
          owner,
          createdAt: now,
          expiresAt: new Date(now.getTime() + deps.retentionDays * DAY_MS),
          response,
          context: conversation.contextText,
          input: conversation.input,
          inputTexts: conversation.inputTexts,
          bytes: conversation.bytes,
        })
      }
    : undefined
  const routes = new EntryRequests(request, conversation, fields, run, deps, context, keep)
  if (!streamed) {
    try {
      const response = await deps.registry.completeWith(
        request.model,
        run.abort.signal,
        (entry) => routes.complete(entry),
        run.report,
      )
      await keep?.(response)
      run.finish(200, undefined)
      return Response.json(response, { headers: { 'content-type': JSON_MEDIA_TYPE } })
    } catch (error) {
      run.failed(error)
      throw error
    }
  }
  const state = { committed: false }
  return run.stream(
    deps.registry.streamWith(request.model, run.abort.signal, state, (entry) => routes.stream(entry), run.report),
    state,
    responsesFraming(() => routes.nextSequence()),
  )
}

async function resolve(
  store: ResponseStore,
  owner: string,
  request: ResponsesRequest,
  now: Date,
): Promise<Conversation> {
  let failure: unknown
  let context: StoredItem[] = []
  const previous = request.previous_response_id
  if (previous) {
    const continued = await store.continued(owner, previous, now)
    if (continued) context = continued.items
    else failure = previousNotFound(previous)
  }
  const references = referencedIds(request.input)
  const found = references.length > 0 ? await store.items(owner, references, now) : new Map<string, StoredItem>()
  let input: StoredItem[] = []
  try {
    input = storedInput(request.input, found)
  } catch (error) {
    failure ??= error
  }
  const contextText = JSON.stringify(context)
  const inputTexts = input.map((item) => JSON.stringify(item))
  let bytes = utf8Length(contextText)
  for (const text of inputTexts) bytes += utf8Length(text)
  return { context, input, contextText, inputTexts, bytes, failure }
}

/** The request as each registry entry takes it; the chat form is made once, on the first entry that needs it. */
class EntryRequests {
  readonly #request: ResponsesRequest
  readonly #conversation: Conversation
  readonly #fields: ResponseFields
  readonly #report: ResponsesReport
  readonly #signal: AbortSignal
  readonly #maxBytes: number
  readonly #setHeaders: (headers: Record<string, string>) => void
  /** The client's request headers, which the Chat Completions form carries under `CLIENT_HEADERS`. */
  readonly #headers: Headers
  readonly #keep: ((response: JsonObject) => Promise<void>) | undefined
  readonly #sequence: Sequence = { next: 0 }
  /** The last bytes a native provider sent, whose events carry the upstream's own sequence numbers. */
  readonly #native: { last?: Uint8Array } = {}
  #chat: Translation | undefined

  constructor(
    request: ResponsesRequest,
    conversation: Conversation,
    fields: ResponseFields,
    run: CompletionRun<Served>,
    deps: ResponsesDeps,
    context: Pick<CompletionContext, 'request' | 'setHeaders'>,
    keep: ((response: JsonObject) => Promise<void>) | undefined,
  ) {
    this.#request = request
    this.#conversation = conversation
    this.#fields = fields
    this.#report = run.report
    this.#signal = run.abort.signal
    this.#maxBytes = deps.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
    this.#setHeaders = context.setHeaders
    this.#headers = context.request.headers
    this.#keep = keep
  }

  async complete(entry: RouteEntry): Promise<JsonObject> {
    const native = entry.provider.responses
    if (native) return native.complete(this.#nativeRequest(entry), this.#signal, this.#report)
    const translation = this.#translated()
    let completion
    try {
      completion = await entry.provider.complete({ ...translation.chat, model: entry.model }, this.#signal)
    } catch (error) {
      throw renamed(error, translation.param)
    }
    if (isObject(completion.usage)) this.#report.usage = completion.usage
    const finish = (completion.choices[0] as { finish_reason?: unknown } | undefined)?.finish_reason
    if (typeof finish === 'string') this.#report.finishReason = finish
    return responseOf(completion, this.#fields, translation.namespaced)
  }

  stream(entry: RouteEntry): AsyncIterable<Uint8Array> {
    const native = entry.provider.responses
    if (native) {
      const events = native.streamEvents(this.#nativeRequest(entry), this.#signal, this.#report)
      const keep = this.#keep
      const report = this.#report
      return new NativeEvents(
        events,
        this.#native,
        keep && (() => (report.response ? keep(report.response) : undefined)),
      )
    }
    const translation = this.#translated()
    const request = { ...translation.chat, model: entry.model }
    const keep = this.#keep
    const end = {
      fields: this.#fields,
      namespaced: translation.namespaced,
      param: translation.param,
      store: keep && ((response: JsonObject) => keep(response).catch(unstored)),
    }
    // A provider's event bytes when it has them (every built-in one does): read by read, text chunks never parsed, and
    // through the relay's own reading when it takes a translator.
    const provider = entry.provider
    const signal = this.#signal
    const source = provider.streamTranslated
      ? { through: (translator: ChunkTranslator) => provider.streamTranslated!(request, signal, translator) }
      : provider.streamEvents && { events: provider.streamEvents(request, signal) }
    if (source) return translatedEvents(source, end, this.#sequence, this.#report, this.#maxBytes)
    return responseEvents(provider.stream(request, this.#signal), end, this.#sequence, this.#report, this.#maxBytes)
  }

  /** The `sequence_number` of an error event now: after the upstream's own when a native provider is serving. */
  nextSequence(): number {
    const last = this.#native.last
    if (last === undefined) return this.#sequence.next++
    const numbers = [...new TextDecoder().decode(last).matchAll(/"sequence_number":\s*(\d+)/g)]
    return numbers.length === 0 ? 0 : Number(numbers[numbers.length - 1]![1]) + 1
  }

  #nativeRequest(entry: RouteEntry): NativeRequest {
    return { ...this.#request, model: entry.model } as NativeRequest
  }

  #translated(): Translation {
    if (this.#chat) return this.#chat
    const conversation = this.#conversation
    if (conversation.failure !== undefined) throw conversation.failure
    const carried = conversation.context.length
    const items = carried === 0 ? conversation.input : [...conversation.context, ...conversation.input]
    this.#chat = toChatRequest(this.#request, items, (i) =>
      i < carried ? 'previous_response_id' : `input[${i - carried}]`,
    )
    this.#chat.chat[CLIENT_HEADERS] = this.#headers
    this.#setHeaders(ignoredHeader(this.#chat.ignored))
    return this.#chat
  }
}

/**
 * A stream whose response could not be stored ends with an error event saying so (a whole answer is
 * a 503 from the route's error hook, which knows the database's failures too).
 */
function unstored(error: unknown): never {
  if (!databaseUnavailable(error)) throw error
  throw new OpenAIError({
    status: 503,
    message: 'The response was made but could not be stored: the database is unavailable; retry the request.',
    retryAfter: DATABASE_RETRY_AFTER_SECONDS,
  })
}

/**
 * A native provider's event bytes as they are, remembering the last (for the number of an error
 * event after them) and keeping the response once they end. A plain iterator: one `then` an item,
 * no generator frame, on the relay's path.
 */
class NativeEvents implements AsyncIterableIterator<Uint8Array> {
  readonly #iterator: AsyncIterator<Uint8Array>
  readonly #seen: { last?: Uint8Array }
  readonly #end: (() => Promise<void> | undefined) | undefined

  constructor(
    events: AsyncIterable<Uint8Array>,
    seen: { last?: Uint8Array },
    end: (() => Promise<void> | undefined) | undefined,
  ) {
    this.#iterator = events[Symbol.asyncIterator]()
    this.#seen = seen
    this.#end = end
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    return this.#iterator.next().then(this.#onItem)
  }

  readonly #onItem = (
    result: IteratorResult<Uint8Array>,
  ): IteratorResult<Uint8Array> | Promise<IteratorResult<Uint8Array>> => {
    if (!result.done) {
      this.#seen.last = result.value
      return result
    }
    const kept = this.#end?.()
    return kept ? kept.then(() => result) : result
  }

  return(value?: unknown): Promise<IteratorResult<Uint8Array>> {
    return this.#iterator.return?.(value) ?? Promise.resolve({ done: true, value: undefined })
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Uint8Array> {
    return this
  }
}
