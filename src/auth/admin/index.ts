import { Elysia, t } from 'elysia'
import { type AuthDeps, authenticatedBody, authPlugin, BEARER_SECURITY } from '..'
import { modelsProblem, repeated, type Scope } from '../model'
import type { TokenRecord as StoredToken, TokenService } from '../service'
import { requireJsonContentType, readBodyText } from '../../http/body'
import { ErrorBody, errorStatuses, jsonErrors } from '../../http/json-errors'
import { HttpError } from '../../http/errors'
import { bodiless } from '../../http/media-type'
import { parseJsonLossless } from '../../json/lossless'
import type { Logger } from '../../telemetry/logger'
import { bodyValidator } from '../../http/validation'
import { CreatedToken, NewToken, TokenChange, TokenIdParams, TokenList, TokenRecord } from './model'

export type AdminDeps = {
  auth: AuthDeps
  tokens: TokenService
  logger: Logger
  config: { bodyLimit: number; chat: { models: Record<string, unknown> } }
}

const errors = (...statuses: number[]) => errorStatuses(ErrorBody, ...statuses)
const ADMIN_ONLY = { description: 'The token is not an admin token.' }
const validNewToken = bodyValidator(NewToken)
const validChange = bodyValidator(TokenChange)

/**
 * Token administration over HTTP, scope `admin`: it works while the server holds the embedded
 * database, which the CLI then cannot open. Errors are in the plant store's `{error, message}`.
 */
export const adminPlugin = (deps: AdminDeps) => {
  const json = (validate: (value: unknown) => unknown) =>
    authenticatedBody(deps.auth, 'admin', async (request) => {
      requireJsonContentType(request)
      return validate(parseJsonLossless(await readBodyText(request, deps.config.bodyLimit)))
    })

  return new Elysia({ name: 'admin' })
    .use(authPlugin(deps.auth))
    .onError(jsonErrors(deps.logger))
    .post(
      '/admin/tokens',
      async ({ body, set }) => {
        const input = body as typeof NewToken.static
        if (input.expires_at !== undefined && Date.parse(input.expires_at) <= Date.now())
          throw new HttpError(
            400,
            `expires_at ${input.expires_at} is in the past; a new token must expire later than now`,
          )
        refuseMistakes(input, deps.config.chat.models)
        const twice = repeated(input.scopes)
        if (twice !== undefined) throw new HttpError(400, `scopes lists "${twice}" twice`)
        const created = await deps.tokens.create({
          owner: input.owner,
          scopes: input.scopes as Scope[],
          limits: input.limits,
          models: input.models,
          expiresAt: input.expires_at === undefined ? undefined : new Date(input.expires_at),
          costHeader: input.cost_header,
        })
        set.status = 201
        return { ...recordOf(created), token: created.token }
      },
      {
        ...json(validNewToken),
        body: NewToken,
        response: { 201: CreatedToken, ...errors(400, 401, 403, 413, 415, 429, 500, 503) },
        detail: {
          summary: 'Create a token',
          description: 'Needs the admin scope. The secret `token` is in this answer only; the server keeps its hash.',
          security: BEARER_SECURITY,
          tags: ['admin'],
          responses: { 201: { description: 'The token, with its secret (shown this once).' }, 403: ADMIN_ONLY },
        },
      },
    )
    .get('/admin/tokens', async () => ({ data: (await deps.tokens.list()).map(recordOf) }), {
      auth: 'admin',
      response: { 200: TokenList, ...errors(400, 401, 403, 429, 500, 503) },
      detail: {
        summary: 'List tokens',
        description: 'Needs the admin scope. Every token, revoked ones included; never a secret.',
        security: BEARER_SECURITY,
        tags: ['admin'],
        responses: { 200: { description: 'Every token.' }, 403: ADMIN_ONLY },
      },
    })
    .get(
      '/admin/tokens/:id',
      async ({ params }) => recordOf(found(params.id, await deps.tokens.get(params.id), 'no token')),
      {
        auth: 'admin',
        params: TokenIdParams,
        response: { 200: TokenRecord, ...errors(400, 401, 403, 404, 429, 500, 503) },
        detail: {
          summary: 'One token',
          description: 'Needs the admin scope. Never the secret.',
          security: BEARER_SECURITY,
          tags: ['admin'],
          responses: {
            200: { description: 'The token.' },
            403: ADMIN_ONLY,
            404: { description: 'No token with this id.' },
          },
        },
      },
    )
    .patch(
      '/admin/tokens/:id',
      async ({ params, body }) => {
        const change = body as typeof TokenChange.static
        refuseMistakes(change, deps.config.chat.models)
        const updated = await deps.tokens.update(params.id, {
          limits: change.limits,
          models: change.models,
          expiresAt:
            change.expires_at === undefined
              ? undefined
              : change.expires_at === null
                ? null
                : new Date(change.expires_at),
          costHeader: change.cost_header,
        })
        return recordOf(found(params.id, updated))
      },
      {
        ...json(validChange),
        params: TokenIdParams,
        body: TokenChange,
        response: { 200: TokenRecord, ...errors(400, 401, 403, 404, 413, 415, 429, 500, 503) },
        detail: {
          summary: "Change a token's limits, models, expiry or cost header",
          description:
            "Needs the admin scope. Each field present replaces the token's (null clears it); `limits` merges " +
            'field by field, and null removes one limit. Other replicas see the change within 5 s.',
          security: BEARER_SECURITY,
          tags: ['admin'],
          responses: {
            200: { description: 'The token as changed.' },
            403: ADMIN_ONLY,
            404: { description: 'No live token with this id.' },
          },
        },
      },
    )
    .delete(
      '/admin/tokens/:id',
      async ({ params, set }) => {
        if (!(await deps.tokens.revoke(params.id))) throw new HttpError(404, `no live token with id ${params.id}`)
        return bodiless(204, set)
      },
      {
        auth: 'admin',
        params: TokenIdParams,
        response: { 204: t.Void(), ...errors(400, 401, 403, 404, 429, 500, 503) },
        detail: {
          summary: 'Revoke a token',
          description: 'Needs the admin scope. Other replicas stop accepting it within 5 s.',
          security: BEARER_SECURITY,
          tags: ['admin'],
          responses: {
            204: { description: 'The token is revoked.' },
            403: ADMIN_ONLY,
            404: { description: 'No live token with this id.' },
          },
        },
      },
    )
}

function found<T>(id: string, token: T | undefined, what = 'no live token'): T {
  if (token === undefined) throw new HttpError(404, `${what} with id ${id}`)
  return token
}

/** A stored token as the API spells it. */
function recordOf(token: StoredToken) {
  return {
    id: token.id,
    owner: token.owner,
    scopes: token.scopes,
    limits: token.limits,
    models: token.models,
    expires_at: token.expiresAt?.toISOString() ?? null,
    cost_header: token.costHeader,
    created_at: token.createdAt.toISOString(),
    revoked_at: token.revokedAt?.toISOString() ?? null,
  }
}

/** A model allow-list a token could never use, refused when it is made or changed (see {@link modelsProblem}). */
function refuseMistakes(grants: { models?: string[] | null }, served: Record<string, unknown>): void {
  const problem = grants.models ? modelsProblem(grants.models, served) : undefined
  if (problem) throw new HttpError(400, problem)
}
