import { afterAll, beforeAll, expect, test } from 'bun:test'
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SETUP_TIMEOUT } from '../helpers/app'
import { ROOT, type RunningServer, startServer } from '../helpers/process'

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
    expect(stdout).toContain('examples/docs.json: valid, 0 errors, 0 warnings')
    expect(stdout).toContain('"valid":true')
    expect(stdout).toMatch(/"revision":1[^}]*"author":"dev"/)
    expect(server.errors.join('\n')).not.toContain('"level":"error"')
  },
  SETUP_TIMEOUT,
)
