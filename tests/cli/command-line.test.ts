import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseCommandLine, UsageError } from '../../src/cli/command-line'
import { runCli } from '../helpers/process'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes, which take several times as long beside a parallel run
// (`bun test --parallel=2`, .ci/run); the CLI mistakes test took 12 s there.
setDefaultTimeout(90_000)

const parse = (argv: string[]) => parseCommandLine(argv, '9.9.9')

describe('parseCommandLine: what each command line means', () => {
  test.each([
    [[], { name: 'serve', workers: undefined }],
    [['serve'], { name: 'serve', workers: undefined }],
    [['serve', '--workers', '4'], { name: 'serve', workers: '4' }],
    [['--workers=2'], { name: 'serve', workers: '2' }],
    [['serve', '--port', '8080', '--host', '127.0.0.1'], { name: 'serve', port: '8080', host: '127.0.0.1' }],
    [['serve', '--port=0'], { name: 'serve', port: '0' }],
    [['migrate'], { name: 'migrate' }],
    [['healthcheck'], { name: 'healthcheck' }],
    [['token', 'list'], { name: 'token list' }],
    [
      ['token', 'create', '--owner', 'alice'],
      {
        name: 'token create',
        owner: 'alice',
        scopes: ['plants:read', 'plants:write'],
        grants: { limits: undefined, models: undefined, expiresAt: undefined },
      },
    ],
    [
      ['token', 'create', '--owner=alice', '--scope', 'chat,admin'],
      {
        name: 'token create',
        owner: 'alice',
        scopes: ['chat', 'admin'],
        grants: { limits: undefined, models: undefined, expiresAt: undefined },
      },
    ],
    [
      ['token', 'create', '--scope', 'chat', '--owner', 'bob'],
      {
        name: 'token create',
        owner: 'bob',
        scopes: ['chat'],
        grants: { limits: undefined, models: undefined, expiresAt: undefined },
      },
    ],
    [
      [
        'token',
        'create',
        '--owner',
        'alice',
        '--scope',
        'chat',
        '--rpm',
        '60',
        '--tpm',
        '100000',
        '--streams',
        '4',
        '--budget-tokens',
        '5000000',
        '--models',
        'echo,gpt-4o',
        '--expires',
        '2027-01-31',
      ],
      {
        name: 'token create',
        owner: 'alice',
        scopes: ['chat'],
        grants: {
          limits: { rpm: 60, tpm: 100_000, streams: 4, budget_tokens: 5_000_000 },
          models: ['echo', 'gpt-4o'],
          expiresAt: new Date('2027-01-31T00:00:00Z'),
        },
      },
    ],
    [
      ['token', 'update', 'tok_1', '--rpm', '120'],
      { name: 'token update', id: 'tok_1', change: { limits: { rpm: 120 } } },
    ],
    [
      ['token', 'update', 'tok_1', '--cost-header', 'on'],
      { name: 'token update', id: 'tok_1', change: { costHeader: true } },
    ],
    [
      ['token', 'create', '--owner', 'alice', '--cost-header', 'off'],
      { name: 'token create', owner: 'alice', scopes: ['plants:read', 'plants:write'], grants: { costHeader: false } },
    ],
    [
      ['token', 'create', '--owner', 'carol', '--budget-usd', '25.50'],
      {
        name: 'token create',
        owner: 'carol',
        scopes: ['plants:read', 'plants:write'],
        grants: { limits: { budget_usd: 25.5 }, models: undefined, expiresAt: undefined },
      },
    ],
    [
      ['token', 'update', 'tok_1', '--budget-usd', '0.000125', '--budget-tokens', 'none'],
      { name: 'token update', id: 'tok_1', change: { limits: { budget_tokens: null, budget_usd: 0.000125 } } },
    ],
    [
      ['token', 'update', 'tok_1', '--budget-usd', 'none'],
      { name: 'token update', id: 'tok_1', change: { limits: { budget_usd: null } } },
    ],
    [
      ['token', 'update', 'tok_1', '--rpm', 'none', '--models', 'none', '--expires', 'never'],
      { name: 'token update', id: 'tok_1', change: { limits: { rpm: null }, models: null, expiresAt: null } },
    ],
    [['usage'], { name: 'usage', from: undefined, to: undefined, by: ['model'] }],
    [
      ['usage', '--from', '2026-11-01', '--by', 'owner,day'],
      { name: 'usage', from: new Date('2026-11-01T00:00:00Z'), to: undefined, by: ['owner', 'day'] },
    ],
    [['token', 'revoke', 'tok_1'], { name: 'token revoke', id: 'tok_1' }],
    [['docs', 'validate', '-', '--strict'], { name: 'docs validate', args: ['-', '--strict'] }],
    [['--version'], { name: 'version' }],
  ] as const)('%p → %o', (argv, command) => {
    expect(parse([...argv]) as unknown).toEqual(command)
  })

  test.each([
    [['--help']],
    [['help']],
    [['token', 'revoke', '--help']],
    [['token', 'create', '-h']],
    [['token', 'create', '-h', '--help']],
    [['serve', '--help']],
    [['migrate', '--help']],
    [['token', '--help']],
    [['token', '-h']],
  ])('%p asks for help (and never touches a token named "--help")', (argv) => {
    expect(parse(argv).name).toBe('help')
  })

  test.each([
    [['token', 'create', '--owner', 'alice', '--scopes', 'admin'], "Unknown option '--scopes'"],
    [['token', 'create', '--owner', '--scope', 'chat'], "'--owner' argument is ambiguous"],
    [['token', 'create', '--owner'], "'--owner <value>' argument missing"],
    [['token', 'create', '--owner='], 'token create needs --owner NAME'],
    [['token', 'create'], 'token create needs --owner NAME'],
    [['token', 'create', '--owner', 'alice', '--owner', 'bob'], '--owner is given more than once'],
    [['token', 'update', 'tok_1', '--rpm', '5', '--rpm', '6'], '--rpm is given more than once'],
    [['token', 'create', '--owner', 'x'.repeat(201)], '--owner must be 1 to 200 characters, got 201'],
    [['token', 'create', '--owner', 'a\ud800'], '--owner must not contain a lone surrogate'],
    [['token', 'create', '--owner', 'x', '--scope', 'plants:eat'], 'unknown scope "plants:eat"'],
    [['token', 'create', '--owner', 'x', 'extra'], 'Unexpected argument'],
    [['token', 'list', '--all'], "Unknown option '--all'"],
    [['token', 'revoke'], 'token revoke needs a token id'],
    [['token', 'revoke', 'a', 'b'], 'unexpected argument "b"'],
    [['token', 'revoke', '--force', 'a'], "Unknown option '--force'"],
    [['token', 'frobnicate'], 'expected create, update, list or revoke'],
    [['token', 'create', '--owner', 'x', '--rpm', '0'], '--rpm must be a whole number from 1 to 10^12'],
    [['token', 'create', '--owner', 'x', '--rpm', 'none'], '--rpm none is for token update'],
    [['token', 'create', '--owner', 'x', '--budget-usd', '0'], '--budget-usd must be US dollars from 0.000001 to 10^9'],
    [['token', 'create', '--owner', 'x', '--budget-usd', '$25'], 'such as 25 or 0.50, got "$25"'],
    [['token', 'create', '--owner', 'x', '--budget-usd', '0.0000001'], '--budget-usd must be US dollars'],
    [['token', 'create', '--owner', 'x', '--budget-usd', '2000000000'], '--budget-usd must be US dollars'],
    [['token', 'create', '--owner', 'x', '--budget-usd', 'none'], '--budget-usd none is for token update'],
    [['token', 'update', 'tok_1', '--budget-usd', '-1'], 'such as 25 or 0.50, or none, got "-1"'],
    [['token', 'create', '--owner', 'x', '--models', 'a,,b'], '--models must be model names'],
    [['token', 'create', '--owner', 'x', '--expires', 'soon'], '--expires must be 30d, 12h, 45m, a date'],
    [['token', 'update', 'tok_1'], 'nothing to change'],
    [['token', 'update', 'tok_1', '--cost-header', 'yes'], '--cost-header must be on or off, got "yes"'],
    [['token', 'update', '--rpm', '5'], 'token update needs a token id'],
    [['usage', '--by', 'color'], '--by must be one or more of'],
    [['usage', '--from', 'yesterday'], '--from must be a date'],
    [['migrate', '--dry-run'], "Unknown option '--dry-run'"],
    [['serve', '--workers'], "'--workers <value>' argument missing"],
    [['serve', '--workers', 'many'], '--workers must be a positive whole number'],
    [['serve', '--port', 'http'], '--port must be a port number from 0 to 65535, got "http"'],
    [['serve', '--port', '70000'], '--port must be a port number from 0 to 65535, got "70000"'],
    [['serve', '--port', '-1'], '--port must be a port number from 0 to 65535, got "-1"'],
    [['token', 'create', '--owner', 'x', '--rpm', '-5'], '--rpm must be a whole number from 1 to 10^12, got "-5"'],
    [
      ['token', 'update', 'tok_1', '--tpm', '-0.5'],
      '--tpm must be a whole number from 1 to 10^12, or none, got "-0.5"',
    ],
    [['token', 'create', '--owner', 'x', '--scope', 'chat,chat'], 'scope "chat" is listed twice'],
    [['token', 'create', '--owner', 'x', '--expires', '2020-01-01'], '--expires 2020-01-01 is in the past'],
    [['token', 'create', '--owner', 'x', '--expires', '0d'], '--expires must be 30d, 12h, 45m, a date'],
    [['dance'], 'unknown command "dance"'],
  ])('%p is a usage error: %s', (argv, message) => {
    expect(() => parse(argv)).toThrow(UsageError)
    expect(() => parse(argv)).toThrow(message)
  })
})

