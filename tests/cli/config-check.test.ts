import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseCommandLine, UsageError } from '../../src/cli/command-line'
import { runCli } from '../helpers/process'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes, which take several times as long beside a parallel run
// (`bun test --parallel=2`, .ci/run); the CLI mistakes test took 12 s there.
setDefaultTimeout(90_000)

/** `trellis config check [FILE]` and `--config FILE`, run as a process as an operator runs them (issue #29 §2). */

let dir: string
const path = (name: string) => join(dir, name)

const VALID = `# yaml-language-server: $schema=../schemas/trellis.schema.json
providers:
  deepseek: { baseUrl: "https://api.deepseek.com/v1", apiKey: "\${DEEPSEEK_API_KEY}" }
models:
  deepseek-chat: [{ provider: deepseek, model: deepseek-chat }]
server: { port: 8080 }
`
const INVALID = `providers:
  deepseek: { baseURL: "https://api.deepseek.com/v1" }
models:
  deepseek-chat: [{ provider: deepsek, model: deepseek-chat }]
logLevel: loud
`

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'trellis-config-cli-'))
  writeFileSync(path('valid.yaml'), VALID)
  writeFileSync(path('invalid.yaml'), INVALID)
  writeFileSync(path('semantic.yaml'), INVALID.replace('baseURL', 'baseUrl').replace('loud', 'warn'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const KEY = { DEEPSEEK_API_KEY: 'sk-test' }

describe('trellis config check', () => {
  test('a valid file: exit 0, what it serves, and which variables override it', async () => {
    const result = await runCli(['config', 'check', path('valid.yaml')], { ...KEY, PORT: '9000' })
    expect(result).toEqual({
      code: 0,
      stdout:
        `${path('valid.yaml')}: valid; models deepseek-chat, echo, echo-reasoner; providers deepseek\n` +
        `note: PORT is set, and overrides server.port of ${path('valid.yaml')}\n`,
      stderr: '',
    })
  })

  test('an invalid file: exit 1, one compiler-style line per problem with did-you-mean, then a summary', async () => {
    const result = await runCli(['config', 'check', path('invalid.yaml')])
    const name = path('invalid.yaml')
    expect(result.code).toBe(1)
    expect(result.stdout.split('\n')).toEqual([
      `${name}:2:3: error providers.deepseek: baseUrl is required`,
      `${name}:2:15: error providers.deepseek.baseURL: unknown setting (did you mean "baseUrl"?)`,
      `${name}:5:11: error logLevel: "loud" is not one of debug, info, warn, error, silent`,
      `${name}: invalid, 3 errors`,
      '',
    ])
  })

  test('what the schema cannot say is checked too, where it is written', async () => {
    const result = await runCli(['config', 'check', path('semantic.yaml')])
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(
      `${path('semantic.yaml')}:4:31: error model 'deepseek-chat' uses provider 'deepsek', which is not under providers (echo, deepseek) (did you mean "deepseek"?)`,
    )
  })

  test('an unset ${VAR} is an error naming it and its line', async () => {
    const result = await runCli(['config', 'check', path('valid.yaml')])
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(
      `${path('valid.yaml')}:3:63: error providers.deepseek.apiKey: \${DEEPSEEK_API_KEY} names DEEPSEEK_API_KEY, which is unset or empty in the environment`,
    )
  })

  test('the file serve would read: --config, TRELLIS_CONFIG, or none', async () => {
    for (const [args, env] of [
      [['--config', path('valid.yaml'), 'config', 'check'], KEY],
      [['config', 'check', `--config=${path('valid.yaml')}`], KEY],
      [['config', 'check'], { ...KEY, TRELLIS_CONFIG: path('valid.yaml') }],
    ] as const) {
      const result = await runCli([...args], env)
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({
        args,
        code: 0,
        stdout: expect.stringContaining(`${path('valid.yaml')}: valid`),
      })
    }
    const none = await runCli(['config', 'check'])
    expect(none.code).toBe(0)
    expect(none.stdout).toBe(
      'no configuration file (--config, TRELLIS_CONFIG or ./trellis.yaml); the environment is valid: models echo, echo-reasoner\n',
    )
  })

  test('a bad variable: exit 1, naming it', async () => {
    const result = await runCli(['config', 'check', path('valid.yaml')], { ...KEY, PORT: 'eighty' })
    expect(result).toMatchObject({ code: 1, stdout: 'environment: error PORT must be a whole number, got "eighty"\n' })
  })

  test.each([
    [['config', 'check', 'no-such.yaml'], 'trellis config check: no-such.yaml does not exist'],
    [['config', 'check', 'a.yaml', 'b.yaml'], 'config check: unexpected argument "b.yaml"'],
    [['config', 'check', '--strict'], "config check: Unknown option '--strict'"],
    [['config', 'verify'], 'config: expected "config check [FILE]"'],
    [['config', 'check', '--config'], '--config needs a file'],
  ])('%p is a bad invocation: exit 2', async (argv, message) => {
    const result = await runCli(argv)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(message)
  })
})

describe('--config on the other commands', () => {
  test('serve with a file that does not validate: every problem, then nothing is started', async () => {
    const data = path('data')
    const result = await runCli(['serve', '--config', path('invalid.yaml')], { TRELLIS_DATA_DIR: data })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`${path('invalid.yaml')}:2:15: error providers.deepseek.baseURL: unknown setting`)
    expect(result.stderr).toContain(`trellis: ${path('invalid.yaml')} does not validate (3 errors); nothing was done`)
    expect(existsSync(data)).toBe(false)
  })

  test.each([[['token', 'list']], [['healthcheck']], [['usage']]])('%p reads the file given', async (argv) => {
    const result = await runCli([...argv, '--config', path('invalid.yaml')], { TRELLIS_DATA_DIR: path('none') })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`${path('invalid.yaml')}:5:11: error logLevel: "loud" is not one of`)
  })

  test.each([
    [['--config', 'x.yaml', 'token', 'list'], { name: 'token list', config: 'x.yaml' }],
    [['serve', '--config=x.yaml', '--port', '1'], { name: 'serve', port: '1', config: 'x.yaml' }],
    [['migrate'], { name: 'migrate' }],
  ])('%p parses', (argv, command) => {
    expect(parseCommandLine(argv, '0')).toEqual(command as never)
  })

  test.each([[['--config']], [['--config', '--port']], [['--config', 'a', '--config', 'b']]])(
    '%p is refused',
    (argv) => {
      expect(() => parseCommandLine(argv, '0')).toThrow(UsageError)
    },
  )
})
