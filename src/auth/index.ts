import { Elysia } from 'elysia'
import type { FailedAuthThrottle } from './failed-auth'
import { clientAddress } from './failed-auth'
import type { Governance } from '../governance/service'
import { extractApiKeyOrBearer, extractBearer, extractCredentialBySdk, insufficientScope, invalidToken } from './header'
import { hasScope, type Principal, type Requirement } from './model'
import type { TokenService } from './service'

export type { Principal, Requirement } from './model'

const verified = new WeakMap<Request, Principal>()

/** What authentication needs: the tokens, the per-token limits, and the failed-attempt throttle. */
export type AuthDeps = {
  tokens: TokenService
  governance?: Governance
  throttle?: FailedAuthThrottle
  /** The peer address of a request, as the runtime knows it. */
  peerAddress?: (request: Request) => string | undefined
  trustProxy?: boolean
}

/**
 * Authenticates a request once: the bearer token (RFC 6750 errors; `credential` reads it, and may
 * also take Anthropic's `x-api-key`), then its `rpm`, then the scope `required`. Later calls for the
 * same request reuse the principal and check only the scope. A client address that keeps failing
 * is throttled before its tokens are looked up.
 */
export async function authenticate(
  auth: AuthDeps,
  request: Request,
  required: Requirement,
  credential: (request: Request) => string = extractBearer,
): Promise<Principal> {
  let principal = verified.get(request)
  if (!principal) {
    const secret = credential(request)
    const known = auth.tokens.cached(secret)
    const address =
      known || !auth.throttle
        ? undefined
        : clientAddress(request, auth.peerAddress?.(request), auth.trustProxy ?? false)
    if (address !== undefined) auth.throttle!.check(address)
    const found = known ?? (await auth.tokens.verify(secret))
    if (!found) {
      if (address !== undefined) auth.throttle!.failed(address)
      throw invalidToken('the token is unknown, revoked, expired or malformed')
    }
    verified.set(request, (principal = found))
    await auth.governance?.admitRequest(principal, request)
  }
  if (!hasScope(principal, required)) throw insufficientScope(required)
  return principal
}

/**
 * A `parse` hook that authenticates before it reads the body. Elysia runs a route's own
 * parse hook before anything else, so without this an anonymous client would be told
 * about its malformed JSON, and could make us read a whole body, before hearing 401.
 */
const authenticatedParse =
  (auth: AuthDeps, required: Requirement, read: (request: Request) => Promise<unknown>) =>
  async ({ request }: { request: Request }) => {
    await authenticate(auth, request, required)
    return read(request)
  }

/** The OpenAPI `security` of every route that takes a bearer token (public routes have `[]`). */
export const BEARER_SECURITY = [{ bearerAuth: [] as string[] }]

/** The OpenAPI `security` of a route that takes the token as a bearer or as Anthropic's `x-api-key`. */
export const API_KEY_SECURITY: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKeyAuth: [] }]

/**
 * A body route's authentication, stating its scope once: the `auth` macro's requirement and a
 * parse hook that checks the same scope before `read` touches the body.
 *
 * @example
 * app.post('/plants', handler, { ...authenticatedBody(auth, 'plants:write', readJson), body: NewPlant })
 */
export function authenticatedBody<R extends Requirement>(
  auth: AuthDeps,
  required: R,
  read: (request: Request) => Promise<unknown>,
) {
  return { auth: required, parse: authenticatedParse(auth, required, read) }
}

/**
 * Bearer authentication as a macro: `{ auth: 'plants:read' }` on a route demands a valid
 * token with that scope (`'any'`: any valid token) and resolves `principal`. It runs in
 * `transform`, before query, params and body validation, so an anonymous request is
 * answered 401 whatever else is wrong with it. Routes with a body pair it with
 * `authenticatedParse`. Each feature's error hook renders the failures in its contract.
 * `{ apiKeyAuth: 'chat' }` is the same, also taking the token from Anthropic's `x-api-key`;
 * `{ sdkAuth: 'chat' }` takes `x-api-key` only from a request that carries `anthropic-version`.
 *
 * @example
 * new Elysia().use(authPlugin(auth)).get('/me', ({ principal }) => principal.owner, { auth: 'any' })
 */
export const authPlugin = (auth: AuthDeps) =>
  new Elysia({ name: 'auth' }).macro({
    auth: (required: Requirement) => ({
      async transform({ request }) {
        await authenticate(auth, request, required)
      },
      resolve: ({ request }): { principal: Principal } => ({ principal: verified.get(request)! }),
    }),
    apiKeyAuth: (required: Requirement) => ({
      async transform({ request }) {
        await authenticate(auth, request, required, extractApiKeyOrBearer)
      },
      resolve: ({ request }): { principal: Principal } => ({ principal: verified.get(request)! }),
    }),
    sdkAuth: (required: Requirement) => ({
      async transform({ request }) {
        await authenticate(auth, request, required, extractCredentialBySdk)
      },
      resolve: ({ request }): { principal: Principal } => ({ principal: verified.get(request)! }),
    }),
  })
