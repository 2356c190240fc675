import { HttpError } from '../../http/errors'
import type { AnthropicModel, AnthropicModelList } from './model'

/*
 * `GET /v1/models` and `GET /v1/models/{id}` in Anthropic's shape, for a request that carries
 * `anthropic-version` (every Anthropic SDK sends it; OpenAI's never do). The routes themselves are
 * the chat feature's (../index.ts), which answers OpenAI's shape to everyone else.
 */

/** Whether a request speaks Anthropic's API: it says which version. */
export const speaksAnthropic = (request: Request) => request.headers.has('anthropic-version')

/** Anthropic's page size: 20 unless asked, at most 1000. */
const DEFAULT_LIMIT = 20
const MAX_LIMIT = 1000

/** RFC 3339 to the second, as Anthropic writes its dates (`2025-02-19T00:00:00Z`). */
const rfc3339 = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z')

/** One model as Anthropic's SDK types it; `created` is when this process began listing models. */
export function anthropicModel(id: string, created: Date): AnthropicModel {
  return {
    type: 'model',
    id,
    display_name: id,
    created_at: rfc3339(created),
    capabilities: null,
    deprecated_at: null,
    lifecycle: 'active',
    line: null,
    max_input_tokens: null,
    max_tokens: null,
    retires_at: null,
  }
}

/**
 * A page of `names` (the models the token may use, in the registry's order) by Anthropic's
 * pagination: `limit` (1..1000, default 20), and `after_id` or `before_id`, the id the page starts
 * after or ends before (both at once, or an id not in the list, is a 400). `lifecycle` filters:
 * every model Trellis serves is `active`.
 */
export function anthropicModelPage(names: string[], created: Date, query: URLSearchParams): AnthropicModelList {
  const limit = limitOf(query.get('limit'))
  const after = query.get('after_id')
  const before = query.get('before_id')
  if (after !== null && before !== null) throw invalid('before_id', 'give after_id or before_id, not both')
  const lifecycle = [...query.getAll('lifecycle'), ...query.getAll('lifecycle[]')]
  const listed = lifecycle.length === 0 || lifecycle.includes('active') ? names : []
  let start = 0
  let end = listed.length
  if (after !== null) start = indexOf(listed, after, 'after_id') + 1
  if (before !== null) end = indexOf(listed, before, 'before_id')
  // Paging back, the page is the last `limit` before the cursor; forward, the first `limit` after it.
  const [from, to] = before !== null ? [Math.max(start, end - limit), end] : [start, Math.min(end, start + limit)]
  const data = listed.slice(from, to).map((id) => anthropicModel(id, created))
  return {
    data,
    has_more: before !== null ? from > 0 : to < listed.length,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
  }
}

function limitOf(text: string | null): number {
  if (text === null) return DEFAULT_LIMIT
  const limit = Number(text)
  if (!/^\d+$/.test(text) || limit < 1 || limit > MAX_LIMIT)
    throw invalid('limit', `Input should be an integer from 1 to ${MAX_LIMIT}`)
  return limit
}

function indexOf(names: string[], id: string, field: string): number {
  const at = names.indexOf(id)
  if (at < 0) throw invalid(field, `no model '${id.slice(0, 256)}' in this list`)
  return at
}

const invalid = (field: string, sentence: string) =>
  new HttpError(400, `${field}: ${sentence}`, { type: 'invalid_request_error', param: field })
