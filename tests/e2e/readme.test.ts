import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SETUP_TIMEOUT } from '../helpers/app'
import { ROOT, type RunningServer, startServer } from '../helpers/process'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/**
 * The README's walkthrough as a newcomer meets it: its ```sh blocks, taken from README.md
 * itself, run in order as one shell script against a real `bun start` in a fresh directory
 * (a copy of the project with its default ./data). Two things are filled in, as a reader
 * would: the admin token the server printed, and the port it listens on. Every curl fails
 * the script on an HTTP error, so a command that stopped working fails the test.
 */

const PLACEHOLDER = 'export ADMIN_TOKEN=trl_...'

function walkthroughBlocks(readme: string): string[] {
  const start = readme.indexOf('\n## Walkthrough')
  const end = readme.indexOf('\n## ', start + 1)
  const section = readme.slice(start, end)
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!)
}

let dir: string
let server: RunningServer
let adminToken: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trellis-readme-'))
  for (const entry of ['package.json', 'bunfig.toml', 'tsconfig.json', 'src', 'examples', 'drizzle'])
    cpSync(join(ROOT, entry), join(dir, entry), { recursive: true })
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  // `bun start` as the README says, with its defaults: the embedded database in ./data.
  server = await startServer({ PORT: '0', HOST: '127.0.0.1' }, ['bun', 'start'], dir)
  const printed = server.output.join('\n').match(/^\s+(trl_[A-Za-z0-9_-]+)$/m)
  adminToken = printed![1]!
}, SETUP_TIMEOUT)

afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
}, SETUP_TIMEOUT)

test(
  'the walkthrough runs as written, in order, against bun start, and does what it says',
  async () => {
    const blocks = walkthroughBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'))
    expect(blocks.length).toBeGreaterThanOrEqual(3)
    const script = blocks.join('\n')
    expect(script.split(PLACEHOLDER).length).toBe(2)
    const port = new URL(server.url).port
    const filled = script
      .replace(PLACEHOLDER, `export ADMIN_TOKEN=${adminToken}`)
      .replaceAll('localhost:3000', `127.0.0.1:${port}`)
    // A failing HTTP status fails the step (the README's lines use -s, which hides it).
    const prelude = 'set -euo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n'
    const child = Bun.spawn(['bash', '-c', prelude + filled], {
      cwd: dir,
      stdout: 'pipe',
      stderr: 'pipe',
      env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? dir },
    })
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    expect({ code, stderr }).toEqual({ code: 0, stderr: expect.any(String) })

    // The create answers 200 with the contract's body and a Location naming the assigned id.
    expect(stdout).toMatch(
      /HTTP\/1\.1 200[\s\S]*?location: \/plants\/\d+[\s\S]*?\{"name":"Monstera","tag":"tropical"\}/i,
    )
    expect(stdout).toContain('{"name":"Ficus"}')
    expect(stdout).toMatch(/HTTP\/1\.1 204/)
    // The stream ends properly, and the docs.json example is valid, stored, and listed.
    expect(stdout).toContain('data: [DONE]')
    expect(stdout).toContain('examples/greenhouse/docs.json: valid, 0 errors, 0 warnings')
    expect(stdout).toContain('"valid":true')
    // docs push stored the example and its pages, and DELETE went back to the built-in site.
    expect(stdout).toMatch(
      /pushed examples\/greenhouse to http:\/\/127\.0\.0\.1:\d+: 9 stored, 0 unchanged, 0 skipped, 0 failed/,
    )
    expect(stdout).toMatch(/"revision":1[^}]*"author":"dev"/)
    expect(stdout).toMatch(/"revision":2[^}]*"author":"dev"[^]*"name":"Trellis"/)
    expect(server.errors.join('\n')).not.toContain('"level":"error"')
  },
  SETUP_TIMEOUT,
)

/**
 * How each other code block of the README is run. A block is matched by a line it holds; one that no row matches
 * fails the test, so a new block must say how it is checked. `server`: against the walkthrough's server, with TOKEN
 * and ADMIN_TOKEN set; `cli`: the CLI alone, on a database of its own (the server holds ./data); `ts`: as a script
 * with Bun, against the server; `elsewhere`: run by the named test, which builds or ships what the block needs.
 */
