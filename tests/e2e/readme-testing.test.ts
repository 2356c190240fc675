import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { ROOT } from '../helpers/process'
import { namedExamples, testingSection } from '../testing/examples'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/**
 * The README's "Testing with Trellis" examples, as a reader copies them: every ```ts block that starts with
 * `// <path>.test.ts` and every ```yaml block that starts with `# <path>` is written to that path in a fresh project
 * directory, which then runs `bun test` on its own. The directory is inside this checkout, so `trellis/testing`
 * resolves to this package (a package may import itself by name) and the SDKs to its node_modules; `claude` is
 * found on PATH, as a user's would be.
 */

let project: string

beforeAll(() => {
  mkdirSync(join(ROOT, '.trellis-tmp'), { recursive: true })
  project = mkdtempSync(join(ROOT, '.trellis-tmp', 'readme-testing-'))
})

afterAll(() => rmSync(project, { recursive: true, force: true }))

test('every example of "Testing with Trellis" runs as written and passes', async () => {
  const examples = namedExamples(testingSection(readFileSync(join(ROOT, 'README.md'), 'utf8')))
  const tests = examples.filter((example) => example.path.endsWith('.test.ts'))
  expect(tests.map((example) => example.path)).toEqual([
    'tests/weather-agent.test.ts',
    'tests/retry.test.ts',
    'tests/claude-code.test.ts',
    'tests/langchain.test.ts',
    'tests/record-replay.test.ts',
  ])
  for (const example of examples) {
    mkdirSync(dirname(join(project, example.path)), { recursive: true })
    writeFileSync(join(project, example.path), example.text)
  }
  // The examples as written; only bun's 5 s per-test default is raised, for a shared two-core machine under load.
  const child = Bun.spawn(['bun', 'test', '--timeout', '30000'], {
    cwd: project,
    env: {
      ...process.env,
      PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`,
      NO_PROXY: '127.0.0.1,localhost',
      DATABASE_URL: '',
    },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  const output = `${stdout}\n${stderr}`
  expect({ code, passed: /\b(\d+) pass\b/.exec(output)?.[1], output: code === 0 ? '' : output }).toEqual({
    code: 0,
    passed: String(tests.length),
    output: '',
  })
}, 180_000)
