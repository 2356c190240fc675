import { parseArgs, type ParseArgsConfig } from 'node:util'
import { parseScopes, type Scope } from '../auth/model'
import type { TokenChange, TokenGrants } from '../auth/service'
import type { TokenLimits } from '../db/schema'
import { MAX_BUDGET_USD } from '../config/limits'
import { characterCount } from '../http/int64'
import { unstorable } from '../db/storable-text'
import { GROUPS, type Group } from '../usage/service'
import { DEFAULT_SCOPES, helpText, SERVE_ENVIRONMENT, USAGE } from './usage-text'

/**
 * The command line, parsed strictly and without touching anything: an unknown option, an option
 * without its value or a stray argument is a {@link UsageError} (exit 2) before any database is
 * opened. `node:util` parseArgs runs on Bun, Deno and Node alike.
 */
export type Command = (
  | { name: 'help'; text: string }
  | { name: 'version' }
  | { name: 'serve'; workers?: string; port?: string; host?: string }
  | { name: 'migrate' }
  | { name: 'token create'; owner: string; scopes: Scope[]; grants: TokenGrants }
  | { name: 'token update'; id: string; change: TokenChange }
  | { name: 'token list' }
  | { name: 'usage'; from?: Date; to?: Date; by: Group[] }
  | { name: 'token revoke'; id: string }
  /** `docs validate` keeps its own parser (src/docs-config/cli.ts), which reads `-` as stdin. */
  | { name: 'docs validate'; args: string[] }
  /** `docs push` keeps its own parser too (src/docs-config/pages/cli.ts), which reads TRELLIS_URL and TRELLIS_TOKEN. */
  | { name: 'docs push'; args: string[] }
  | { name: 'healthcheck' }
  /** `config check [FILE]`: the file named, else the one `serve` would read. */
  | { name: 'config check'; file?: string }
) & {
  /** `--config FILE`, which every command takes: the configuration file instead of TRELLIS_CONFIG or ./trellis.yaml. */
  config?: string
}

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

const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const

/** parseArgs in strict mode, its multi-line messages cut to their first line. */
function strict<T extends ParseArgsConfig['options']>(command: string, args: string[], options: T, positionals = 0) {
  let parsed
  try {
    parsed = parseArgs({
      args: withNegativeValues(args, options),
      options: { ...HELP_OPTION, ...options },
      strict: true,
      allowPositionals: positionals > 0,
      tokens: true,
    })
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message.split('\n')[0]}`, USAGE[command])
  }
  if (parsed.positionals.length > positionals)
    throw new UsageError(`${command}: unexpected argument "${parsed.positionals[positionals]}"`, USAGE[command])
  // parseArgs keeps the last of a repeated option silently; `--owner alice --owner bob` is a mistake to name.
  const seen = new Set<string>()
  for (const token of parsed.tokens) {
    // -h and --help are one option asked twice, which is no mistake.
    if (token.kind !== 'option' || token.name === 'help') continue
    if (seen.has(token.name))
      throw new UsageError(`${command}: --${token.name} is given more than once`, USAGE[command])
    seen.add(token.name)
  }
  return parsed
}

/**
 * `--rpm -5` as parseArgs cannot read it: a value that starts with a dash looks like an option to it ("ambiguous").
 * A negative number after an option that takes a value is that option's value, joined as `--rpm=-5`, so that the
 * option's own check says what is wrong with it.
 */
function withNegativeValues(args: string[], options: ParseArgsConfig['options']): string[] {
  const out: string[] = []
  for (let i = 0; i < args.length; i++) {
    const name = /^--([^=]+)$/.exec(args[i]!)?.[1]
    const next = args[i + 1]
    if (name !== undefined && options?.[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`--${name}=${next}`)
      i++
    } else out.push(args[i]!)
  }
  return out
}

const help = (command: string): Command => ({ name: 'help', text: `Usage: ${USAGE[command]}` })

function required(command: string, option: string, value: string | undefined): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${command} needs --${option}`, USAGE[command])
  return value
}

/** The rule POST /admin/tokens applies (src/admin/model.ts): 1 to 200 characters once trimmed, all storable. */
function ownerName(owner: string): string {
  const trimmed = owner.trim()
  const why = unstorable(trimmed)
  if (why) throw new Error(`--owner must not contain ${why}`)
  if (trimmed === '' || characterCount(trimmed) > 200)
    throw new Error(`--owner must be 1 to 200 characters, got ${characterCount(trimmed)}`)
  return trimmed
}

export function parseCommandLine(argv: string[], version: string): Command {
  const { args, config } = configOption(argv)
  const command = parseCommand(args, version)
  return config === undefined ? command : { ...command, config }
}

