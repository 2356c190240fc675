import type { DocumentDecoration } from 'elysia'
import { OpenAIErrorSchema } from '../http/openai-errors'
import { jsonContent } from '../http/openapi-document'

/*
 * How the OpenAI-shaped chat routes (chat completions, models, embeddings) are documented in
 * /openapi.json.
 */

/**
 * The error statuses of a chat route, in OpenAI's shape. Documented here rather than as the
 * route's `response`, which Elysia would check every answer against on the hot path.
 */
export function openAIErrors(statuses: number[], descriptions: Record<number, string> = {}) {
  return Object.fromEntries(
    statuses.map((status) => [status, { description: descriptions[status], content: jsonContent(OpenAIErrorSchema) }]),
  )
}

/** The same operation under `/v1`, where OpenAI SDKs look when given `http://host:port/v1` as their base URL. */
export function underV1<H extends { detail: DocumentDecoration }>(hook: H): H {
  return { ...hook, detail: { ...hook.detail, summary: `${hook.detail.summary} (under /v1, for OpenAI SDKs)` } }
}

/** What each error status of a route that calls a provider means. */
export const UPSTREAM_ERRORS = {
  400: "The request is invalid (`error.param` names the field), or the Authorization header is malformed. An upstream's own 400 is passed on as it is.",
  413: 'The body is larger than BODY_LIMIT, or the upstream refused it as too large.',
  429:
    "A limit of the token, or the peer's failed-authentication limit, was reached (Retry-After says when to try " +
    "again); or every provider of the model answered 429 (with the upstream's Retry-After when it sent one). A " +
    'spent monthly budget (`insufficient_quota`) also says `x-should-retry: false`: it renews with the month.',
  403: 'The token lacks the chat scope.',
  404: 'No such model, or the token may not use it (`code: model_not_found`).',
  500: 'An unexpected fault; the server log has the details under the X-Request-Id of the response.',
  502: 'The upstream failed or answered something that is not a chat completion.',
  503: 'Every provider of the model is unavailable, the database is unavailable, or this replica is shutting down; Retry-After says when to try again.',
  504: 'The upstream did not answer in time.',
}

/** The errors of the model routes, which never call a provider. */
export const MODEL_ERRORS = {
  400: 'The Authorization header is malformed.',
  403: UPSTREAM_ERRORS[403],
  404: UPSTREAM_ERRORS[404],
  500: UPSTREAM_ERRORS[500],
  503: 'The database is unavailable (while checking the token), or this replica is shutting down; Retry-After says when to try again.',
}
