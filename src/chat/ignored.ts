/**
 * The `x-trellis-ignored` response header: every field of a request that was accepted but has no
 * effect on the model that served it (a hint such as `prompt_cache_key`, a hosted tool a translated
 * model cannot run), so that a client can see what it asked for and did not get. Names are
 * top-level fields as the client wrote them, or paths for list members (`tools[3]`), joined by a
 * comma and a space. Both `/v1/messages` and `/v1/responses` send it.
 */
export function ignoredHeader(names: string[]): Record<string, string> {
  return names.length === 0 ? {} : { 'x-trellis-ignored': names.join(', ') }
}
