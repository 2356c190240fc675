import { Counter, Gauge, Histogram, Registry } from 'prom-client'

/** What the metrics read when scraped, beside what is counted as it happens. */
export type MetricSources = {
  /** Rows the usage ledger holds unwritten, rows it dropped, and what it wrote. */
  ledger?: () => { depth: number; dropped: number; batches: number; rows: number }
  /** Database connections of this process: open, and busy with a query. */
  pool?: () => Promise<{ open: number; busy: number }>
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const STREAM_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600]

/**
 * Prometheus metrics, with `prom-client` (it runs on Bun, Deno and Node alike; see the README).
 * One registry per app, so that tests and workers never share counters. Labels are route
 * templates, methods, statuses, models, providers and kinds: never owners, tokens or request ids,
 * whose number has no bound.
 */
export class Metrics {
  readonly registry = new Registry()
  readonly #http: Counter
  readonly #latency: Histogram
  readonly #ttft: Histogram
  readonly #streamDuration: Histogram
  readonly #tokens: Counter
  readonly #cost: Counter
  /**
   * Labelled children, kept: prom-client's `labels()` hashes its arguments on every call, and a relayed stream made six
   * such calls (about 3% of its CPU in #31's profile). Their labels are bounded (see above), so are these maps.
   */
  readonly #httpOf = new Children((route, method, status) => ({
    count: this.#http.labels(route, method, status),
    latency: this.#latency.labels(route, method, status),
  }))
  readonly #ttftOf = new Children((model, provider) => this.#ttft.labels(model, provider))
  readonly #durationOf = new Children((model, provider, streamed) =>
    this.#streamDuration.labels(model, provider, streamed),
  )
  readonly #tokensOf = new Children((model, provider, kind) => this.#tokens.labels(model, provider, kind))
  readonly #costOf = new Children((model) => this.#cost.labels(model))
  readonly #active: Gauge
  readonly #upstream: Counter
  readonly #limited: Counter

  constructor(sources: MetricSources = {}) {
    const registers = [this.registry]
    this.#http = new Counter({
      name: 'trellis_http_requests_total',
      help: 'HTTP requests answered, by route template, method and status',
      labelNames: ['route', 'method', 'status'],
      registers,
    })
    this.#latency = new Histogram({
      name: 'trellis_http_request_duration_seconds',
      help: 'Time to the response head, by route template, method and status',
      labelNames: ['route', 'method', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    })
    this.#ttft = new Histogram({
      name: 'trellis_chat_time_to_first_token_seconds',
      help: 'Chat streams: request to first byte of the answer',
      labelNames: ['model', 'provider'],
      buckets: LATENCY_BUCKETS,
      registers,
    })
    this.#streamDuration = new Histogram({
      name: 'trellis_chat_stream_duration_seconds',
      help: 'Chat completions: request to the end of the answer',
      labelNames: ['model', 'provider', 'streamed'],
      buckets: STREAM_BUCKETS,
      registers,
    })
    this.#tokens = new Counter({
      name: 'trellis_chat_tokens_total',
      help: 'Chat tokens, by model, provider and kind (prompt, completion, cached, reasoning)',
      labelNames: ['model', 'provider', 'kind'],
      registers,
    })
    this.#cost = new Counter({
      name: 'trellis_cost_total',
      help: 'What chat requests cost by the price table, in US dollars, by public model',
      labelNames: ['model'],
      registers,
    })
    this.#active = new Gauge({
      name: 'trellis_chat_active_streams',
      help: 'Chat completions being answered now',
      registers,
    })
    this.#upstream = new Counter({
      name: 'trellis_upstream_attempts_failed_total',
      help: 'Failed upstream attempts, by provider and what followed: retry, fallback or give up',
      labelNames: ['provider', 'next'],
      registers,
    })
    this.#limited = new Counter({
      name: 'trellis_rate_limited_total',
      help: 'Requests refused by a limit, by kind: requests, tokens, insufficient_quota, failed_auth',
      labelNames: ['kind'],
      registers,
    })
    if (sources.ledger) {
      const ledger = sources.ledger
      new Gauge({
        name: 'trellis_ledger_queue_depth',
        help: 'Usage rows waiting to be written',
        registers,
        collect: function () {
          this.set(ledger().depth)
        },
      })
      new Gauge({
        name: 'trellis_ledger_dropped_rows',
        help: 'Usage rows dropped because the ledger queue was full, since start (a counter)',
        registers,
        collect: function () {
          this.set(ledger().dropped)
        },
      })
      new Gauge({
        name: 'trellis_ledger_written_rows',
        help: 'Usage rows written since start (a counter)',
        registers,
        collect: function () {
          this.set(ledger().rows)
        },
      })
      new Gauge({
        name: 'trellis_ledger_writes',
        help: 'Database writes (one COPY each) the ledger made since start (a counter)',
        registers,
        collect: function () {
          this.set(ledger().batches)
        },
      })
    }
    if (sources.pool) {
      const pool = sources.pool
      new Gauge({
        name: 'trellis_db_pool_connections',
        help: 'Database connections of this process, by state: open, busy',
        labelNames: ['state'],
        registers,
        collect: async function () {
          const stats = await pool().catch(() => undefined)
          if (!stats) return
          this.labels('open').set(stats.open)
          this.labels('busy').set(stats.busy)
        },
      })
    }
  }

  httpRequest(route: string, method: string, status: number, seconds: number): void {
    const http = this.#httpOf.of(route, method, String(status))
    http.count.inc()
    http.latency.observe(seconds)
  }

  chatStarted(): void {
    this.#active.inc()
  }

  chatFinished(done: {
    model: string
    provider: string | undefined
    streamed: boolean
    ttftMs: number | undefined
    durationMs: number
    usage: { prompt: number; completion: number; cached: number; reasoning: number }
    /** What it cost, in integer micro-dollars. */
    costMicros: number
  }): void {
    this.#active.dec()
    const provider = done.provider ?? 'none'
    if (done.streamed && done.ttftMs !== undefined) this.#ttftOf.of(done.model, provider).observe(done.ttftMs / 1000)
    this.#durationOf.of(done.model, provider, String(done.streamed)).observe(done.durationMs / 1000)
    for (const kind of TOKEN_KINDS) {
      if (done.usage[kind] > 0) this.#tokensOf.of(done.model, provider, kind).inc(done.usage[kind])
    }
    if (done.costMicros > 0) this.#costOf.of(done.model).inc(done.costMicros / 1_000_000)
  }

  upstreamFailed(provider: string, next: 'retry' | 'fallback' | 'give up'): void {
    this.#upstream.labels(provider, next).inc()
  }

  rateLimited(kind: string): void {
    this.#limited.labels(kind).inc()
  }
}

const TOKEN_KINDS = ['prompt', 'completion', 'cached', 'reasoning'] as const

/** One child per distinct label values, made by `make` the first time they are seen; a map per label, so no key is built. */
class Children<C> {
  readonly #made = new Map<string, unknown>()
  readonly #make: (...values: string[]) => C

  constructor(make: (...values: string[]) => C) {
    this.#make = make
  }

  of(...values: string[]): C {
    let level = this.#made
    const last = values.length - 1
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]) as Map<string, unknown> | undefined
      if (next === undefined) level.set(values[i], (next = new Map()))
      level = next
    }
    let child = level.get(values[last]) as C | undefined
    if (child === undefined) level.set(values[last], (child = this.#make(...values)))
    return child
  }
}