/** `--config FILE` (or `--config=FILE`) taken out wherever it stands: every command reads the configuration. */
function configOption(argv: string[]): { args: string[]; config?: string } {
  const args: string[] = []
  let config: string | undefined
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!
    if (arg !== '--config' && !arg.startsWith('--config=')) {
      args.push(arg)
      continue
    }
    const value = arg === '--config' ? argv[++index] : arg.slice('--config='.length)
    if (value === undefined || value.trim() === '' || value.startsWith('-'))
      throw new UsageError('--config needs a file: --config trellis.yaml')
    if (config !== undefined) throw new UsageError('--config is given more than once')
    config = value
  }
  return { args, config }
}

function parseCommand(argv: string[], version: string): Command {
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
    const { values } = strict('token create', rest.slice(1), {
      owner: { type: 'string' },
      scope: { type: 'string' },
      ...GRANT_OPTIONS,
    })
    if (values.help) return help('token create')
    return guarded('token create', () => {
      const change = grantsOf(values, false)
      return {
        name: 'token create',
        owner: ownerName(required('token create', 'owner NAME', values.owner)),
        scopes: parseScopes(values.scope ?? DEFAULT_SCOPES),
        grants: {
          limits: change.limits as TokenLimits | undefined,
          models: change.models ?? undefined,
          expiresAt: change.expiresAt ?? undefined,
          costHeader: change.costHeader,
        },
      }
    })
  }
  if (first === 'token' && rest[0] === 'update') {
    const { values, positionals } = strict('token update', rest.slice(1), GRANT_OPTIONS, 1)
    if (values.help) return help('token update')
    if (positionals[0] === undefined)
      throw new UsageError('token update needs a token id (see token list)', USAGE['token update'])
    const change = guarded('token update', () => grantsOf(values, true))
    if (Object.keys(change).length === 0)
      throw new UsageError(
        'token update: nothing to change; give --rpm, --tpm, --streams, --budget-tokens, --budget-usd, --models, --expires ' +
          'or --cost-header',
        USAGE['token update'],
      )
    return { name: 'token update', id: positionals[0], change }
  }
  if (first === 'usage') {
    const { values } = strict('usage', rest, {
      from: { type: 'string' },
      to: { type: 'string' },
      by: { type: 'string' },
    })
    if (values.help) return help('usage')
    return guarded('usage', () => ({
      name: 'usage',
      from: values.from === undefined ? undefined : instant('--from', values.from),
      to: values.to === undefined ? undefined : instant('--to', values.to),
      by: (values.by ?? 'model').split(',').map((group) => {
        if (!GROUPS.includes(group as Group))
          throw new Error(`--by must be one or more of ${GROUPS.join(', ')}, got "${group}"`)
        return group as Group
      }),
    }))
  }
  if (first === 'token' && rest[0] === 'revoke') {
    const { values, positionals } = strict('token revoke', rest.slice(1), {}, 1)
    if (values.help) return help('token revoke')
    if (positionals[0] === undefined)
      throw new UsageError('token revoke needs a token id (see token list)', USAGE['token revoke'])
    return { name: 'token revoke', id: positionals[0] }
  }
  if (first === 'token' && (rest[0] === '--help' || rest[0] === '-h' || rest[0] === 'help'))
    return { name: 'help', text: `Usage:\n${TOKEN_COMMANDS.map((command) => `  ${USAGE[command]}`).join('\n')}` }
  if (first === 'token')
    throw new UsageError(
      'token: expected create, update, list or revoke',
      TOKEN_COMMANDS.map((command) => USAGE[command]).join('\n       '),
    )
  if (first === 'config') {
    if (rest[0] === '--help' || rest[0] === '-h' || rest[0] === 'help') return help('config check')
    if (rest[0] !== 'check') throw new UsageError('config: expected "config check [FILE]"', USAGE['config check'])
    const { values, positionals } = strict('config check', rest.slice(1), {}, 1)
    if (values.help) return help('config check')
    return positionals[0] === undefined ? { name: 'config check' } : { name: 'config check', file: positionals[0] }
  }
  if (first === 'docs') {
    if (rest[0] === 'validate') return { name: 'docs validate', args: rest.slice(1) }
    if (rest[0] === 'push') return { name: 'docs push', args: rest.slice(1) }
    throw new UsageError(
      'docs: expected "docs validate FILE" or "docs push DIR"',
      `${USAGE['docs validate']}\n       ${USAGE['docs push']}`,
    )
  }
  throw new UsageError(`unknown command "${first}"`)
}

const TOKEN_COMMANDS = ['token create', 'token update', 'token list', 'token revoke']

const GRANT_OPTIONS = {
  rpm: { type: 'string' },
  tpm: { type: 'string' },
  streams: { type: 'string' },
  'budget-tokens': { type: 'string' },
  'budget-usd': { type: 'string' },
  models: { type: 'string' },
  expires: { type: 'string' },
  'cost-header': { type: 'string' },
} as const

