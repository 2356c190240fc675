import { Integer } from '../http/integer'
import { t } from 'elysia'
import { StoredText } from '../http/int64'
import { GROUPS } from './service'

const Instant = (what: string) =>
  t.String({
    pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?$',
    description: `${what}: a date (UTC midnight) or an RFC 3339 date-time`,
    error: `${what.split(' ')[0]} must be a date such as 2026-11-01 or a date-time such as 2026-11-01T12:00:00Z`,
  })

export const UsageQuery = t.Object({
  from: t.Optional(Instant('from (inclusive; default: 30 days before to)')),
  to: t.Optional(Instant('to (exclusive; default: now)')),
  group_by: t.Optional(
    t.String({
      pattern: `^(${GROUPS.join('|')})(,(${GROUPS.join('|')}))*$`,
      description: `One or more of ${GROUPS.join(', ')}, separated by commas (default: model)`,
      error: `group_by must be one or more of ${GROUPS.join(', ')}, separated by commas`,
    }),
  ),
  owner: t.Optional(
    StoredText({
      minLength: 1,
      maxLength: 200,
      description: "Admin tokens only: one owner's usage",
      error: 'owner must be 1 to 200 characters',
    }),
  ),
})

const Count = Integer({ minimum: 0 })

/** The totals of a group, and of the whole answer (`total`). */
const Totals = {
  requests: Count,
  prompt_tokens: Count,
  completion_tokens: Count,
  cached_tokens: Count,
  reasoning_tokens: Count,
  cache_write_tokens: Integer({
    minimum: 0,
    description: 'Prompt tokens written to a cache (Anthropic), part of `prompt_tokens`',
  }),
  cost_micros: Integer({
    minimum: 0,
    description:
      "What the requests cost by the price table, in integer micro-dollars: the sum of the rows' costs, each computed once",
  }),
  cost_usd: t.Number({ minimum: 0, description: '`cost_micros` in US dollars, rounded to 6 decimals' }),
  unpriced_requests: Integer({
    minimum: 0,
    description: 'Of `requests`, those whose model had no price (they cost 0): the price table misses their model',
  }),
  errors: Integer({ minimum: 0, description: 'Requests that ended with an error, streams cut short included' }),
  estimated_requests: Integer({
    minimum: 0,
    description:
      'Of `requests`, those whose process died before they settled: their rows (`settled` false) are estimates ' +
      'made by another process from the journal: the prompt as estimated, the completion tokens counted',
  }),
  estimated_prompt_tokens: Integer({ minimum: 0, description: 'Of `prompt_tokens`, the estimated' }),
  estimated_completion_tokens: Integer({ minimum: 0, description: 'Of `completion_tokens`, the estimated' }),
}

export const UsageReport = t.Object({
  from: t.String({ format: 'date-time' }),
  to: t.String({ format: 'date-time' }),
  data: t.Array(
    t.Object(Totals, {
      additionalProperties: t.String(),
      description: 'The group keys (model, owner, token_id, day, hour, settled: "true" or "false") beside the totals',
    }),
  ),
  total: t.Object(Totals, { description: 'The totals of every group: the whole period, for the owners asked about' }),
})

const Rate = (what: string) => t.Number({ minimum: 0, description: `${what}, US dollars per million tokens` })

export const PriceList = t.Object({
  data: t.Array(
    t.Object({
      id: t.String({ description: "The version's id: a usage row's `price_version`" }),
      model: t.String({ description: 'A public model name, `provider/upstream model` or an upstream model name' }),
      from: t.String({
        format: 'date-time',
        description: 'When it took (or takes) effect; the next version of the same model ends it',
      }),
      input: Rate('Prompt tokens neither read from nor written to a cache'),
      cached_input: Rate('Prompt tokens read from a cache'),
      cache_write: Rate('Prompt tokens written to a cache'),
      output: Rate('Completion tokens other than reasoning'),
      reasoning: Rate('Reasoning tokens'),
    }),
  ),
})
