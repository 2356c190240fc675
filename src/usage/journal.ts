import { type SQL, sql } from 'drizzle-orm'
import type { Database } from '../db/connect'
import { rowsOf } from '../db/migrate'
import type { Charge } from '../governance/holders'
import { BUDGET_USD, type MoneyReservation } from '../governance/service'

/**
 * The journal of requests in flight (`usage_journal`), so that a request's usage reaches the ledger even when its
 * process dies before its row is written:
 * - a request still in flight {@link JOURNAL_MS} after its admission is written to the journal, with the tokens
 *   counted so far, and those are brought up to date at most every {@link PROGRESS_MS} while it runs; a short
 *   request is never journaled at all (its row comes first), so a busy relay writes nothing more;
 * - its own row, when the ledger writes it, carries the entry's id (`reservation_id`) and deletes the entry in the
 *   same transaction;
 * - when its holder dies, a survivor turns the entry into an estimate row ({@link estimateRows}), `settled` false:
 *   the prompt (its estimate) and the completion tokens counted at the last update, charged to the budget, and to
 *   the money budget at the rates its reservation was made at (the estimate's, an upper bound of the real cost).
 * A unique index on `reservation_id` keeps one row per request, whichever comes first. What a crash still loses:
 * a request that was never journaled (it ended, or the crash came, within JOURNAL_MS of its admission, plus one write)
 * and whose row was still queued in the ledger: a batch waits up to its flush time (1 s) or its size (1,000 rows).
 */
export const JOURNAL_MS = 250
const PROGRESS_MS = 1_000

/** A request in flight, as the journal keeps it until its row is written. */
export type InFlight = {
  readonly id: string
  readonly holder: string
  readonly at: Date
  readonly requestId: string
  readonly tokenId: string
  readonly owner: string
  readonly model: string
  readonly streamed: boolean
  /** The month of the budget it reserved from, or null. */
  readonly budgetPeriod: string | null
  /** The money budget it reserved from, or null. */
  readonly budgetUsd: MoneyReservation | null
  readonly promptTokens: number
  /** The run's report: content events handed over so far (the tokens counted), and the provider serving it. */
  readonly report: { readonly events: number; readonly provider?: string }
  /** Its write was attempted: its row must carry its id, to delete it. */
  journaled: boolean
  /** Completion tokens as last written (-1: never), and when (performance.now()). */
  written: number
  writtenAt: number
}

/** Which entries are due at `now` (performance.now()): new ones past JOURNAL_MS, written ones whose count moved. */
export function dueEntries(inFlight: Iterable<InFlight>, now: number): InFlight[] {
  const due: InFlight[] = []
  for (const entry of inFlight) {
    if (
      entry.written < 0
        ? now - entry.writtenAt >= JOURNAL_MS
        : entry.report.events !== entry.written && now - entry.writtenAt >= PROGRESS_MS
    )
      due.push(entry)
  }
  return due
}

/**
 * Writes `entries` (new or updated), each only while its holder is registered: a holder declared dead was
 * reconciled, and an entry written after that would be turned into a second estimate.
 */
export function journalStatement(entries: readonly InFlight[], completions: readonly number[]): SQL {
  const rows = entries.map((entry, i) => ({
    id: entry.id,
    holder_id: entry.holder,
    at: entry.at.toISOString(),
    request_id: entry.requestId,
    token_id: entry.tokenId,
    owner: entry.owner,
    model: entry.model,
    provider: entry.report.provider ?? null,
    streamed: entry.streamed,
    budget_period: entry.budgetPeriod,
    budget_usd_period: entry.budgetUsd?.period ?? null,
    prompt_rate: entry.budgetUsd?.rates?.prompt ?? null,
    completion_rate: entry.budgetUsd?.rates?.completion ?? null,
    prompt_tokens: entry.promptTokens,
    completion_tokens: completions[i],
  }))
  return sql`
    insert into usage_journal (id, holder_id, at, updated_at, request_id, token_id, owner, model, provider, streamed,
                               budget_period, budget_usd_period, prompt_rate, completion_rate, prompt_tokens,
                               completion_tokens)
    select j.id, j.holder_id, j.at, now(), j.request_id, j.token_id, j.owner, j.model, j.provider, j.streamed,
           j.budget_period, j.budget_usd_period, j.prompt_rate, j.completion_rate, j.prompt_tokens, j.completion_tokens
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as j(id text, holder_id text, at timestamptz,
         request_id text, token_id text, owner text, model text, provider text, streamed boolean, budget_period text,
         budget_usd_period text, prompt_rate bigint, completion_rate bigint, prompt_tokens integer,
         completion_tokens integer)
    where exists (select 1 from quota_holders h where h.id = j.holder_id for key share)
    on conflict (id) do update
    set completion_tokens = excluded.completion_tokens, provider = excluded.provider, updated_at = excluded.updated_at`
}

