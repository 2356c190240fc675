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
