import { Elysia } from 'elysia'
import { extractBearer, insufficientScope, invalidToken } from './header'
import { hasScope, type Principal, type Requirement } from './model'
import type { TokenService } from './service'

export type { Principal, Requirement, Scope } from './model'

/**
 * Bearer authentication as a macro: `{ auth: 'plants:read' }` on a route demands a valid
 * token with that scope (`'any'`: any valid token) and resolves `principal`.
 * Failures are thrown as HttpErrors (400/401/403 with RFC 6750 challenges); each
 * feature's error hook renders them in its own contract.
 *
 * @example
 * new Elysia().use(authPlugin(tokens)).get('/me', ({ principal }) => principal.owner, { auth: 'any' })
 */
export const authPlugin = (tokens: TokenService) =>
  new Elysia({ name: 'auth' }).macro({
    auth: (required: Requirement) => ({
      async resolve({ request }): Promise<{ principal: Principal }> {
        const secret = extractBearer(request, new URL(request.url))
        const principal = await tokens.verify(secret)
        if (!principal) throw invalidToken('the bearer token is unknown, revoked or malformed')
        if (!hasScope(principal, required)) throw insufficientScope(required)
        return { principal }
      },
    }),
  })