/** Deletes the entries whose rows are being written (in the ledger's transaction). */
export function settledStatement(ids: readonly string[]): SQL {
  return sql`delete from usage_journal where id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`
}

/**
 * What the journal of dead `holder` proves (src/governance/holders.ts `Proofs`): each entry becomes an estimate row,
 * `settled` false, `error_code` `process_died`, at the time of its last update: the prompt as estimated and the
 * completion tokens counted then (status 200 when some were sent, 502 when none were), priced like a row
 * (src/cost/pricing.ts) by its public model's version in effect then, with no cache or reasoning tokens known: prompt at
 * `input`, completion at `output`, rounded half up once. Entries whose request has a row already are only deleted.
 * Returns what the estimates used of each budget, which the reconciliation charges: their tokens, and their cost at
 * the rates their money reservation was made at (`estimateMicros` of the row's tokens; an unpriced request, reserved
 * at no rates, costs nothing).
 */
export async function estimateRows(tx: Database, holder: string): Promise<Charge[]> {
  const charged = rowsOf<{ token_id: string; kind: string; period: string; units: number }>(
    await tx.execute(sql`
      with gone as (delete from usage_journal where holder_id = ${holder} returning *),
      estimated as (
        insert into usage_records (at, request_id, token_id, owner, model, provider, upstream_model, streamed, status,
                                   finish_reason, prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens,
                                   ttft_ms, duration_ms, error_code, settled, reservation_id, cost_micros, price_version)
        select updated_at, request_id, token_id, owner, model, provider, null, streamed,
               case when completion_tokens > 0 then 200 else 502 end, null, prompt_tokens, completion_tokens, 0, 0,
               null, greatest(0, extract(epoch from (updated_at - at)) * 1000), 'process_died', false, gone.id,
               coalesce(floor((prompt_tokens::numeric * p.input + completion_tokens::numeric * p.output + 500000)
                              / 1000000)::bigint, 0),
               p.id
        from gone
        left join lateral (select v.id, v.input, v.output from price_versions v
                           where v.model = gone.model and v."from" <= gone.updated_at
                           order by v."from" desc limit 1) p on true
        on conflict (reservation_id) where reservation_id is not null do nothing
        returning reservation_id, prompt_tokens + completion_tokens as tokens)
      select g.token_id, 'budget'::text as kind, g.budget_period as period, sum(e.tokens)::float8 as units
      from estimated e join gone g on g.id = e.reservation_id
      where g.budget_period is not null
      group by g.token_id, g.budget_period
      union all
      select g.token_id, ${BUDGET_USD}::text as kind, g.budget_usd_period as period,
             sum(ceil((g.prompt_tokens::numeric * g.prompt_rate + g.completion_tokens::numeric * g.completion_rate)
                      / 1000000))::float8 as units
      from estimated e join gone g on g.id = e.reservation_id
      where g.budget_usd_period is not null and g.prompt_rate is not null
      group by g.token_id, g.budget_usd_period`),
  )
  return charged.map((row) => ({ tokenId: row.token_id, kind: row.kind, period: row.period, units: Number(row.units) }))
}
