/** What the CLI prints for --help and beside a usage error: one entry per command (src/cli/command-line.ts). */

export const DEFAULT_SCOPES = 'plants:read,plants:write'

export const USAGE: Record<string, string> = {
  serve:
    'trellis [serve] [--port N] [--host ADDRESS] [--workers N] [--config FILE]\n                                       serve HTTP (the default command)',
  migrate: 'trellis migrate                      apply database migrations, then exit',
  'token create': `trellis token create --owner NAME [--scope a,b] [--rpm N] [--tpm N] [--streams N]
                       [--budget-tokens N] [--budget-usd DOLLARS] [--models a,b] [--expires 30d|12h|2026-12-31]
                       [--cost-header on|off]
                                       issue a token (shown once); scopes: plants:read, plants:write,
                                       chat, docs:write, metrics, admin (default: ${DEFAULT_SCOPES})`,
  'token update': `trellis token update ID [--rpm N|none] [--tpm N|none] [--streams N|none]
                       [--budget-tokens N|none] [--budget-usd DOLLARS|none] [--models a,b|none]
                       [--expires 30d|DATE|never] [--cost-header on|off]
                                       change a token's limits, models, expiry or x-trellis-cost (none: remove)`,
  'token list': 'trellis token list                   list tokens (never their secrets)',
  'token revoke': 'trellis token revoke ID              revoke a token',
  'docs validate': `trellis docs validate FILE|- [--strict] [--json]
                                       check a docs.json like a compiler: file:line:column`,
  'docs push': `trellis docs push DIR [--url URL] [--token TOKEN]
                                       upload docs.json and every .md/.mdx page under DIR to a running
                                       server (default TRELLIS_URL or http://127.0.0.1:3000, token TRELLIS_TOKEN)`,
  usage: `trellis usage [--from DATE] [--to DATE] [--by model|owner|token|day|hour|settled]
                                       chat usage as a table (default: the last 30 days, by model)`,
  healthcheck: "trellis healthcheck                  exit 0 when the local server's /health answers (container probes)",
  'config check': `trellis config check [FILE]          validate a configuration file and the environment as serve would
                                       read them: file:line:column (default FILE: --config, TRELLIS_CONFIG
                                       or ./trellis.yaml)`,
}

export function helpText(version: string): string {
  return `trellis ${version}: plant store, OpenAI-compatible chat completions and docs.json, in one server

Usage:
${Object.values(USAGE)
  .map((line) => `  ${line}`)
  .join('\n')}
  trellis --version | --help

Every command takes --config FILE: the configuration file (default TRELLIS_CONFIG, else ./trellis.yaml
when it exists). Environment variables override it; see README.md, "Configuration".`
}

/** What `serve --help` says of the environment: the settings a first start needs (README: "Configuration"). */
export const SERVE_ENVIRONMENT = `The options set what these variables set (an option wins over its variable):
  PORT (3000), HOST (0.0.0.0), WORKERS (1; more needs DATABASE_URL)
  TRELLIS_CONFIG      the configuration file (--config FILE); default ./trellis.yaml when it exists.
                      Every setting can be written there; a variable that is set wins over it.
Also read from the environment:
  DATABASE_URL        PostgreSQL (postgres://…); unset: the embedded PGlite in TRELLIS_DATA_DIR (./data)
  MIGRATE_ON_START    apply migrations at start (true)
  NODE_ENV            production: no first-run development token
  LOG_LEVEL           debug, info, warn, error or silent (info)
  CHAT_PROVIDERS, CHAT_MODELS, TRELLIS_DEFAULT_LIMITS, BODY_LIMIT, … (README: "Configuration")`
