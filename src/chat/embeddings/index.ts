import { Elysia, type DocumentDecoration } from 'elysia'
import { type AuthDeps, authPlugin, BEARER_SECURITY, type Principal } from '../../auth'
import { readBodyText, requireJsonContentType } from '../../http/body'
import { jsonContent } from '../../http/openapi-document'
import type { CompletionDeps } from '../completion'
import { modelNotFound } from '../registry'
import { openAIErrors, underV1 } from '../route-docs'
import { CreateEmbeddingRequest, CreateEmbeddingResponse } from './model'
import { parseEmbeddingsRequest } from './request'
import { serveEmbeddings, servesEmbeddings, servesNoEmbeddings } from './service'

/** What the embeddings routes need from the chat feature: how requests are admitted, served and recorded. */
export type EmbeddingsDeps = {
  auth: AuthDeps
  bodyLimit: number
  completion: CompletionDeps
  /** Whether the token may use the model (its allow-list). */
  allows: (principal: Principal, model: string) => boolean
  onLongLivedRequest?: (request: Request) => void
}

type HandlerContext = { request: Request; set: { headers: Record<string, unknown> }; principal: Principal }

const ERRORS: Record<number, string> = {
  400:
    'The request is invalid (`error.param` names the field, as `input[3]`), the model serves no embeddings ' +
    "(`code: model_not_supported`), or the Authorization header is malformed. An upstream's own 400 is passed on.",
  401: 'The token is missing, unknown, expired or revoked.',
  403: 'The token lacks the chat scope.',
  404: 'No such model, or the token may not use it (`code: model_not_found`).',
  413: 'The body is larger than BODY_LIMIT, or the upstream refused it as too large.',
  415: 'The body is not declared as application/json.',
  429:
    "A limit of the token (its tpm reserves the inputs' estimate), or the peer's failed-authentication limit, was " +
    'reached (Retry-After says when to try again); or every provider of the model answered 429.',
  500: 'An unexpected fault; the server log has the details under the X-Request-Id of the response.',
  502: 'The upstream failed, or answered with something that is not a JSON object or is larger than CHAT_MAX_RESPONSE_BYTES.',
  503: 'Every provider of the model is unavailable, the database is unavailable, or this replica is shutting down; Retry-After says when to try again.',
  504: 'The upstream did not answer in time.',
}

/**
 * OpenAI's `POST /embeddings`, also under `/v1`, over the chat model registry: echo's deterministic
 * vectors, or an `openai` provider's upstream. Bearer tokens with the `chat` scope; the token's
 * model allow-list, limits, the ledger and the metrics are those of chat completions. Mounted by
 * the chat plugin after its error hook, which answers these routes' errors in OpenAI's shape.
 */
export function embeddingsPlugin(deps: EmbeddingsDeps) {
  const create = async ({ request, set, principal }: HandlerContext) => {
    requireJsonContentType(request)
    const parsed = parseEmbeddingsRequest(await readBodyText(request, deps.bodyLimit))
    // What this request is served from to its end, copied once: a configuration reload reaches only later requests.
    const completion = { ...deps.completion }
    const registry = completion.registry
    const model = parsed.request.model
    // A model outside the token's allow-list is answered exactly like one that does not exist.
    if (!registry.has(model) || !deps.allows(principal, model)) throw modelNotFound(model)
    if (!registry.has(model, servesEmbeddings)) throw servesNoEmbeddings(model)
    deps.onLongLivedRequest?.(request)
    const requestId = set.headers['x-request-id'] as string | undefined
    const setHeaders = (headers: Record<string, string>) => Object.assign(set.headers, headers)
    return serveEmbeddings(completion, { request, principal, requestId, setHeaders }, parsed)
  }

  const hook = {
    auth: 'chat' as const,
    parse: 'none' as const,
    detail: {
      summary: 'Create embeddings',
      description:
        'OpenAI Embeddings. echo answers with deterministic unit vectors made from each input ' +
        '(the same input, the same vector; 1536 dimensions by default, up to 3072); ' +
        'a model served by an `openai` provider gets the request with only `model` rewritten and `input` as a list, ' +
        'and its answer comes back as it was sent. ' +
        'At most 2048 inputs, no empty text, and 300,000 tokens in all (a text counted at one per three bytes of UTF-8).',
      tags: ['chat'],
      security: BEARER_SECURITY,
      requestBody: { required: true, content: jsonContent(CreateEmbeddingRequest) },
      responses: {
        200: {
          description: 'The vectors, in input order, and the usage.',
          content: jsonContent(CreateEmbeddingResponse),
        },
        ...openAIErrors([400, 401, 403, 404, 413, 415, 429, 500, 502, 503, 504], ERRORS),
      },
    } as DocumentDecoration,
  }

  return new Elysia({ name: 'chat-embeddings' })
    .use(authPlugin(deps.auth))
    .post('/embeddings', create, hook)
    .post('/v1/embeddings', create, underV1(hook))
}
