import { and, eq, gte, sql } from 'drizzle-orm'
import type { TokenRecord, TokenService } from '../auth/service'
import type { Limits } from '../config/limits'
import type { Database } from '../db/connect'
import { type TokenLimits, usageMonthly, usageRecords } from '../db/schema'
import type { Metrics } from '../telemetry/metrics'
import { type ChartData, type ChartQuery, chartData } from './usage'

export type ConsoleDeps = {
  db: Database
  tokens: TokenService
  metrics: Metrics
  /** The limits that apply to a token: its own, else the defaults now (a configuration reload may change them). */
  limitsOf: (own: TokenLimits) => Limits
  clock: () => Date
}

/** What a token has used against its limits: this UTC month (budget), and the last minute (rpm, tpm). */
type TokenUsage = {
  month_tokens: number
  month_requests: number
  /** Integer micro-dollars. */
  month_cost_micros: number
  minute_requests: number
  minute_tokens: number
}

export type TokenView = {
  id: string
  owner: string
  scopes: string[]
  limits: Record<string, number> | null
  effective_limits: Limits
  models: string[] | null
  expires_at: string | null
  created_at: string
  revoked_at: string | null
  usage: TokenUsage
}

/**
 * The live figures, as counters since the process started plus the instant they were read: the page takes the
 * difference of two samples a few seconds apart for rates, so the server keeps no history of its own.
 */
export type LiveSample = {
  at_ms: number
  streams_in_flight: number
  requests: number
  server_errors: number
  ttft_seconds_sum: number
  ttft_count: number
  upstream_failures: number
}

const MINUTE_MS = 60_000

/** The console's reads: charts of the ledger, tokens beside their usage, and the metrics registry's live figures. */
export class ConsoleService {
  constructor(private readonly deps: ConsoleDeps) {}

  chart(query: Omit<ChartQuery, 'now'>): Promise<ChartData> {
    return chartData(this.deps.db, { ...query, now: this.deps.clock() })
  }

  /** Every token (revoked ones included, never a secret), each with its usage this month and in the last minute. */
  async tokens(): Promise<TokenView[]> {
    const now = this.deps.clock()
    const month = `${now.toISOString().slice(0, 7)}-01`
    const [list, monthRows, minuteRows] = await Promise.all([
      this.deps.tokens.list(),
      // The monthly rollup: one row per token, where the daily one has one per day of the month so far.
      this.deps.db
        .select({
          id: usageMonthly.key,
          requests: sql<number>`sum(${usageMonthly.requests})`.mapWith(Number),
          tokens: sql<number>`sum(${usageMonthly.promptTokens} + ${usageMonthly.completionTokens})`.mapWith(Number),
          cost: sql<number>`sum(${usageMonthly.costMicros})::text`.mapWith(Number),
        })
        .from(usageMonthly)
        .where(and(eq(usageMonthly.dimension, 'token'), gte(usageMonthly.month, month)))
        .groupBy(usageMonthly.key),
      this.deps.db
        .select({
          id: usageRecords.tokenId,
          requests: sql<number>`count(*)`.mapWith(Number),
          tokens: sql<number>`sum(${usageRecords.promptTokens} + ${usageRecords.completionTokens})`.mapWith(Number),
          cost: sql<number>`0`.mapWith(Number),
        })
        .from(usageRecords)
        .where(gte(usageRecords.at, new Date(now.getTime() - MINUTE_MS)))
        .groupBy(usageRecords.tokenId),
    ])
    const monthly = new Map(monthRows.map((row) => [row.id, row]))
    const recent = new Map(minuteRows.map((row) => [row.id, row]))
    return list.map((token) =>
      viewOf(token, this.deps.limitsOf(token.limits ?? {}), monthly.get(token.id), recent.get(token.id)),
    )
  }

  /** The live figures from the metrics registry; the console's own polling is left out of the request counts. */
  async live(): Promise<LiveSample> {
    const registry = this.deps.metrics.registry
    const values = async (name: string) => (await registry.getSingleMetric(name)?.get())?.values ?? []
    const [active, http, ttft, failures] = await Promise.all([
      values('trellis_chat_active_streams'),
      values('trellis_http_requests_total'),
      values('trellis_chat_time_to_first_token_seconds'),
      values('trellis_upstream_attempts_failed_total'),
    ])
    let requests = 0
    let serverErrors = 0
    for (const { labels, value } of http) {
      if (String(labels.route ?? '').startsWith('/console')) continue
      requests += value
      if (Number(labels.status) >= 500) serverErrors += value
    }
    const sum = (rows: typeof ttft, suffix: string) =>
      rows
        .filter((row) => (row as { metricName?: string }).metricName?.endsWith(suffix))
        .reduce((total, row) => total + row.value, 0)
    return {
      at_ms: this.deps.clock().getTime(),
      streams_in_flight: active.reduce((total, row) => total + row.value, 0),
      requests,
      server_errors: serverErrors,
      ttft_seconds_sum: sum(ttft, '_sum'),
      ttft_count: sum(ttft, '_count'),
      upstream_failures: failures.reduce((total, row) => total + row.value, 0),
    }
  }
}

type Used = { requests: number; tokens: number; cost: number }

function viewOf(token: TokenRecord, limits: Limits, month?: Used, minute?: Used): TokenView {
  return {
    id: token.id,
    owner: token.owner,
    scopes: token.scopes,
    limits: token.limits as Record<string, number> | null,
    effective_limits: limits,
    models: token.models,
    expires_at: token.expiresAt?.toISOString() ?? null,
    created_at: token.createdAt.toISOString(),
    revoked_at: token.revokedAt?.toISOString() ?? null,
    usage: {
      month_tokens: month?.tokens ?? 0,
      month_requests: month?.requests ?? 0,
      month_cost_micros: month?.cost ?? 0,
      minute_requests: minute?.requests ?? 0,
      minute_tokens: minute?.tokens ?? 0,
    },
  }
}
