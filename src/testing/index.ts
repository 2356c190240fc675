import { Value } from '@sinclair/typebox/value'
import { asc } from 'drizzle-orm'
import { modelsProblem, parseScopes, type Scope } from '../auth/model'
import { PROVIDER_KINDS } from '../chat/providers'
import { chatSetupFrom } from '../chat'
import { type LogLevel, loadConfig } from '../config'
import { LimitsSchema } from '../config/limits'
import { type TokenLimits, usageRecords } from '../db/schema'
import { bootstrap } from '../runtimes/bootstrap'
import { createLogger } from '../telemetry/logger'
import { listen } from './listen'
import { RequestRecorder } from './recorder'
import { type ScenarioInput, scenarioSettings } from './scenario'
import { seededDatabase } from './seed'

export type { RecordedRequest } from './recorder'
export type { ScenarioInput } from './scenario'

export type StartTrellisOptions = {
  /**
   * What the `script` provider answers: the path of a YAML or JSON scenario (relative to `cwd`), or the scenario
   * itself. Served as the model `script` and as each of `models`. Without it, `echo` serves them.
   */
  scenario?: ScenarioInput
  /** The model names the code under test asks for (e.g. `gpt-4o-mini`); `echo` and `echo-reasoner` are always served. */
  models?: string[]
  /** Further settings, as the server's environment variables (`ECHO_TOKEN_DELAY_MS`, `TRELLIS_DEFAULT_LIMITS`…). */
  env?: Record<string, string>
  /** A `trellis.yaml` to read (relative to `cwd`); none is read otherwise, not even `./trellis.yaml`. */
  config?: string
  /** Where relative paths are resolved: the process's working directory by default. */
  cwd?: string
  /** 0 (the default): a free port. */
  port?: number
  /** The server's log lines below this level are dropped (default `silent`); the rest go to `log`. */
  logLevel?: LogLevel
  /** Where log lines go (default: stderr). */
  log?: (line: string) => void
}

export type TokenOptions = {
  /** Default `['chat']`. */
  scopes?: Scope[]
  /** Per-token limits: `rpm`, `tpm`, `streams`, `budget_tokens`. */
  limits?: TokenLimits
  /** Public model names the token may use (default: every model). */
  models?: string[]
  /** Default `test`. */
  owner?: string
  expiresAt?: Date
}

/** One row of the usage ledger: a chat request as the server accounted for it. */
export type UsageRow = typeof usageRecords.$inferSelect

