import { JSON_MEDIA_TYPE } from '../../http/media-type'
import { type CompletionContext, type CompletionDeps, CompletionRun, type Reservable } from '../completion'
import { isObject, ProviderError } from '../providers/provider'
import type { RouteEntry } from '../registry'
import type { ParsedEmbeddings } from './request'

/**
 * An embeddings request for admission: its inputs' estimate (made once, when it was parsed) and no answer tokens.
 * `usage` then settles it with what the provider counted.
 */
const EMBEDDINGS_REQUEST: Reservable<ParsedEmbeddings> = {
  promptEstimate: (parsed) => parsed.estimate,
  answerTokens: () => 0,
}

/** The registry entries that can embed: echo and `openai` providers; an `anthropic` one cannot. */
export const servesEmbeddings = (entry: RouteEntry) => entry.provider.embeddings !== undefined

/**
 * The 400 for a model none of whose entries can embed. A 400 rather than a 404: the model exists
 * (it answers chat completions, and `GET /models` lists it), and a client that retries elsewhere
 * should learn that the model is the wrong kind, not that it is missing.
 */
export function servesNoEmbeddings(model: string): ProviderError {
  return new ProviderError(
    400,
    `The model \`${model}\` does not serve embeddings: none of its providers has an embeddings endpoint ` +
      '(echo and `openai` providers have one).',
    { type: 'invalid_request_error', param: 'model', code: 'model_not_supported' },
  )
}

/**
 * `POST /embeddings` from admission to settlement, as a chat completion (see `CompletionRun`): the
 * token's limits reserve the inputs' estimate, the registry tries the model's entries that can
 * embed (retrying, then falling back, as for any whole answer), and the usage the answer reports
 * is charged and recorded (one ledger row, no completion tokens). The answer is the provider's.
 */
export async function serveEmbeddings(
  deps: CompletionDeps,
  context: CompletionContext,
  parsed: ParsedEmbeddings,
): Promise<Response> {
  const { request } = parsed
  const run = await CompletionRun.admit(deps, context, EMBEDDINGS_REQUEST, parsed, request.model, false)
  const signal = run.abort.signal
  try {
    const answer = await deps.registry.completeWith(
      request.model,
      signal,
      (entry) => entry.provider.embeddings!.create({ ...request, model: entry.model }, signal),
      run.report,
      servesEmbeddings,
    )
    if (isObject(answer.usage)) run.report.usage = answer.usage
    run.finish(200, undefined)
    return Response.json(answer, { headers: { 'content-type': JSON_MEDIA_TYPE } })
  } catch (error) {
    run.failed(error)
    throw error
  }
}
