import { Elysia, type DocumentDecoration } from 'elysia'
import { type AuthDeps, authPlugin, BEARER_SECURITY, type Principal } from '../../auth'
import { readBodyText, requireJsonContentType } from '../../http/body'
import { jsonContent } from '../../http/openapi-document'
import { OpenAIError, OpenAIErrorSchema } from '../../http/openai-errors'
import type { CompletionDeps } from '../completion'
import { modelNotFound } from '../registry'
import { ID_PATTERN, ResponsesRequest } from './model'
import { parseResponsesRequest } from './request'
import { DeletedResponse, InputItemList, InputItemsQuery, ResponseObject, ResponseQuery } from './response-model'
import { serveResponses } from './service'
import type { ResponseStore } from './store'

/** What the Responses routes need from the chat feature. */
export type ResponsesRouteDeps = {
  auth: AuthDeps
  bodyLimit: number
  completion: CompletionDeps
  store: ResponseStore
  clock: () => Date
  retentionDays: number
  maxStoredBytes: number
  /** Whether the token may use the model (its allow-list). */
  allows: (principal: Principal, model: string) => boolean
  onLongLivedRequest?: (request: Request) => void
  /** The chat routes' logger of failures after a stream's first byte. */
  streamErrorLogger: (where: { method: string; url: string; requestId?: string }) => (error: unknown) => void
  /** The chat routes' error hook: OpenAI's shape, database trouble as 503. */
  onError: (context: ErrorContext) => Response
}

type ErrorContext = {
  code: unknown
  error: unknown
  request: Request
  set: { headers: Record<string, unknown>; status?: unknown }
}

type Context = { request: Request; set: { headers: Record<string, unknown> }; principal: Principal }

const ERRORS: Record<number, string> = {
  400:
    'The request is invalid (`error.param` names the field), has a field a model served through Chat Completions ' +
    'cannot honour, names a previous response the token does not have (`previous_response_not_found`), or is too ' +
    'large to store (`param: store`).',
  403: 'The token lacks the chat scope.',
  404: 'No such model (`model_not_found`), or no such response of this owner.',
  413: 'The body is larger than BODY_LIMIT, or the upstream refused it as too large.',
  429: "A limit of the token, or the peer's failed-authentication limit, was reached, or every provider answered 429.",
  500: 'An unexpected fault; the server log has the details under the X-Request-Id of the response.',
  502: 'The upstream failed or answered something that is not an answer.',
  503: 'Every provider is unavailable, the database is unavailable, or this replica is shutting down.',
  504: 'The upstream did not answer in time.',
}

const openAIErrors = (statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [status, { description: ERRORS[status], content: jsonContent(OpenAIErrorSchema) }]),
  )

const VALID_ID = new RegExp(ID_PATTERN)

/** The 404 for a response id the owner does not have, malformed ones included (OpenAI's words). */
function responseNotFound(id: string): OpenAIError {
  const shown = id.length > 64 ? `${id.slice(0, 61)}...` : id
  return new OpenAIError({ status: 404, message: `Response with id '${shown}' not found.`, param: null })
}

const checkedId = (id: string) => {
  if (id.length > 256 || !VALID_ID.test(id)) throw responseNotFound(id)
  return id
}

/**
 * OpenAI's Responses API over the same model registry: `POST /v1/responses` (streamed or not), and
 * the stored responses of the token's owner: `GET /v1/responses/{id}`, `GET
 * /v1/responses/{id}/input_items`, `DELETE /v1/responses/{id}`; each also without `/v1`. Bearer
 * tokens with the `chat` scope; errors in OpenAI's shape.
 */
