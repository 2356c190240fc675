import { parseArgs, type ParseArgsConfig } from 'node:util'
import { parseScopes, type Scope } from './auth/model'

/**
 * The command line, parsed strictly and without touching anything: an unknown option, an option
 * without its value or a stray argument is a {@link UsageError} (exit 2) before any database is
 * opened. `node:util` parseArgs runs on Bun, Deno and Node alike.
 */
export type Command =
  | { name: 'help'; text: string }
  | { name: 'version' }
  | { name: 'serve'; workers?: string }
  | { name: 'migrate' }
  | { name: 'token create'; owner: string; scopes: Scope[] }
  | { name: 'token list' }
  | { name: 'token revoke'; id: string }
  /** `docs validate` keeps its own parser (src/docs-config/cli.ts), which reads `-` as stdin. */
  | { name: 'docs validate'; args: string[] }
  | { name: 'healthcheck' }

/** A bad invocation; the message is one line naming what is wrong. */
export class UsageError extends Error {
  override name = 'UsageError'
  constructor(
    message: string,
    /** The usage line of the command at fault; undefined when no command was recognised. */
    readonly usage?: string,
  ) {
    super(message)
  }
}

export const DEFAULT_SCOPES = 'plants:read,plants:write'

const USAGE: Record<string, string> = {
  serve: 'trellis [serve] [--workers N]        serve HTTP (the default command)',
  migrate: 'trellis migrate                      apply database migrations, then exit',
  'token create': `trellis token create --owner NAME [--scope a,b]
                                       issue a token (shown once); scopes: plants:read, plants:write,
                                       chat, docs:write, admin (default: ${DEFAULT_SCOPES})`,
  'token list': 'trellis token list                   list tokens (never their secrets)',
  'token revoke': 'trellis token revoke ID              revoke a token',
  'docs validate': `trellis docs validate FILE|- [--strict] [--json]
                                       check a docs.json like a compiler: file:line:column`,
  healthcheck: "trellis healthcheck                  exit 0 when the local server's /health answers (container probes)",
}

export function helpText(version: string): string {
  return `trellis ${version}: plant store, OpenAI-compatible chat completions and docs.json, in one server

Usage:
${Object.values(USAGE)
  .map((line) => `  ${line}`)
  .join('\n')}
  trellis --version | --help

Configuration comes from the environment; see README.md.`
}

const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const

/** parseArgs in strict mode, its multi-line messages cut to their first line. */
function strict<T extends ParseArgsConfig['options']>(command: string, args: string[], options: T, positionals = 0) {
  let parsed
  try {
    parsed = parseArgs({ args, options: { ...HELP_OPTION, ...options }, strict: true, allowPositionals: positionals > 0 })
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message.split('\n')[0]}`, USAGE[command])
  }
  if (parsed.positionals.length > positionals) throw new UsageError(`${command}: unexpected argument "${parsed.positionals[positionals]}"`, USAGE[command])
  return parsed
}

const help = (command: string): Command => ({ name: 'help', text: `Usage: ${USAGE[command]}` })

function required(command: string, option: string, value: string | undefined): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${command} needs --${option}`, USAGE[command])
  return value
}

export function parseCommandLine(argv: string[], version: string): Command {
  const [first, ...rest] = argv
  if (first === undefined || first.startsWith('--workers')) return serve(argv)
  if (first === '--help' || first === '-h' || first === 'help') return { name: 'help', text: helpText(version) }
  if (first === '--version' || first === '-v') return { name: 'version' }
  if (first === 'serve') return serve(rest)
  if (first === 'migrate' || first === 'healthcheck' || (first === 'token' && rest[0] === 'list')) {
    const command = first === 'token' ? 'token list' : first
    const { values } = strict(command, first === 'token' ? rest.slice(1) : rest, {})
    return values.help ? help(command) : ({ name: command } as Command)
  }
  if (first === 'token' && rest[0] === 'create') {
    const { values } = strict('token create', rest.slice(1), { owner: { type: 'string' }, scope: { type: 'string' } })
    if (values.help) return help('token create')
    let scopes: Scope[]
    try {
      scopes = parseScopes(values.scope ?? DEFAULT_SCOPES)
    } catch (error) {
      throw new UsageError(`token create: ${(error as Error).message}`, USAGE['token create'])
    }
    return { name: 'token create', owner: required('token create', 'owner NAME', values.owner), scopes }
  }
  if (first === 'token' && rest[0] === 'revoke') {
    const { values, positionals } = strict('token revoke', rest.slice(1), {}, 1)
    if (values.help) return help('token revoke')
    if (positionals[0] === undefined) throw new UsageError('token revoke needs a token id (see token list)', USAGE['token revoke'])
    return { name: 'token revoke', id: positionals[0] }
  }
  if (first === 'token') throw new UsageError('token: expected create, list or revoke')
  if (first === 'docs') {
    if (rest[0] !== 'validate') throw new UsageError('docs: expected "docs validate FILE"', USAGE['docs validate'])
    return { name: 'docs validate', args: rest.slice(1) }
  }
  throw new UsageError(`unknown command "${first}"`)
}

function serve(args: string[]): Command {
  const { values } = strict('serve', args, { workers: { type: 'string' } })
  if (values.help) return help('serve')
  if (values.workers !== undefined && !/^[1-9]\d*$/.test(values.workers)) throw new UsageError(`serve: --workers must be a positive whole number, got "${values.workers}"`, USAGE.serve)
  return { name: 'serve', workers: values.workers }
}
