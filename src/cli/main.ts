import { existsSync } from 'node:fs'
import { join } from 'node:path'
import pkg from '../../package.json' with { type: 'json' }
import { modelsProblem } from '../auth/model'
import { TokenService } from '../auth/service'
import { type Command, parseCommandLine, UsageError } from './command-line'
import { announceDevelopmentToken, openConfiguredDatabase } from '../runtimes/bootstrap'
import type { Config, ConfigOptions } from '../config'
import { runConfigCheck } from './config-check'
import type { DatabaseHandle } from '../db/connect'
import { DataDirInUse } from '../db/data-dir-lock'
import { databaseNotMigrated, describeFailure, NOT_MIGRATED_MESSAGE } from '../db/failures'
import { migrate } from '../db/migrate'
import { runDocsValidate } from './docs-validate'
import { runDocsPush } from './docs-push'
import { bunPgliteFiles } from '../runtimes/bun-pglite'
import { configOrExit, listenFailure } from '../runtimes/lifecycle'
import { serve } from '../runtimes/bun'
import { summarizeUsage } from '../usage/service'
import { runWorkers } from '../runtimes/bun-workers'

/** `--config FILE` of this invocation, for every command that reads the configuration. */
let configOptions: ConfigOptions = {}
const configured = (env: Record<string, string | undefined> = process.env) => configOrExit(env, configOptions)