export function responsesPlugin(deps: ResponsesRouteDeps) {
  const served = {
    ...deps.completion,
    store: deps.store,
    clock: deps.clock,
    retentionDays: deps.retentionDays,
    maxStoredBytes: deps.maxStoredBytes,
  }

  const create = async ({ request, set, principal }: Context) => {
    requireJsonContentType(request)
    const parsed = parseResponsesRequest(await readBodyText(request, deps.bodyLimit))
    // A model outside the token's allow-list is answered exactly like one that does not exist.
    if (!deps.completion.registry.has(parsed.model) || !deps.allows(principal, parsed.model))
      throw modelNotFound(parsed.model)
    deps.onLongLivedRequest?.(request)
    const requestId = set.headers['x-request-id'] as string | undefined
    const onStreamError = deps.streamErrorLogger({ method: request.method, url: request.url, requestId })
    const setHeaders = (headers: Record<string, string>) => Object.assign(set.headers, headers)
    return serveResponses({ ...served, onStreamError }, { request, principal, requestId, setHeaders }, parsed)
  }

  const retrieve = async ({
    params,
    query,
    principal,
  }: Context & { params: { id: string }; query: { stream?: string } }) => {
    const id = checkedId(params.id)
    if (query.stream !== undefined && query.stream !== 'false')
      throw new OpenAIError({
        status: 400,
        message: "Invalid 'stream': a stored response cannot be replayed as events by this server; retrieve it whole.",
        param: 'stream',
      })
    const response = await deps.store.response(principal.owner, id, deps.clock())
    if (!response) throw responseNotFound(id)
    return response
  }

  const inputItems = async ({
    params,
    query,
    principal,
  }: Context & { params: { id: string }; query: { limit?: string; order?: string; after?: string } }) => {
    const id = checkedId(params.id)
    const page = pageOf(query)
    const found = await deps.store.inputItems(principal.owner, id, page, deps.clock())
    if (found === undefined) throw responseNotFound(id)
    if (found === 'unknown after')
      throw new OpenAIError({
        status: 400,
        message: `Invalid 'after': response '${id}' has no input item '${page.after}'.`,
        param: 'after',
      })
    const data = found.data
    return {
      object: 'list',
      data,
      first_id: data[0]?.id ?? null,
      last_id: data[data.length - 1]?.id ?? null,
      has_more: found.hasMore,
    }
  }

  const remove = async ({ params, principal }: Context & { params: { id: string } }) => {
    const id = checkedId(params.id)
    if (!(await deps.store.delete(principal.owner, id, deps.clock()))) throw responseNotFound(id)
    return { id, object: 'response', deleted: true }
  }

  const doc = (summary: string, description: string, detail: Partial<DocumentDecoration>) =>
    ({ summary, description, tags: ['chat'], security: BEARER_SECURITY, ...detail }) as DocumentDecoration

  const createHook = {
    auth: 'chat' as const,
    parse: 'none' as const,
    detail: doc(
      'Create a response (OpenAI Responses API)',
      "OpenAI's Responses API over any Trellis model. A model whose provider speaks the Responses API gets the " +
        'request as it came; any other gets it as a chat completion (fields it cannot honour are a 400 naming ' +
        'them; fields that cannot change the answer are accepted and named in `x-trellis-ignored`). With ' +
        '`stream: true` the answer is the Responses event stream. Kept for `previous_response_id` and the routes ' +
        'below unless `store` is false.',
      {
        requestBody: { required: true, content: jsonContent(ResponsesRequest) },
        responses: {
          200: {
            description:
              'The response, or with `stream: true` its events; an error after the first byte is an `error` event.',
            headers: {
              'x-trellis-ignored': {
                description: 'Fields accepted and not used by the model that answered (`tools[3]` for list members).',
                schema: { type: 'string' },
              },
            },
            content: {
              ...jsonContent(ResponseObject),
              'text/event-stream': {
                schema: {
                  type: 'string',
                  description:
                    '`event: <type>` and `data: <json>` lines with `sequence_number` from 0: response.created, ' +
                    'response.in_progress, response.output_item.added/done, content parts, deltas, then ' +
                    'response.completed or response.incomplete',
                },
              },
            },
          },
          ...openAIErrors([400, 401, 403, 404, 413, 415, 429, 500, 502, 503, 504]),
        },
      },
    ),
  }
  const stored = (summary: string, description: string, schema: Parameters<typeof jsonContent>[0], found: string) => ({
    auth: 'chat' as const,
    detail: doc(summary, description, {
      responses: {
        200: { description: found, content: jsonContent(schema) },
        ...openAIErrors([400, 401, 403, 404, 429, 500, 503]),
      },
    }),
  })
  const retrieveHook = {
    ...stored(
      'Retrieve a stored response',
      "One of the token owner's stored responses.",
      ResponseObject,
      'The response, as it was answered.',
    ),
    query: ResponseQuery,
  }
  const itemsHook = {
    ...stored(
      "List a stored response's input items",
      'The input items of one of the owner’s stored responses, each with its id, newest first unless `order=asc`.',
      InputItemList,
      'A page of the input items.',
    ),
    query: InputItemsQuery,
  }
  const deleteHook = stored(
    'Delete a stored response',
    "Deletes one of the owner's stored responses.",
    DeletedResponse,
    'The response and its items are deleted.',
  )

  const app = new Elysia({ name: 'chat-responses' }).use(authPlugin(deps.auth)).onError(deps.onError)
  for (const prefix of ['/v1', '']) {
    const v1 = prefix === '/v1' ? ' (under /v1, for OpenAI SDKs)' : ''
    const under = <H extends { detail: DocumentDecoration }>(hook: H): H => ({
      ...hook,
      detail: { ...hook.detail, summary: `${hook.detail.summary}${v1}` },
    })
    app
      .post(`${prefix}/responses`, create, under(createHook))
      .get(`${prefix}/responses/:id`, retrieve, under(retrieveHook))
      .get(`${prefix}/responses/:id/input_items`, inputItems, under(itemsHook))
      .delete(`${prefix}/responses/:id`, remove, under(deleteHook))
  }
  return app
}

/** The page an input item list asks for: `limit` 1..100 (default 20), `order` (default `desc`), `after`. */
function pageOf(query: { limit?: string; order?: string; after?: string }) {
  const invalid = (param: string, rule: string) =>
    new OpenAIError({ status: 400, message: `Invalid '${param}': ${rule}.`, param, code: 'invalid_value' })
  let limit = 20
  if (query.limit !== undefined) {
    if (!/^\d{1,3}$/.test(query.limit) || Number(query.limit) < 1 || Number(query.limit) > 100)
      throw invalid('limit', 'expected an integer from 1 to 100')
    limit = Number(query.limit)
  }
  const order = query.order ?? 'desc'
  if (order !== 'asc' && order !== 'desc') throw invalid('order', "expected 'asc' or 'desc'")
  const after = query.after
  if (after !== undefined && (after.length > 256 || !VALID_ID.test(after)))
    throw invalid('after', 'expected an item id (letters, numbers, underscores or dashes)')
  return { limit, order: order as 'asc' | 'desc', after }
}
