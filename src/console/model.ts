import { t } from 'elysia'
import { Integer } from '../http/integer'
import { IntegerString } from '../http/int64'
import { LimitsSchema } from '../config/limits'
import { BUCKETS, DIMENSIONS, MAX_DAYS, MEASURES } from './usage'

const oneOf = <T extends string>(values: readonly T[], what: string, fallback: T) =>
  t.Optional(
    t.Union(
      values.map((value) => t.Literal(value)),
      {
        description: `${what}: ${values.join(', ')} (default: ${fallback})`,
        error: `${what.split(' ')[0]} must be one of ${values.join(', ')}`,
      },
    ),
  )

export const ChartParams = t.Object({
  by: oneOf(DIMENSIONS, 'by (what the bars are split by)', 'model'),
  bucket: oneOf(BUCKETS, 'bucket (the time a bar covers)', 'day'),
  measure: oneOf(MEASURES, 'measure (what a bar’s height counts)', 'cost'),
  days: t.Optional(
    // Documented as a plain integer: Elysia's t.Numeric documents a string branch with a number default, which
    // Spectral refuses (oas3-valid-schema-example).
    IntegerString({
      format: 'int32',
      minimum: 1,
      maximum: MAX_DAYS,
      default: 30,
      description: `days: how many days the chart covers, ending today (UTC); 1 to ${MAX_DAYS}, at most 7 by hour (default: 30)`,
      error: `days must be a whole number from 1 to ${MAX_DAYS}`,
    }),
  ),
})

const Count = Integer({ minimum: 0 })

export const Session = t.Object({
  token_id: t.String(),
  owner: t.String(),
  scopes: t.Array(t.String()),
  can_change_tokens: t.Boolean({ description: 'The token is an admin token: it may create, change and revoke tokens' }),
})

export const TokenViews = t.Object({
  data: t.Array(
    t.Object({
      id: t.String(),
      owner: t.String(),
      scopes: t.Array(t.String()),
      limits: t.Union([t.Record(t.String(), t.Number()), t.Null()], { description: "The token's own limits" }),
      effective_limits: t.Composite([LimitsSchema], { description: 'Its own limits, the defaults filling the rest' }),
      models: t.Union([t.Array(t.String()), t.Null()]),
      expires_at: t.Union([t.String({ format: 'date-time' }), t.Null()]),
      created_at: t.String({ format: 'date-time' }),
      revoked_at: t.Union([t.String({ format: 'date-time' }), t.Null()]),
      usage: t.Object(
        {
          month_tokens: Count,
          month_requests: Count,
          month_cost_micros: Integer({ minimum: 0, description: 'What it cost this month, integer micro-dollars' }),
          minute_requests: Count,
          minute_tokens: Count,
        },
        { description: 'From the ledger: this UTC month, and the last 60 seconds' },
      ),
    }),
  ),
})

export const LiveSample = t.Object(
  {
    at_ms: t.Number({ description: 'When the sample was taken (ms since the epoch)' }),
    streams_in_flight: Count,
    requests: t.Number({ description: 'HTTP requests answered since start, the console’s own left out' }),
    server_errors: t.Number({ description: 'Of those, answered 5xx' }),
    ttft_seconds_sum: t.Number({ description: 'Sum of chat streams’ times to first token (upstream latency)' }),
    ttft_count: t.Number({ description: 'Chat streams timed' }),
    upstream_failures: t.Number({ description: 'Failed upstream attempts since start' }),
  },
  { description: 'Counters since the process started: rates are the difference of two samples' },
)