/** Exit codes: 0 success, 1 failure, 2 bad invocation (checked before anything is opened). */
export async function main(argv: string[]): Promise<number> {
  let command: Command
  try {
    command = parseCommandLine(argv, pkg.version)
  } catch (error) {
    if (error instanceof UsageError) return usage(error.message, error.usage)
    throw error
  }
  configOptions = command.config === undefined ? {} : { file: command.config }
  switch (command.name) {
    case 'config check':
      return runConfigCheck(command.file, configOptions)
    case 'help':
      return print(command.text)
    case 'version':
      return print(pkg.version)
    case 'docs validate':
      return runDocsValidate(command.args)
    case 'docs push':
      return runDocsPush(command.args)
    case 'serve': {
      // An option wins over its variable: it is the more specific of the two.
      const overrides = { WORKERS: command.workers, PORT: command.port, HOST: command.host }
      const env = { ...process.env }
      for (const [name, value] of Object.entries(overrides)) if (value !== undefined) env[name] = value
      const config = configured(env)
      if (config.workers > 1 && !process.env.TRELLIS_WORKER) {
        // The workers bind later; a port someone else holds must stop us before a token is printed for it.
        const taken = portTaken(config.host, config.port)
        if (taken) {
          console.error(`trellis: cannot listen on ${config.host}:${config.port}: ${listenFailure(taken)}`)
          return 1
        }
        await withDatabase(async (cfg, db) => (await announceDevelopmentToken(cfg, new TokenService(db)), 0), {
          config,
        })
        return runWorkers(config)
      }
      await serve(config)
      return -1
    }
    case 'migrate':
      return withDatabase(
        async (_config, _db, handle) => {
          const applied = await migrate(handle.unbounded)
          console.log(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date')
          return 0
        },
        { migrate: false },
      )
    case 'healthcheck':
      return healthcheck()
    case 'token create': {
      const { owner, scopes, grants } = command
      return withDatabase(async (config, db) => {
        if (!servesModels(config, grants.models)) return 1
        const created = await new TokenService(db).create({ owner, scopes, ...grants })
        console.log(
          `created ${created.id} for ${created.owner} with scopes ${created.scopes.join(',')}${describeGrants(created)}`,
        )
        console.log('token (shown only this once):')
        console.log(created.token)
        return 0
      })
    }
    case 'token update': {
      const { id, change } = command
      return withExistingDatabase(async (config, db) => {
        if (!servesModels(config, change.models ?? undefined)) return 1
        const updated = await new TokenService(db).update(id, change)
        if (!updated) {
          console.error(`trellis: no live token with id ${id}`)
          return 1
        }
        console.log(
          `updated ${id}${describeGrants(updated) || ': no limits, every model, no expiry'}; servers apply it within 5 seconds`,
        )
        return 0
      })
    }
    case 'token list':
      return withExistingDatabase(async (_config, db) => {
        const rows = await new TokenService(db).list()
        console.log(['ID', 'OWNER', 'SCOPES', 'LIMITS', 'MODELS', 'EXPIRES', 'CREATED', 'REVOKED'].join('\t'))
        for (const row of rows) {
          const limits = row.limits
            ? Object.entries(row.limits)
                .map(([key, value]) => `${key}=${value}`)
                .join(',')
            : '-'
          console.log(
            [
              row.id,
              row.owner,
              row.scopes.join(','),
              limits,
              row.models?.join(',') ?? '*',
              row.expiresAt?.toISOString() ?? '-',
              row.createdAt.toISOString(),
              row.revokedAt?.toISOString() ?? '-',
            ].join('\t'),
          )
        }
        return 0
      })
    case 'usage': {
      const { from, by } = command
      const to = command.to ?? new Date()
      return withExistingDatabase(async (_config, db) => {
        const rows = await summarizeUsage(db, {
          from: from ?? new Date(to.getTime() - 30 * 86_400_000),
          to,
          groupBy: by,
        })
        printTable(rows)
        return 0
      })
    }
    case 'token revoke': {
      const { id } = command
      return withExistingDatabase(async (_config, db) => {
        if (!(await new TokenService(db).revoke(id))) {
          console.error(`trellis: no live token with id ${id}`)
          return 1
        }
        console.log(`revoked ${id}; servers stop accepting it within 5 seconds`)
        return 0
      })
    }
  }
}

/** For container HEALTHCHECKs in images with no curl: 0 when this host's /health answers 200. */
async function healthcheck(): Promise<number> {
  const config = configured()
  try {
    const response = await fetch(`http://127.0.0.1:${config.port}/health`, { signal: AbortSignal.timeout(2000) })
    return response.ok ? 0 : 1
  } catch {
    return 1
  }
}

async function withDatabase(
  run: (config: Config, db: DatabaseHandle['db'], handle: DatabaseHandle) => Promise<number>,
  options: { migrate?: boolean; config?: Config } = {},
): Promise<number> {
  const config = options.config ?? configured()
  let database: Awaited<ReturnType<typeof openConfiguredDatabase>>
  try {
    database = await openConfiguredDatabase(
      config,
      config.databaseUrl ? undefined : await bunPgliteFiles(config.dataDir),
    )
  } catch (error) {
    if (!(error instanceof DataDirInUse)) throw error
    // The server holds the embedded database: its HTTP API does the same work meanwhile.
    console.error(
      `trellis: ${error.message}; while it runs, use its HTTP API with an admin token instead (README: ` +
        `"Tokens"), e.g. curl -X POST http://localhost:${config.port}/admin/tokens -H "Authorization: Bearer ` +
        `$ADMIN_TOKEN" -H 'Content-Type: application/json' -d '{"owner":"alice","scopes":["chat"]}'`,
    )
    return 1
  }
  try {
    if (options.migrate !== false && config.migrateOnStart) await migrate(database.unbounded)
    return await run(config, database.db, database)
  } finally {
    await database.close()
  }
}

/**
 * {@link withDatabase} for a command that only makes sense on a database that exists: on the embedded one, a data
 * directory nobody has started yet is said to be empty instead of being created (and migrated) for nothing.
 */
function withExistingDatabase(
  run: (config: Config, db: DatabaseHandle['db'], handle: DatabaseHandle) => Promise<number>,
): Promise<number> {
  const config = configured()
  if (!config.databaseUrl && !existsSync(join(config.dataDir, 'PG_VERSION'))) {
    console.error(
      `trellis: there is no database in ${config.dataDir} yet, so nothing to read or change; start the server ` +
        'there once (bun start), make a token with `trellis token create`, or set DATABASE_URL',
    )
    return Promise.resolve(1)
  }
  return withDatabase(run, { config })
}

/** Whether `models` is an allow-list a token can use on this configuration; says what is wrong when not. */
function servesModels(config: Config, models: readonly string[] | null | undefined): boolean {
  const problem = models ? modelsProblem(models, config.chat.models) : undefined
  if (problem) console.error(`trellis: --${problem} (models:, CHAT_MODELS)`)
  return problem === undefined
}

/** ` with limits rpm=60, models echo, expires 2026-…`, or '' when the token has none of those. */
function describeGrants(token: {
  limits: Record<string, number> | null
  models: string[] | null
  expiresAt: Date | null
  costHeader?: boolean
}): string {
  const parts: string[] = []
  if (token.limits)
    parts.push(
      `limits ${Object.entries(token.limits)
        .map(([key, value]) => `${key}=${value}`)
        .join(', ')}`,
    )
  if (token.models) parts.push(`models ${token.models.join(', ')}`)
  if (token.expiresAt) parts.push(`expires ${token.expiresAt.toISOString()}`)
  if (token.costHeader) parts.push('x-trellis-cost')
  return parts.length ? ` with ${parts.join('; ')}` : ''
}

/** Rows of objects as an aligned text table, numbers to the right. */
function printTable(rows: Record<string, string | number>[]) {
  if (rows.length === 0) return print('no usage in that time')
  const columns = Object.keys(rows[0]!)
  const cells = [
    columns.map((column) => column.toUpperCase()),
    ...rows.map((row) => columns.map((column) => String(row[column]))),
  ]
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)))
  for (const line of cells)
    console.log(
      line
        .map((cell, i) =>
          typeof rows[0]![columns[i]!] === 'number' ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!),
        )
        .join('  ')
        .trimEnd(),
    )
  return 0
}

function print(text: string) {
  console.log(text)
  return 0
}

function usage(message: string, line?: string) {
  console.error(`trellis: ${message}
${
  line
    ? `Usage: ${line}
`
    : ''
}Run "trellis --help" for all commands.`)
  return 2
}

if (import.meta.main) {
  try {
    const code = await main(process.argv.slice(2))
    if (code >= 0) process.exit(code)
  } catch (error) {
    console.error(`trellis: ${databaseNotMigrated(error) ? NOT_MIGRATED_MESSAGE : firstLine(describeFailure(error))}`)
    process.exit(1)
  }
}

/** What a terminal shows of a failure: its first line (the stack is for the log). */
function firstLine(text: string): string {
  return text.split('\n', 1)[0]!
}

/** The error binding `host:port` gives right now, or undefined when it is free (the probe is released at once). */
function portTaken(host: string, port: number): unknown {
  if (port === 0) return undefined
  try {
    Bun.listen({ hostname: host, port, socket: { data() {} } }).stop(true)
    return undefined
  } catch (error) {
    return error
  }
}