/** A parse whose failure is a usage error of `command`. */
function guarded<T>(command: string, parse: () => T): T {
  try {
    return parse()
  } catch (error) {
    if (error instanceof UsageError) throw error
    throw new UsageError(`${command}: ${(error as Error).message}`, USAGE[command])
  }
}

/** The limit, model and expiry options as a change; `none` (and `never`) remove, where `removable`. */
function grantsOf(values: Partial<Record<keyof typeof GRANT_OPTIONS, string>>, removable: boolean): TokenChange {
  const change: TokenChange = {}
  const limits: NonNullable<TokenChange['limits']> = {}
  const removal = (option: string, value: string) => {
    if (!removable) throw new Error(`--${option} none is for token update; leave the option out instead`)
    return null
  }
  for (const [option, key] of [
    ['rpm', 'rpm'],
    ['tpm', 'tpm'],
    ['streams', 'streams'],
    ['budget-tokens', 'budget_tokens'],
  ] as const) {
    const value = values[option]
    if (value === undefined) continue
    if (value === 'none') limits[key] = removal(option, value)
    else if (/^[1-9]\d{0,12}$/.test(value) && Number(value) <= 1e12) limits[key] = Number(value)
    else
      throw new Error(
        `--${option} must be a whole number from 1 to 10^12${removable ? ', or none' : ''}, got "${value}"`,
      )
  }
  const dollars = values['budget-usd']
  if (dollars === 'none') limits.budget_usd = removal('budget-usd', dollars)
  else if (dollars !== undefined) {
    // Dollars to the micro-dollar the budget counts in: `25`, `0.50`, `0.000125`.
    const amount = /^\d{1,10}(\.\d{1,6})?$/.test(dollars) ? Number(dollars) : Number.NaN
    if (!(amount >= 0.000001 && amount <= MAX_BUDGET_USD))
      throw new Error(
        `--budget-usd must be US dollars from 0.000001 to 10^9, such as 25 or 0.50${removable ? ', or none' : ''}, got "${dollars}"`,
      )
    limits.budget_usd = amount
  }
  if (Object.keys(limits).length > 0) change.limits = limits
  if (values.models !== undefined) {
    const models = values.models.split(',').map((name) => name.trim())
    if (values.models === 'none') change.models = removal('models', values.models)
    else if (models.some((name) => name === ''))
      throw new Error(`--models must be model names separated by commas, got "${values.models}"`)
    else change.models = models
  }
  if (values.expires !== undefined)
    change.expiresAt =
      values.expires === 'never' || values.expires === 'none'
        ? removal('expires', values.expires)
        : expiry(values.expires)
  const costHeader = values['cost-header']
  if (costHeader !== undefined) {
    if (costHeader !== 'on' && costHeader !== 'off')
      throw new Error(`--cost-header must be on or off, got "${costHeader}"`)
    change.costHeader = costHeader === 'on'
  }
  return change
}

/** `30d`, `12h`, `45m` from now, or a date or date-time. */
function expiry(text: string): Date {
  const relative = /^([1-9]\d{0,4})([dhm])$/.exec(text)
  if (relative)
    return new Date(
      Date.now() + Number(relative[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[relative[2] as 'd' | 'h' | 'm'],
    )
  const date = instant('--expires', text, '30d, 12h, 45m, ')
  // A token that expires before it is made can never be used: that is a typo, not a wish.
  if (date.getTime() <= Date.now()) throw new Error(`--expires ${text} is in the past; give a later date, or 30d`)
  return date
}

function instant(option: string, text: string, also = ''): Date {
  const date = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)
    ? new Date(text.length === 10 ? `${text}T00:00:00Z` : text)
    : undefined
  if (!date || Number.isNaN(date.getTime()))
    throw new Error(
      `${option} must be ${also}a date such as 2026-12-31 or a date-time such as 2026-12-31T12:00:00Z, got "${text}"`,
    )
  return date
}

function serve(args: string[]): Command {
  const { values } = strict('serve', args, {
    workers: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
  })
  if (values.help) return { name: 'help', text: `Usage: ${USAGE.serve}\n\n${SERVE_ENVIRONMENT}` }
  if (values.workers !== undefined && !/^[1-9]\d*$/.test(values.workers))
    throw new UsageError(`serve: --workers must be a positive whole number, got "${values.workers}"`, USAGE.serve)
  if (values.port !== undefined && !(/^\d{1,5}$/.test(values.port) && Number(values.port) <= 65535))
    throw new UsageError(`serve: --port must be a port number from 0 to 65535, got "${values.port}"`, USAGE.serve)
  if (values.host !== undefined && (values.host.trim() === '' || /\s/.test(values.host)))
    throw new UsageError(`serve: --host must be a host name or address, got "${values.host}"`, USAGE.serve)
  return { name: 'serve', workers: values.workers, port: values.port, host: values.host }
}
