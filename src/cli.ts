import pkg from '../package.json' with { type: 'json' }
import { TokenService } from './auth/service'
import { parseScopes } from './auth/model'
import { announceDevelopmentToken, openConfiguredDatabase } from './bootstrap'
import type { Config } from './config'
import { migrate } from './db/migrate'
import { runDocsValidate } from './docs-config/cli'
import { bunPgliteFiles } from './runtimes/bun-pglite'
import { configOrExit } from './runtimes/lifecycle'
import { serve } from './server'
import { runWorkers } from './workers'

const HELP = `trellis ${pkg.version}: plant store, OpenAI-compatible chat completions and docs.json, in one server

Usage:
  trellis [serve] [--workers N]        serve HTTP (the default command)
  trellis migrate                      apply database migrations, then exit
  trellis token create --owner NAME [--scope a,b]
                                       issue a token (shown once); scopes: plants:read, plants:write,
                                       chat, docs:write, admin (default: plants:read,plants:write)
  trellis token list                   list tokens (never their secrets)
  trellis token revoke ID              revoke a token
  trellis docs validate FILE|- [--strict] [--json]
                                       check a docs.json like a compiler: file:line:column
  trellis healthcheck                  exit 0 when the local server's /health answers (container probes)
  trellis --version | --help

Configuration comes from the environment; see README.md.`

/** Exit codes: 0 success, 1 failure, 2 bad invocation. */
export async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv
  if (command === '--help' || command === '-h' || command === 'help') return print(HELP)
  if (command === '--version' || command === '-v') return print(pkg.version)
  if (command === 'docs') {
    if (rest[0] !== 'validate') return usage('docs: expected "docs validate FILE"')
    return runDocsValidate(rest.slice(1))
  }
  if (command === 'serve' || command.startsWith('--workers')) {
    const args = command === 'serve' ? rest : argv
    const workers = flag(args, '--workers')
    const env = workers === undefined ? process.env : { ...process.env, WORKERS: workers }
    const config = configOrExit(env)
    if (config.workers > 1 && !process.env.TRELLIS_WORKER) {
      await withDatabase(async (cfg, db) => (await announceDevelopmentToken(cfg, new TokenService(db)), 0), { config })
      return runWorkers(config)
    }
    await serve(config)
    return -1
  }
  if (command === 'migrate') return withDatabase(async (config, db) => {
    const applied = await migrate(db)
    console.log(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date')
    return 0
  }, { migrate: false })
  if (command === 'token') return tokenCommand(rest)
  if (command === 'healthcheck') return healthcheck()
  return usage(`unknown command "${command}"`)
}

/** For container HEALTHCHECKs in images with no curl: 0 when this host's /health answers 200. */
async function healthcheck(): Promise<number> {
  const config = configOrExit()
  try {
    const response = await fetch(`http://127.0.0.1:${config.port}/health`, { signal: AbortSignal.timeout(2000) })
    return response.ok ? 0 : 1
  } catch {
    return 1
  }
}

async function tokenCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args
  if (action === 'create') {
    const owner = flag(rest, '--owner')
    if (!owner) return usage('token create needs --owner NAME')
    let scopes
    try {
      scopes = parseScopes(flag(rest, '--scope') ?? 'plants:read,plants:write')
    } catch (error) {
      return usage((error as Error).message)
    }
    return withDatabase(async (_config, db) => {
      const created = await new TokenService(db).create({ owner, scopes })
      console.log(`created ${created.id} for ${created.owner} with scopes ${created.scopes.join(',')}`)
      console.log('token (shown only this once):')
      console.log(created.token)
      return 0
    })
  }
  if (action === 'list') return withDatabase(async (_config, db) => {
    const rows = await new TokenService(db).list()
    console.log(['ID', 'OWNER', 'SCOPES', 'CREATED', 'REVOKED'].join('\t'))
    for (const row of rows)
      console.log([row.id, row.owner, row.scopes.join(','), row.createdAt.toISOString(), row.revokedAt?.toISOString() ?? '-'].join('\t'))
    return 0
  })
  if (action === 'revoke') {
    const id = rest[0]
    if (!id) return usage('token revoke needs a token id (see token list)')
    return withDatabase(async (_config, db) => {
      if (!(await new TokenService(db).revoke(id))) {
        console.error(`trellis: no live token with id ${id}`)
        return 1
      }
      console.log(`revoked ${id}; servers stop accepting it within 5 seconds`)
      return 0
    })
  }
  return usage('token: expected create, list or revoke')
}

async function withDatabase(
  run: (config: Config, db: Awaited<ReturnType<typeof openConfiguredDatabase>>['db']) => Promise<number>,
  options: { migrate?: boolean; config?: Config } = {},
): Promise<number> {
  const config = options.config ?? configOrExit()
  const database = await openConfiguredDatabase(config, config.databaseUrl ? undefined : await bunPgliteFiles(config.dataDir))
  try {
    if (options.migrate !== false && config.migrateOnStart) await migrate(database.db)
    return await run(config, database.db)
  } finally {
    await database.close()
  }
}

/** `--name value` or `--name=value`. */
function flag(args: string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) return args[i + 1]
    if (args[i].startsWith(`${name}=`)) return args[i].slice(name.length + 1)
  }
  return undefined
}

function print(text: string) {
  console.log(text)
  return 0
}

function usage(message: string) {
  console.error(`trellis: ${message}\nRun "trellis --help" for usage.`)
  return 2
}

if (import.meta.main) {
  try {
    const code = await main(process.argv.slice(2))
    if (code >= 0) process.exit(code)
  } catch (error) {
    console.error(`trellis: ${(error as Error).message}`)
    process.exit(1)
  }
}