describe('the trellis process: a bad invocation is exit 2 with a usage line, before any database is opened', () => {
  const root = mkdtempSync(join(tmpdir(), 'trellis-cli-'))
  const dataDir = join(root, 'data')
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  test.each([
    [['token', 'create', '--owner', 'alice', '--scopes', 'admin'], 'Usage: trellis token create'],
    [['token', 'create', '--owner', '--scope', 'chat'], 'Usage: trellis token create'],
    [['token', 'revoke', 'tok_1', '--yes'], 'Usage: trellis token revoke'],
    [['migrate', '--now'], 'Usage: trellis migrate'],
    [['serve', '--wrkers', '2'], 'Usage: trellis [serve]'],
  ])('%p', async (argv, usageLine) => {
    // A database opened by mistake would create files in dataDir; it must stay empty.
    const result = await runCli(argv, { TRELLIS_DATA_DIR: dataDir })
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain(usageLine)
    expect(result.stderr).not.toContain('    at ')
    expect(existsSync(dataDir) ? readdirSync(dataDir) : []).toEqual([])
  })

  test('token --help lists the token commands and exits 0', async () => {
    const result = await runCli(['token', '--help'], { TRELLIS_DATA_DIR: dataDir })
    expect(result.code).toBe(0)
    for (const line of ['trellis token create', 'trellis token update', 'trellis token list', 'trellis token revoke'])
      expect(result.stdout).toContain(line)
  })

  test('serve --help names the environment variables a first start needs', async () => {
    const result = await runCli(['serve', '--help'], { TRELLIS_DATA_DIR: dataDir })
    expect(result.code).toBe(0)
    for (const name of ['--port', 'PORT', 'HOST', 'DATABASE_URL', 'TRELLIS_DATA_DIR', 'WORKERS', 'LOG_LEVEL'])
      expect(result.stdout).toContain(name)
  })

  test.each([
    [['token', 'revoke', 'tok_AbCdEfGhIjKl']],
    [['token', 'list']],
    [['token', 'update', 'tok_AbCdEfGhIjKl', '--rpm', '5']],
    [['usage']],
  ])('%p where no database was ever made says so, and makes none', async (argv) => {
    const result = await runCli(argv, { TRELLIS_DATA_DIR: dataDir })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`there is no database in ${dataDir} yet`)
    expect(existsSync(dataDir)).toBe(false)
  })

  test("token revoke --help prints that command's usage and exits 0 without opening the database", async () => {
    const result = await runCli(['token', 'revoke', '--help'], { TRELLIS_DATA_DIR: dataDir })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('trellis token revoke ID')
    expect(existsSync(dataDir)).toBe(false)
  })
})
