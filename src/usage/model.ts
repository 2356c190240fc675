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

export const UsageReport = t.Object({
  from: t.String({ format: 'date-time' }),
  to: t.String({ format: 'date-time' }),
  data: t.Array(
    t.Object(
      {
        requests: Count,
        prompt_tokens: Count,
        completion_tokens: Count,
        cached_tokens: Count,
        reasoning_tokens: Count,
        errors: Integer({ minimum: 0, description: 'Requests that ended with an error, streams cut short included' }),
        estimated_requests: Integer({
          minimum: 0,
          description:
            'Of `requests`, those whose process died before they settled: their rows (`settled` false) are estimates ' +
            'made by another process from the journal: the prompt as estimated, the completion tokens counted',
        }),
        estimated_prompt_tokens: Integer({ minimum: 0, description: 'Of `prompt_tokens`, the estimated' }),
        estimated_completion_tokens: Integer({ minimum: 0, description: 'Of `completion_tokens`, the estimated' }),
      },
      {
        additionalProperties: t.String(),
        description: 'The group keys (model, owner, token_id, day, hour, settled: "true" or "false") beside the totals',
      },
    ),
  ),
})
