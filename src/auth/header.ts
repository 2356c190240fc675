import { HttpError } from '../http/errors'

const REALM = 'trellis'

/** RFC 7235 token68: the only shape a bearer credential may take. */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/

/**
 * Extracts the bearer credential following RFC 6750 §2.1 and §3.1:
 * no header → 401 with a bare challenge; anything other than exactly one
 * `Bearer <token68>` → 400 invalid_request. The scheme is case-insensitive.
 * Tokens in the query string (§2.3) are refused, not silently ignored.
 */
export function extractBearer(request: Request): string {
  // Parsing the URL only when the name appears keeps the common path free of it.
  if (request.url.includes('access_token') && new URL(request.url).searchParams.has('access_token'))
    throw invalidRequest('access tokens are not accepted in the query string; send Authorization: Bearer <token>')
  const header = request.headers.get('authorization')
  if (header === null)
    throw new HttpError(401, 'missing Authorization header; send Authorization: Bearer <token>', {
      headers: { 'www-authenticate': `Bearer realm="${REALM}"` },
      code: 'missing_token',
    })
  const match = /^([A-Za-z]+) +(\S+)$/.exec(header.trim())
  if (!match) {
    if (header.includes(','))
      throw invalidRequest(
        'Authorization header must hold exactly one credential; it was sent more than once or holds a list',
      )
    throw invalidRequest('Authorization header must be "Bearer <token>"')
  }
  if (match[1].toLowerCase() !== 'bearer')
    throw invalidRequest(`Authorization scheme must be Bearer, got "${match[1]}"`)
  if (!TOKEN68.test(match[2])) throw invalidRequest('bearer token contains characters a token cannot have')
  return match[2]
}

/**
 * The credential of a route that also speaks Anthropic's API: its `x-api-key` header, or else a
 * bearer token as {@link extractBearer} reads it. Both at once is a 400 (which one would count?),
 * and a key that cannot be a token is a 401, as Anthropic answers a bad key. Neither is a 401 whose
 * message names both.
 */
export function extractApiKeyOrBearer(request: Request): string {
  const key = request.headers.get('x-api-key')
  if (key === null) {
    if (request.headers.has('authorization')) return extractBearer(request)
    throw new HttpError(401, 'missing credentials; send x-api-key: <token> or Authorization: Bearer <token>', {
      headers: { 'www-authenticate': `Bearer realm="${REALM}"` },
      code: 'missing_token',
    })
  }
  if (request.headers.has('authorization'))
    throw invalidRequest('send one credential, x-api-key or Authorization, not both')
  const trimmed = key.trim()
  if (!TOKEN68.test(trimmed)) throw invalidToken('the x-api-key is not a token')
  return trimmed
}

/**
 * The credential of a route both SDK families call (`GET /v1/models`): as on Anthropic's routes
 * ({@link extractApiKeyOrBearer}) for a request that carries `anthropic-version`, which every
 * Anthropic SDK sends and no OpenAI one does; else a bearer token alone.
 */
export function extractCredentialBySdk(request: Request): string {
  return request.headers.has('anthropic-version') ? extractApiKeyOrBearer(request) : extractBearer(request)
}

function invalidRequest(message: string) {
  return new HttpError(400, message, {
    headers: {
      'www-authenticate': `Bearer realm="${REALM}", error="invalid_request", error_description="${message.replace(/"/g, "'")}"`,
    },
    code: 'invalid_request',
  })
}

export function invalidToken(message: string) {
  return new HttpError(401, message, {
    headers: { 'www-authenticate': `Bearer realm="${REALM}", error="invalid_token", error_description="${message}"` },
    code: 'invalid_token',
  })
}

export function insufficientScope(scope: string) {
  const message = `this token lacks the "${scope}" scope`
  return new HttpError(403, message, {
    headers: { 'www-authenticate': `Bearer realm="${REALM}", error="insufficient_scope", scope="${scope}"` },
    code: 'insufficient_scope',
  })
}
