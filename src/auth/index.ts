import { Elysia } from 'elysia'
import { extractBearer, insufficientScope, invalidToken } from './header'
import { hasScope, type Principal, type Requirement } from './model'
import type { TokenService } from './service'

export type { Principal, Requirement, Scope } from './model'

const verified = new WeakMap<Request, Principal>()

/**
 * Verifies the request's bearer token against `required`, once per request: later calls
 * reuse the principal. Throws HttpErrors (400/401/403 with RFC 6750 challenges).
 */
export async function authenticate(tokens: TokenService, request: Request, required: Requirement): Promise<Principal> {
  let principal = verified.get(request)
  if (!principal) {
    const secret = extractBearer(request)
    const found = await tokens.verify(secret)
    if (!found) throw invalidToken('the bearer token is unknown, revoked or malformed')
    verified.set(request, (principal = found))
  }
  if (!hasScope(principal, required)) throw insufficientScope(required)
  return principal
}

/**
 * A `parse` hook that authenticates before it reads the body. Elysia runs a route's own
 * parse hook before anything else, so without this an anonymous client would be told
 * about its malformed JSON, and could make us read a whole body, before hearing 401.
 */
export const authenticatedParse =
  (tokens: TokenService, required: Requirement, read: (request: Request) => Promise<unknown>) =>
  async ({ request }: { request: Request }) => {
    await authenticate(tokens, request, required)
    return read(request)
  }

/**
 * Bearer authentication as a macro: `{ auth: 'plants:read' }` on a route demands a valid
 * token with that scope (`'any'`: any valid token) and resolves `principal`. It runs in
 * `transform`, before query, params and body validation, so an anonymous request is
 * answered 401 whatever else is wrong with it. Routes with a body pair it with
 * `authenticatedParse`. Each feature's error hook renders the failures in its contract.
 *
 * @example
 * new Elysia().use(authPlugin(tokens)).get('/me', ({ principal }) => principal.owner, { auth: 'any' })
 */
export const authPlugin = (tokens: TokenService) =>
  new Elysia({ name: 'auth' }).macro({
    auth: (required: Requirement) => ({
      async transform({ request }) {
        await authenticate(tokens, request, required)
      },
      resolve: ({ request }): { principal: Principal } => ({ principal: verified.get(request)! }),
    }),
  })
