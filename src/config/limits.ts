import { Integer } from '../http/integer'
import { t, type Static } from 'elysia'
import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { TokenLimits } from '../db/schema'

const Count = (description: string) => Integer({ minimum: 1, maximum: 1_000_000_000_000, description })

/** The largest money budget, in US dollars: a billion, whose micro-dollars a float8 counter still holds exactly. */
export const MAX_BUDGET_USD = 1_000_000_000

/**
 * A budget in US dollars (`25`, `0.50`), from one micro-dollar (the unit it is counted in, see src/cost/prices.ts) up.
 * A JSON number only: `Type.Number` rather than `t.Number`, which would also take the string "25".
 */
export const BudgetUsd = (
  description = 'US dollars per calendar month, UTC: the cost of chat requests, from the price table',
) => Type.Number({ minimum: 0.000001, maximum: MAX_BUDGET_USD, description })

/** A budget's limit in the unit its counter holds: integer micro-dollars. */
export const microsOf = (dollars: number): number => Math.round(dollars * 1_000_000)

/**
 * A token's limits, as `POST /admin/tokens` takes them and `TRELLIS_DEFAULT_LIMITS` spells them.
 * Every field is optional; a missing one falls back to the default, and with no default there is
 * no limit of that kind.
 */
export const LimitsSchema = t.Object(
  {
    rpm: t.Optional(Count('requests per minute, on every authenticated route')),
    tpm: t.Optional(Count('chat tokens (prompt + completion) per minute')),
    streams: t.Optional(Count('chat requests in flight at once')),
    budget_tokens: t.Optional(Count('chat tokens per calendar month, UTC')),
    budget_usd: t.Optional(BudgetUsd()),
  },
  { additionalProperties: false },
)
export type Limits = Static<typeof LimitsSchema>

/** `TRELLIS_DEFAULT_LIMITS`: JSON of the same shape; unset or empty is no default at all. */
export function parseDefaultLimits(raw: string | undefined): Limits {
  if (raw === undefined || raw.trim() === '') return {}
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    throw new Error(`TRELLIS_DEFAULT_LIMITS: not valid JSON: ${raw.slice(0, 80)}`)
  }
  if (!Value.Check(LimitsSchema, value)) {
    const first = Value.Errors(LimitsSchema, value).First()
    throw new Error(
      `TRELLIS_DEFAULT_LIMITS: ${first?.path || '(root)'}: ${first?.message}; ` +
        'expected {rpm?, tpm?, streams?, budget_tokens?} of positive integers and budget_usd? in US dollars',
    )
  }
  return value
}

/** The limits that apply to a token: its own, field by field, else the defaults. */
export function effectiveLimits(own: TokenLimits, defaults: Limits): Limits {
  return {
    rpm: own.rpm ?? defaults.rpm,
    tpm: own.tpm ?? defaults.tpm,
    streams: own.streams ?? defaults.streams,
    budget_tokens: own.budget_tokens ?? defaults.budget_tokens,
    budget_usd: own.budget_usd ?? defaults.budget_usd,
  }
}
