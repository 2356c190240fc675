import { Integer } from '../../http/integer'
import { t } from 'elysia'
import { SCOPES, ScopeSchema } from '../model'
import { BudgetUsd, LimitsSchema } from '../../config/limits'
import { StoredText } from '../../http/int64'

const ModelName = StoredText({
  minLength: 1,
  maxLength: 200,
  description: 'A public model name (see GET /models)',
  error: 'models must be names of 1 to 200 characters',
})
const Models = t.Array(ModelName, {
  maxItems: 1000,
  description: 'The public model names this token may use; absent or null: every model',
})
const ExpiresAt = t.String({
  format: 'date-time',
  description: 'When the token stops working (RFC 3339); absent or null: never',
  error: 'expires_at must be an RFC 3339 date-time, such as 2026-12-31T23:59:59Z',
})

const CostHeader = t.Boolean({
  description: 'Chat answers carry `x-trellis-cost`: what the request cost, in US dollars (see the README, "Cost")',
  error: 'cost_header must be true or false',
})

export const NewToken = t.Object(
  {
    owner: StoredText({
      trimmed: true,
      minLength: 1,
      maxLength: 200,
      description: 'Who the token acts for; plants and usage belong to owners',
      error: 'owner must be 1 to 200 characters',
    }),
    scopes: t.Array(ScopeSchema, {
      minItems: 1,
      maxItems: SCOPES.length,
      description: `${SCOPES.join(', ')} (admin implies all)`,
      error: `scopes must be a non-empty list of ${SCOPES.join(', ')}`,
    }),
    limits: t.Optional(LimitsSchema),
    models: t.Optional(Models),
    expires_at: t.Optional(ExpiresAt),
    cost_header: t.Optional(CostHeader),
  },
  { additionalProperties: false },
)

const Removable = <S extends Parameters<typeof t.Union>[0][number]>(schema: S) =>
  t.Optional(t.Union([schema, t.Null()]))

/** A change: each field present replaces the token's (null clears it); `limits` merges per field, null clearing one. */
export const TokenChange = t.Object(
  {
    limits: Removable(
      t.Object(
        {
          rpm: Removable(Integer({ minimum: 1 })),
          tpm: Removable(Integer({ minimum: 1 })),
          streams: Removable(Integer({ minimum: 1 })),
          budget_tokens: Removable(Integer({ minimum: 1 })),
          budget_usd: Removable(
            BudgetUsd('US dollars per calendar month, UTC (`25`, `0.50`), from the price table; null removes it'),
          ),
        },
        { additionalProperties: false, description: 'Limits to set (a number) or remove (null); the others stay' },
      ),
    ),
    models: Removable(Models),
    expires_at: Removable(ExpiresAt),
    cost_header: t.Optional(CostHeader),
  },
  { additionalProperties: false },
)

export const TokenRecord = t.Object({
  id: t.String({ description: 'The token id (not the secret)' }),
  owner: t.String(),
  scopes: t.Array(t.String()),
  limits: t.Union([LimitsSchema, t.Null()], {
    description: "The token's own limits; TRELLIS_DEFAULT_LIMITS fills the rest",
  }),
  models: t.Union([t.Array(t.String()), t.Null()]),
  expires_at: t.Union([t.String({ format: 'date-time' }), t.Null()]),
  cost_header: t.Boolean({ description: 'Chat answers carry `x-trellis-cost`' }),
  created_at: t.String({ format: 'date-time' }),
  revoked_at: t.Union([t.String({ format: 'date-time' }), t.Null()]),
})

export const CreatedToken = t.Composite([
  TokenRecord,
  t.Object({ token: t.String({ description: 'The secret: shown in this answer only, never again' }) }),
])

export const TokenList = t.Object({ data: t.Array(TokenRecord) })

export const TokenIdParams = t.Object({
  id: t.String({
    pattern: '^tok_[A-Za-z0-9_-]{12}$',
    description: 'A token id from POST or GET /admin/tokens',
    error: 'id must be a token id such as tok_AbCdEfGhIjKl',
  }),
})
