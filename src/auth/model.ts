import { t } from 'elysia'
import type { TokenLimits } from '../db/schema'

/**
 * `console`: the console's read-only views (every token's settings and usage, never a secret; usage and cost of every
 * owner; the live metrics). Changing tokens needs `admin`.
 */
export const SCOPES = ['plants:read', 'plants:write', 'chat', 'docs:write', 'metrics', 'console', 'admin'] as const
export const ScopeSchema = t.Union(SCOPES.map((scope) => t.Literal(scope)))
export type Scope = (typeof SCOPES)[number]

/** Who is calling, as established by a verified bearer token, and what the token allows. */
export type Principal = {
  tokenId: string
  owner: string
  scopes: Scope[]
  isAdmin: boolean
  /** The token's own limits (absent fields fall back to the defaults; see src/config/limits.ts and src/governance/). */
  limits: TokenLimits
  /** Public model names the token may use; undefined: every model. */
  models?: readonly string[]
  /** Its chat answers carry `x-trellis-cost` (the token's `cost_header`). */
  costHeader?: boolean
}

/** What a route demands: a scope, or `any` for any valid token. */
export type Requirement = Scope | 'any'

/** `admin` implies every other scope. */
export const hasScope = (principal: Principal, required: Requirement) =>
  required === 'any' || principal.isAdmin || principal.scopes.includes(required)

export function parseScopes(list: string): Scope[] {
  const scopes = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const scope of scopes)
    if (!SCOPES.includes(scope as Scope))
      throw new Error(`unknown scope "${scope}"; known scopes: ${SCOPES.join(', ')}`)
  if (scopes.length === 0) throw new Error(`at least one scope is needed; known scopes: ${SCOPES.join(', ')}`)
  const twice = repeated(scopes)
  if (twice !== undefined) throw new Error(`scope "${twice}" is listed twice`)
  return scopes as Scope[]
}

/** The first item that appears twice in `items`: a list given twice the same scope or model is a mistake to name. */
export function repeated<T>(items: readonly T[]): T | undefined {
  const seen = new Set<T>()
  for (const item of items) {
    if (seen.has(item)) return item
    seen.add(item)
  }
  return undefined
}

/**
 * What is wrong with a token's model allow-list, in one sentence, or undefined: a model this server does not serve
 * (every request naming it would be a 404), or one listed twice. The admin API answers it as a 400, the CLI prints it.
 */
export function modelsProblem(models: readonly string[], served: Record<string, unknown>): string | undefined {
  const unknown = models.filter((model) => !Object.hasOwn(served, model))
  if (unknown.length > 0)
    return (
      `models names ${unknown.map((model) => `"${model}"`).join(', ')}, which this server does not serve; ` +
      `it serves ${Object.keys(served).join(', ')} (GET /models)`
    )
  const twice = repeated(models)
  return twice === undefined ? undefined : `models lists "${twice}" twice`
}