/** A running test server; `await using` closes it at the end of the scope. */
export type Trellis = {
  /** The origin, e.g. `http://127.0.0.1:41234`. */
  url: string
  /** For OpenAI SDKs: `${url}/v1`. */
  openaiBaseURL: string
  /** For Anthropic SDKs and Claude Code (`ANTHROPIC_BASE_URL`): the origin, to which they add `/v1/messages`. */
  anthropicBaseURL: string
  /** A new API token of this server (scope `chat` unless told), for a client's `apiKey`. */
  token(options?: TokenOptions): Promise<string>
  /** What clients have sent, oldest first: method, path, headers (credentials redacted), parsed body, status. */
  requests(): import('./recorder').RecordedRequest[]
  /** Forgets the requests recorded so far (between tests). */
  clearRequests(): void
  /** The usage ledger's rows, oldest first, once the requests in flight have settled. */
  usage(): Promise<UsageRow[]>
  /** Serves another scenario from the next request on (between tests); checked like the first. */
  setScenario(scenario: ScenarioInput): Promise<void>
  close(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

/**
 * Starts Trellis in this process for a test: an in-memory PGlite of its own, a free port of its own, configuration
 * only from `options`. Many may run at once in one test file; none shares state with another.
 *
 * @example
 * await using trellis = await startTrellis({ scenario: 'tests/llm.yaml', models: ['gpt-4o-mini'] })
 * const client = new OpenAI({ baseURL: trellis.openaiBaseURL, apiKey: await trellis.token() })
 */
export async function startTrellis(options: StartTrellisOptions = {}): Promise<Trellis> {
  const cwd = options.cwd ?? process.cwd()
  const models = options.models ?? []
  const env = (scenario: ScenarioInput | undefined): Record<string, string> => ({
    LOG_LEVEL: options.logLevel ?? 'silent',
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    // The seed is migrated with this build's migrations.
    MIGRATE_ON_START: 'false',
    ...options.env,
    ...scenarioSettings(scenario, models, cwd),
  })
  const configOf = (scenario: ScenarioInput | undefined) =>
    loadConfig(env(scenario), PROVIDER_KINDS, { file: options.config, cwd, search: false })
  const config = configOf(options.scenario)
  const write = options.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  const logger = createLogger(config.logLevel, write)
  const shutdown = new AbortController()
  let handler: ((request: Request) => Promise<Response>) | undefined
  const [bound, opened] = await Promise.allSettled([
    listen(() => handler ?? notReady, config.host, options.port ?? 0),
    seededDatabase(),
  ])
  if (bound.status === 'rejected' || opened.status === 'rejected') {
    if (bound.status === 'fulfilled') await bound.value.stop()
    if (opened.status === 'fulfilled') await opened.value.close()
    throw bound.status === 'rejected' ? bound.reason : (opened as PromiseRejectedResult).reason
  }
  const [listener, database] = [bound.value, opened.value]
  const started = await bootstrap(config, {
    database,
    logger,
    shutdownSignal: shutdown.signal,
    onLongLivedRequest: (request) => listener.keepOpen(request),
    peerAddress: (request) => listener.peerAddress(request),
  }).catch(async (error) => {
    await listener.stop()
    throw error
  })
  const { app, deps, close: closeApp } = started
  const recorder = new RequestRecorder(config.bodyLimit)
  handler = async (request) => {
    const entry = await recorder.record(request)
    const response = await app.fetch(request)
    entry.status = response.status
    return response
  }
  let closing: Promise<void> | undefined
  const close = () =>
    (closing ??= (async () => {
      shutdown.abort(new Error('the test server was closed'))
      await listener.stop()
      await closeApp()
    })())
  return {
    url: listener.origin,
    openaiBaseURL: `${listener.origin}/v1`,
    anthropicBaseURL: listener.origin,
    token: async (grants = {}) => {
      const scopes = parseScopes((grants.scopes ?? ['chat']).join(','))
      const problem = grants.models && modelsProblem(grants.models, config.chat.models)
      if (problem) throw new Error(`token: ${problem}`)
      if (grants.limits !== undefined && !Value.Check(LimitsSchema, grants.limits)) {
        const first = Value.Errors(LimitsSchema, grants.limits).First()
        throw new Error(
          `token: limits${first?.path ?? ''}: ${first?.message}; expected {rpm?, tpm?, streams?, budget_tokens?, budget_usd?}`,
        )
      }
      const created = await deps.tokens.create({ owner: grants.owner ?? 'test', ...grants, scopes })
      return created.token
    },
    requests: () => recorder.list(),
    clearRequests: () => recorder.clear(),
    usage: async () => {
      const ledger = deps.ledger
      if (!ledger) return []
      // A stream's row is queued when the server has finished with it, a moment after the client read its end.
      const deadline = performance.now() + SETTLE_MS
      while (ledger.inFlight > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5))
      await ledger.flush()
      return deps.database.db.select().from(usageRecords).orderBy(asc(usageRecords.seq))
    },
    setScenario: async (scenario) => {
      const next = configOf(scenario)
      Object.assign(deps.chat!, chatSetupFrom(next.chat, deps.metrics))
    },
    close,
    [Symbol.asyncDispose]: close,
  }
}

/** Longest `usage()` waits for requests in flight to settle (a stream a scenario stalls may never). */
const SETTLE_MS = 2_000

/** The socket is bound before the app is built; a request in between (there should be none) is told to retry. */
const notReady = async () => new Response('starting', { status: 503, headers: { 'retry-after': '1' } })