const BLOCK_RUNS: [line: string, run: 'server' | 'cli' | 'ts' | { elsewhere: string }][] = [
  ['bun install && bun start', { elsewhere: '.ci/run (it is the suite)' }],
  // "Testing with Trellis": the examples are test files of a project of their own; the first block is the calls they make.
  ["from 'trellis/testing'", { elsewhere: 'tests/e2e/readme-testing.test.ts' }],
  ['bun run trellis token create --owner alice --scope plants:read', 'cli'],
  ['ID=$(curl -s -X POST localhost:3000/admin/tokens', 'server'],
  ['curl -sN localhost:3000/v1/chat/completions', 'server'],
  ["import OpenAI from 'openai'", 'ts'],
  ["import Anthropic from '@anthropic-ai/sdk'", 'ts'],
  ['bun run trellis docs validate examples/greenhouse/docs.json   #', 'cli'],
  ['TRELLIS_TOKEN=$ADMIN_TOKEN bun run trellis docs push examples/greenhouse --url', 'server'],
  ['bun run trellis config check examples/trellis.yaml', 'cli'],
  ['curl -s -X POST localhost:3000/admin/config/reload', 'server'],
  ['bun run build                                   #', { elsewhere: 'tests/e2e/binary.test.ts' }],
  ['docker build -t trellis .', { elsewhere: '.ci/ship' }],
  ['TRELLIS_TOKEN=$TOKEN codex exec', { elsewhere: 'tests/e2e/coding-agents.test.ts' }],
  ['bun run build:deno', { elsewhere: 'tests/e2e/runtimes.test.ts' }],
]

/** Every ```sh and ```ts block outside the walkthrough, with its language. */
function otherBlocks(readme: string): { language: string; text: string }[] {
  const start = readme.indexOf('\n## Walkthrough')
  const end = readme.indexOf('\n## ', start + 1)
  const rest = readme.slice(0, start) + readme.slice(end)
  return [...rest.matchAll(/```(sh|ts)\n([\s\S]*?)```/g)].map((match) => ({ language: match[1]!, text: match[2]! }))
}

test(
  'every other code block of the README runs as written, or names the test that runs it',
  async () => {
    const port = new URL(server.url).port
    const local = (text: string) => text.replaceAll('localhost:3000', `127.0.0.1:${port}`)
    const token = await (
      await fetch(`${server.url}/admin/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ owner: 'reader', scopes: ['plants:read', 'plants:write', 'chat'] }),
      })
    ).json()
    const cliData = mkdtempSync(join(tmpdir(), 'trellis-readme-cli-'))
    const env = {
      PATH: process.env.PATH!,
      HOME: process.env.HOME ?? dir,
      TOKEN: token.token,
      ADMIN_TOKEN: adminToken,
      TRELLIS_DATA_DIR: join(cliData, 'data'),
    }
    const failures: string[] = []
    try {
      for (const block of otherBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'))) {
        const row = BLOCK_RUNS.find(([line]) => block.text.includes(line))
        if (!row) {
          failures.push(`a block no row says how to run:\n${block.text}`)
          continue
        }
        const run = row[1]
        if (typeof run === 'object') continue
        const command =
          run === 'ts'
            ? ['bun', writeScript(dir, local(block.text))]
            : ['bash', '-c', `set -euo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n${local(block.text)}`]
        const child = Bun.spawn(command, { cwd: dir, stdout: 'pipe', stderr: 'pipe', env })
        const [stdout, stderr, code] = await Promise.all([
          new Response(child.stdout).text(),
          new Response(child.stderr).text(),
          child.exited,
        ])
        if (code !== 0) failures.push(`exit ${code} from:\n${block.text}\n${stdout}\n${stderr}`)
      }
    } finally {
      rmSync(cliData, { recursive: true, force: true })
    }
    expect(failures).toEqual([])
  },
  SETUP_TIMEOUT,
)

let scripts = 0
/** A ```ts block as a script file in the copy (whose node_modules it imports from). */
function writeScript(dir: string, text: string): string {
  const path = join(dir, `readme-block-${++scripts}.ts`)
  writeFileSync(path, text)
  return path
}
