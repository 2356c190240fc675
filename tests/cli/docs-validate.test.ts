import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runDocsValidate, type CliIo } from '../../src/cli/docs-validate'
import { CORPUS_DIR, corpusFiles } from '../docs-config/corpus'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes, which take several times as long beside a parallel run
// (`bun test --parallel=2`, .ci/run); the CLI mistakes test took 12 s there.
setDefaultTimeout(90_000)

const REPO = join(import.meta.dir, '../..')
const VALID = '{\n  "name": "Acme",\n  "navigation": [{ "group": "A", "pages": ["a"] }]\n}\n'
const INVALID = [
  '{',
  '  "name": "Acme",',
  '  "navigation": [{ "group": "A", "pages": ["a"] }],',
  '  "favicn": "/favicon.svg",',
  '  "colors": { "primary": "red" },',
  '  "footerSocials": { "twitr": "https://twitter.com/acme" }',
  '}',
].join('\n')
const WARNING_ONLY = VALID.replace('"name"', '"favicn": "/f.svg",\n  "name"')

let dir = ''
const file = (name: string) => join(dir, name)

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'trellis-docs-cli-'))
  await writeFile(file('valid.json'), VALID)
  await writeFile(file('docs.json'), INVALID)
  await writeFile(file('warning.json'), WARNING_ONLY)
  await writeFile(file('broken.json'), '{ "name": "Acme", }')
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** Runs the command in-process with captured output. */
async function run(args: string[], stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    stdin: async () => stdin,
  }
  const code = await runDocsValidate(args, io)
  return { code, stdout, stderr }
}

describe('trellis docs validate (in process)', () => {
  test('a valid file: exit 0 and a one-line summary', async () => {
    const result = await run([file('valid.json')])
    expect(result).toEqual({ code: 0, stdout: `${file('valid.json')}: valid, 0 errors, 0 warnings\n`, stderr: '' })
  })

  test('an invalid file: compiler-style lines in document order, then the summary; exit 1', async () => {
    const result = await run([file('docs.json')])
    const name = file('docs.json')
    expect(result.code).toBe(1)
    expect(result.stdout.split('\n')).toEqual([
      `${name}:4:3: warning favicn: unknown property; it is kept but not checked (did you mean "favicon"?)`,
      `${name}:5:26: error colors.primary: "red" is not a hex colour; use #RGB or #RRGGBB such as "#16A34A"`,
      `${name}:6:22: error footerSocials.twitr: "twitr" is not an allowed key of footerSocials; use one of x, website, facebook, youtube, discord, slack, github, linkedin, instagram, hacker-news, medium, telegram, twitter, x-twitter, earth-americas, bluesky, threads, reddit, podcast (did you mean "twitter"?)`,
      `${name}: invalid, 2 errors, 1 warning`,
      '',
    ])
  })

  test('warnings alone keep the exit code 0; --strict makes them errors and exits 1', async () => {
    const relaxed = await run([file('warning.json')])
    expect(relaxed.code).toBe(0)
    expect(relaxed.stdout).toContain(': warning favicn: unknown property')
    expect(relaxed.stdout).toEndWith('valid, 0 errors, 1 warning\n')
    const strict = await run(['--strict', file('warning.json')])
    expect(strict.code).toBe(1)
    expect(strict.stdout).toContain(': error favicn: unknown property')
    expect(strict.stdout).toEndWith('invalid, 1 error, 0 warnings\n')
  })

  test('invalid JSON: one line with its position', async () => {
    const result = await run([file('broken.json')])
    expect(result.code).toBe(1)
    expect(result.stdout).toStartWith(`${file('broken.json')}:1:17: error invalid JSON: trailing comma before "}"`)
  })

  test('--json prints the validation result object', async () => {
    const result = await run([file('docs.json'), '--json'])
    expect(result.code).toBe(1)
    const printed = JSON.parse(result.stdout)
    expect(printed.valid).toBe(false)
    expect(printed.errors.map((issue: { path: string }) => issue.path)).toEqual([
      '/colors/primary',
      '/footerSocials/twitr',
    ])
    expect(printed.warnings[0]).toMatchObject({ path: '/favicn', line: 4, column: 3, suggestion: 'favicon' })
    const valid = JSON.parse((await run(['--json', file('valid.json')])).stdout)
    expect(valid.config.topAnchor).toEqual({ name: 'Documentation', icon: 'book-open', iconType: 'duotone' })
  })

  test('"-" reads standard input and names it <stdin>', async () => {
    const result = await run(['-'], '{ "name": 1, "navigation": [{ "group": "A", "pages": ["a"] }] }')
    expect(result.code).toBe(1)
    expect(result.stdout).toStartWith('<stdin>:1:11: error name: expected a string')
  })

  const BAD_INVOCATIONS: [string, string[], string][] = [
    ['no file', [], 'missing the file to validate'],
    ['two files', ['a.json', 'b.json'], 'validate one file at a time'],
    ['an unknown option', ['--fix', 'docs.json'], 'unknown option --fix'],
    ['a file that does not exist', ['/nonexistent/docs.json'], 'cannot read /nonexistent/docs.json: ENOENT'],
  ]
  test.each(BAD_INVOCATIONS)('bad invocation, %s: exit 2 with usage on stderr', async (_case, args, message) => {
    const result = await run(args)
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain(message)
    expect(result.stderr).toContain('usage: trellis docs validate <file|-> [--strict] [--json]')
  })
})

