import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../helpers/process'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/*
 * trellis/testing as another project uses it: a project of its own in a temporary directory (outside this checkout)
 * adds Trellis as a dev dependency by path, from the package cache where it can (`--prefer-offline`: a fresh machine's
 * cache holds the packages `bun install --frozen-lockfile` fetched but not their metadata, which `--offline` needs, so
 * what is missing is fetched from the registry), imports `trellis/testing`, and runs its
 * own tests: `bun test`, then Node's test runner on the Node build of the entry (what `bun run build:testing` makes).
 */

let project: string

const run = async (command: string[], cwd = project) => {
  const child = Bun.spawn(command, {
    cwd,
    env: { ...process.env, NO_PROXY: '127.0.0.1,localhost', DATABASE_URL: '' },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { code, output: `${stdout}\n${stderr}` }
}

const CONSUMER_TEST = `
import { expect, test } from 'bun:test'
import { startTrellis } from 'trellis/testing'

test('my app talks to Trellis', async () => {
  await using trellis = await startTrellis({ models: ['gpt-4o-mini'] })
  const response = await fetch(trellis.openaiBaseURL + '/chat/completions', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + (await trellis.token()), 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'ping from my app' }] }),
  })
  expect(response.status).toBe(200)
  expect((await response.json()).choices[0].message.content).toBe('ping from my app')
  expect(trellis.requests().map((request) => request.body.model)).toEqual(['gpt-4o-mini'])
  expect((await trellis.usage()).map((row) => row.model)).toEqual(['gpt-4o-mini'])
})
`

const NODE_TEST = `
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startTrellis } from 'trellis/testing'

test('my app talks to Trellis under node', async () => {
  const trellis = await startTrellis()
  try {
    const response = await fetch(trellis.openaiBaseURL + '/chat/completions', {
      method: 'POST',
      headers: { authorization: 'Bearer ' + (await trellis.token()), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'ping from node' }], stream: true }),
    })
    assert.equal(response.status, 200)
    assert.match(await response.text(), /data: \\[DONE\\]/)
    assert.deepEqual((await trellis.usage()).map((row) => row.streamed), [true])
  } finally {
    await trellis.close()
  }
})
`

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'trellis-consumer-'))
  mkdirSync(join(project, 'tests'))
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'my-llm-app', private: true, type: 'module', devDependencies: { trellis: `file:${ROOT}` } }),
  )
  writeFileSync(join(project, 'tests/app.test.ts'), CONSUMER_TEST)
  writeFileSync(join(project, 'tests/node.test.mjs'), NODE_TEST)
  const installed = await run(['bun', 'install', '--prefer-offline'])
  expect({ code: installed.code, output: installed.code === 0 ? '' : installed.output }).toEqual({
    code: 0,
    output: '',
  })
}, 120_000)

// Hundreds of installed packages: removing them takes seconds on a busy machine.
afterAll(() => rmSync(project, { recursive: true, force: true }), 60_000)

test('the project runs its own `bun test` against trellis/testing', async () => {
  // Bun's own 5 s per test: the first test to start a server (a fresh PGlite) takes 1-2 s alone and 7 s beside a busy
  // suite. A project whose tests start servers raises it, as this one does on its command line.
  const { code, output } = await run(['bun', 'test', '--timeout', '30000', 'tests/app.test.ts'])
  expect(output).toContain('1 pass')
  expect(code).toBe(0)
}, 120_000)

test("the project runs Node's test runner against the Node build of trellis/testing", async () => {
  const built = await run(['bun', 'run', 'build:testing'], join(project, 'node_modules/trellis'))
  expect(built.code).toBe(0)
  const { code, output } = await run(['node', '--test', 'tests/node.test.mjs'])
  expect(output).toContain('# pass 1')
  expect(code).toBe(0)
}, 120_000)
