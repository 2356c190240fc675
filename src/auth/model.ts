import { t, type Static } from 'elysia'

export const SCOPES = ['plants:read', 'plants:write', 'chat', 'docs:write', 'admin'] as const
export const ScopeSchema = t.Union(SCOPES.map((scope) => t.Literal(scope)))
export type Scope = (typeof SCOPES)[number]

/** Who is calling, as established by a verified bearer token. */
export const PrincipalSchema = t.Object({
  tokenId: t.String(),
  owner: t.String(),
  scopes: t.Array(ScopeSchema),
  isAdmin: t.Boolean(),
})
export type Principal = Static<typeof PrincipalSchema>

/** What a route demands: a scope, or `any` for any valid token. */
export type Requirement = Scope | 'any'

/** `admin` implies every other scope. */
export const hasScope = (principal: Principal, required: Requirement) =>
  required === 'any' || principal.isAdmin || principal.scopes.includes(required)

export function parseScopes(list: string): Scope[] {
  const scopes = list.split(',').map((s) => s.trim()).filter(Boolean)
  for (const scope of scopes)
    if (!SCOPES.includes(scope as Scope)) throw new Error(`unknown scope "${scope}"; known scopes: ${SCOPES.join(', ')}`)
  if (scopes.length === 0) throw new Error(`at least one scope is needed; known scopes: ${SCOPES.join(', ')}`)
  return [...new Set(scopes)] as Scope[]
}