/** `bun src/cli/main.ts docs validate …` as a real child process. */
async function spawnCli(args: string[], stdin?: string) {
  const child = Bun.spawn(['bun', 'src/cli/main.ts', 'docs', 'validate', ...args], {
    cwd: REPO,
    stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin),
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, NO_COLOR: '1' },
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { code, stdout, stderr }
}

const LINE = /^(.+):(\d+):(\d+): (error|warning) (.+)$/

describe('trellis docs validate (a real process)', () => {
  test('valid, invalid, stdin and a bad invocation give 0, 1, 1 and 2', async () => {
    expect((await spawnCli([file('valid.json')])).code).toBe(0)
    const invalid = await spawnCli([file('docs.json')])
    expect(invalid.code).toBe(1)
    expect(invalid.stdout).toContain(`${file('docs.json')}:5:26: error colors.primary:`)
    const piped = await spawnCli(['-', '--json'], '{ "name": "Acme" }')
    expect(piped.code).toBe(1)
    expect(JSON.parse(piped.stdout).errors[0]).toMatchObject({ path: '/navigation', line: 1, column: 1 })
    const bad = await spawnCli([])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('usage: trellis docs validate')
  })

  test('the built-in default docs.json validates', async () => {
    const result = await spawnCli(['src/docs-config/default-docs.json'])
    expect(result).toMatchObject({ code: 0, stderr: '' })
  })

  test.each(corpusFiles())('corpus %s: exit 0 or 1, every line well-formed and inside the file', async (name, text) => {
    const path = join(CORPUS_DIR, name)
    const result = await spawnCli([path])
    expect(result.stderr).toBe('')
    const lines = result.stdout.trimEnd().split('\n')
    const summary = lines.pop() ?? ''
    expect(summary).toMatch(
      new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: (valid|invalid), \\d+ errors?, \\d+ warnings?$`),
    )
    expect(result.code).toBe(summary.includes(': valid,') ? 0 : 1)
    const fileLines = text.split('\n')
    for (const line of lines) {
      const match = LINE.exec(line)
      expect(match, line).not.toBeNull()
      const [, file, lineNumber, column] = match ?? []
      expect(file).toBe(path)
      expect(Number(lineNumber)).toBeLessThanOrEqual(fileLines.length)
      expect(Number(column)).toBeLessThanOrEqual((fileLines[Number(lineNumber) - 1] ?? '').length + 1)
    }
  })
})
