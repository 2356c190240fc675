import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { type PushIo, runDocsPush } from '../../src/cli/docs-push'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes, which take several times as long beside a parallel run
// (`bun test --parallel=2`, .ci/run); the CLI mistakes test took 12 s there.
setDefaultTimeout(90_000)

/**
 * `trellis docs push` against the real app listening on an ephemeral port: in process (captured
 * output) for the behaviour, and once as a real child process for the wiring.
 */

const REPO = join(import.meta.dir, '../..')
const DOCS_JSON = JSON.stringify(
  { name: 'Acme', navigation: [{ group: 'Start', pages: ['index', 'plants/overview'] }] },
  null,
  2,
)

let t: TestApp
let token: string
let dir: string

beforeAll(async () => {
  t = await makeTestApp({ transport: 'listening server' })
  token = await t.tokenFor('pusher', ['docs:write'])
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'trellis-docs-push-'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

/** Writes `files` (relative path → text or bytes) under the test's folder. */
async function layout(files: Record<string, string | Uint8Array>) {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true })
    await writeFile(join(dir, name), content)
  }
}

async function push(args: string[], env: Record<string, string | undefined> = {}) {
  let stdout = ''
  let stderr = ''
  const io: PushIo = { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), env }
  const code = await runDocsPush(args, io)
  return { code, stdout, stderr, lines: stdout.trimEnd().split('\n') }
}

const pageText = async (path: string) => (await fetch(`${t.origin}/docs/pages/${path}`)).text()

describe('trellis docs push', () => {
  test('uploads docs.json first, then the pages navigation names or they link to, in path order, then a summary; exit 0', async () => {
    await layout({
      'docs.json': DOCS_JSON,
      'index.mdx': '---\ntitle: Welcome\n---\n# Welcome\n',
      'plants/overview.md': 'See [watering](care/watering) and [the repo](https://github.com/acme).\n',
      'plants/care/watering.MDX': '# Watering\n',
      'drafts/unlisted.mdx': '# Named nowhere, linked from nowhere\n',
      'README.md': '# About this repository\n',
      'AGENTS.md': '# For coding agents\n',
      'snippets/note.mdx': 'A snippet, imported by pages\n',
      'snippets/badge.jsx': 'export const Badge = ({ label }) => <span>{label}</span>\n',
      'components.jsx': 'export const NotASnippet = () => <span />\n',
      'logo.svg': '<svg/>',
      'node_modules/pkg/readme.md': '# not a page\n',
      '.github/contributing.md': '# not a page\n',
    })
    const result = await push([dir, '--url', t.origin!, '--token', token])
    expect(result.stderr).toBe('')
    expect(result.lines).toEqual([
      expect.stringMatching(/^docs\.json: stored \(revision \d+\)$/),
      'index.mdx: created (/docs/pages/index revision 1)',
      'plants/care/watering.MDX: created (/docs/pages/plants/care/watering revision 1)',
      'plants/overview.md: created (/docs/pages/plants/overview revision 1)',
      // Regression (tests/e2e/mintlify-repositories.test.ts): snippets were not pushed, so imports rendered nothing.
      'snippets/badge.jsx: created (/docs/pages/snippets/badge.jsx revision 1)',
      'snippets/note.mdx: created (/docs/pages/snippets/note revision 1)',
      'logo.svg: created (/docs/assets/logo.svg)',
      'files: 1 stored, 0 unchanged, 0 skipped, 0 failed',
      `pushed ${dir} to ${t.origin}: 6 stored, 0 unchanged, 0 skipped, 0 failed`,
    ])
    expect(result.code).toBe(0)
    expect(await pageText('index')).toBe('---\ntitle: Welcome\n---\n# Welcome\n')
    expect(await pageText('plants/care/watering')).toBe('# Watering\n')
    expect(await pageText('snippets/note')).toBe('A snippet, imported by pages\n')
    for (const unpublished of ['readme', 'README', 'AGENTS', 'drafts/unlisted', 'components.jsx', 'components'])
      expect((await fetch(`${t.origin}/docs/pages/${unpublished}`)).status).toBe(404)
    expect((await (await fetch(`${t.origin}/docs.json`)).json()).name).toBe('Acme')

    // Pushed again, with one page changed: the others are unchanged and add no revision.
    await writeFile(join(dir, 'plants/overview.md'), 'Again: see [watering](/plants/care/watering.mdx).\n')
    const again = await push([dir], { TRELLIS_URL: `${t.origin}/`, TRELLIS_TOKEN: token })
    expect(again.lines.slice(1)).toEqual([
      'index.mdx: unchanged (/docs/pages/index revision 1)',
      'plants/care/watering.MDX: unchanged (/docs/pages/plants/care/watering revision 1)',
      'plants/overview.md: stored (/docs/pages/plants/overview revision 2)',
      'snippets/badge.jsx: unchanged (/docs/pages/snippets/badge.jsx revision 1)',
      'snippets/note.mdx: unchanged (/docs/pages/snippets/note revision 1)',
      'logo.svg: unchanged',
      'files: 0 stored, 1 unchanged, 0 skipped, 0 failed',
      `pushed ${dir} to ${t.origin}: 2 stored, 4 unchanged, 0 skipped, 0 failed`,
    ])
    expect(again.code).toBe(0)
  })

  test('files whose names are not page paths are skipped and reported; failed uploads say why and make the exit code 1', async () => {
    await layout({
      'good.md': '# Good\n',
      'bad?name.mdx': '# A question mark\n',
      'pages/intro.md': '# Reserved\n',
      'broken.mdx': '---\ntitle: [1, 2]\n---\n',
      'latin1.md': new Uint8Array([0x23, 0x20, 0xe9, 0x0a]),
    })
    const result = await push([dir, '--url', t.origin!, '--token', token])
    expect(result.lines).toEqual([
      'bad?name.mdx: skipped: page path "bad?name" contains "?"; segments may not hold control characters or any of \\ ? # % " < > | *',
      'pages/intro.md: skipped: page path "pages/intro" begins with the segment "pages", which is reserved: /docs/pages is the pages API, so the site could not show it',
      'broken.mdx: failed (400): front matter line 2: title: expected a string, got a list',
      'good.md: created (/docs/pages/good revision 1)',
      'latin1.md: failed (400): request body is not valid UTF-8',
      `pushed ${dir} to ${t.origin}: 1 stored, 0 unchanged, 2 skipped, 2 failed`,
    ])
    expect(result.code).toBe(1)
  })

  test('mint.json is pushed as docs.json when there is no docs.json', async () => {
    await layout({ 'mint.json': DOCS_JSON.replace('Acme', 'Minty'), 'a.md': '# A\n' })
    const result = await push([dir, '--url', t.origin!, '--token', token])
    expect(result.lines[0]).toMatch(/^mint\.json: stored \(revision \d+\)$/)
    expect((await (await fetch(`${t.origin}/docs.json`)).json()).name).toBe('Minty')
    expect(result.code).toBe(0)
  })

  test('a refused docs.json stops the push: its errors with their positions, and no page is stored', async () => {
    await layout({ 'docs.json': '{ "name": "Acme" }', 'solo.md': '# Solo\n' })
    const result = await push([dir, '--url', t.origin!, '--token', token])
    expect(result.lines).toEqual([
      expect.stringMatching(
        /^docs\.json: failed \(400\): docs\.json is invalid: 1 error; the first is at line 1, column 1/,
      ),
      expect.stringMatching(/^ {2}docs\.json:1:1: /),
      'pushed nothing else: docs.json was refused, and the pages depend on its navigation',
    ])
    expect(result.code).toBe(1)
    expect((await fetch(`${t.origin}/docs/pages/solo`)).status).toBe(404)
  })

  test('a current-shape docs.json with $ref includes: resolved relative to the file before it is sent', async () => {
    await layout({
      'docs.json': JSON.stringify({
        theme: 'mint',
        name: 'Included',
        colors: { primary: '#16A34A' },
        navigation: {
          tabs: [{ tab: 'Guides', groups: [{ group: 'Start', pages: ['start'] }] }, { $ref: 'nav/api.json' }],
        },
      }),
      'nav/api.json': JSON.stringify({ tab: 'API', pages: ['api/intro'] }),
      'start.mdx': '# Start\n',
      'api/intro.mdx': '# API\n',
    })
    const result = await push([dir, '--url', t.origin!, '--token', token])
    expect(result.code).toBe(0)
    expect(result.lines.slice(1, 3)).toEqual([
      'api/intro.mdx: created (/docs/pages/api/intro revision 1)',
      'start.mdx: created (/docs/pages/start revision 1)',
    ])
    const stored = await (await fetch(`${t.origin}/docs.json`)).json()
    expect(stored.navigation.tabs[1]).toEqual({ tab: 'API', pages: ['api/intro'] })
  })

  test('an include that cannot be resolved stops the push before anything is sent', async () => {
    await layout({
      'docs.json': JSON.stringify({
        theme: 'mint',
        name: 'X',
        colors: { primary: '#000' },
        navigation: { $ref: '../up.json' },
      }),
      'a.mdx': '# A\n',
    })
    const result = await push([dir, '--url', t.origin!, '--token', token])
    expect(result.lines[0]).toBe(
      'docs.json: failed: docs.json: $ref "../up.json" points outside the folder of docs.json',
    )
    expect(result.code).toBe(1)
  })

  test('a token without docs:write: every upload fails with 403', async () => {
    await layout({ 'a.md': '# A\n', 'b.md': '# B\n' })
    const reader = await t.tokenFor('reader', ['chat'])
    const result = await push([dir, '--url', t.origin!, '--token', reader])
    expect(result.lines.slice(0, 2)).toEqual([
      expect.stringMatching(/^a\.md: failed \(403\): .*docs:write/),
      expect.stringMatching(/^b\.md: failed \(403\)/),
    ])
    expect(result.code).toBe(1)
  })

  test('a server that does not answer: every upload fails, naming the error; exit 1', async () => {
    await layout({ 'a.md': '# A\n' })
    const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
    const closed = `http://127.0.0.1:${probe.port}`
    probe.stop(true)
    const result = await push([dir, '--url', closed, '--token', token])
    expect(result.lines[0]).toStartWith(`a.md: failed: `)
    expect(result.lines[0]).toContain(`(PUT ${closed}/docs/pages/a)`)
    expect(result.code).toBe(1)
  })

  const BAD_INVOCATIONS: [string, (dir: string) => string[], Record<string, string>, string][] = [
    ['no folder', () => [], { TRELLIS_TOKEN: 'trl_x' }, 'missing the folder to push'],
    ['two folders', (d) => [d, d], { TRELLIS_TOKEN: 'trl_x' }, 'push one folder at a time'],
    ['an unknown option', (d) => [d, '--force'], { TRELLIS_TOKEN: 'trl_x' }, "Unknown option '--force'"],
    [
      '--url without its value',
      (d) => [d, '--url'],
      { TRELLIS_TOKEN: 'trl_x' },
      "Option '--url <value>' argument missing",
    ],
    ['no token at all', (d) => [d], {}, 'needs a token with the docs:write scope: --token TOKEN or TRELLIS_TOKEN'],
    [
      'a URL that is not http',
      (d) => [d, '--url', 'ftp://host'],
      { TRELLIS_TOKEN: 'trl_x' },
      '--url must be an http:// or https:// URL, got "ftp://host"',
    ],
    [
      'a folder that does not exist',
      (d) => [join(d, 'missing')],
      { TRELLIS_TOKEN: 'trl_x' },
      'missing is not a folder',
    ],
    ['a file, not a folder', (d) => [join(d, 'file.md')], { TRELLIS_TOKEN: 'trl_x' }, 'file.md is not a folder'],
    [
      'a folder with nothing to push',
      (d) => [join(d, 'empty')],
      { TRELLIS_TOKEN: 'trl_x' },
      'found nothing to push under',
    ],
  ]
  test.each(BAD_INVOCATIONS)(
    'bad invocation, %s: exit 2 with the usage on stderr, nothing sent',
    async (_case, args, env, message) => {
      await layout({ 'file.md': '# A\n', 'empty/notes.txt': 'not markdown' })
      const result = await push(args(dir), env)
      expect(result.code).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr).toContain(message)
      expect(result.stderr).toContain('usage: trellis docs push <dir> [--url URL] [--token TOKEN]')
    },
  )

  test('a real process: `trellis docs push` reads TRELLIS_URL and TRELLIS_TOKEN, and `trellis docs` names both commands', async () => {
    await layout({ 'process.md': '# From a process\n' })
    const child = Bun.spawn(['bun', 'src/cli/main.ts', 'docs', 'push', dir], {
      cwd: REPO,
      stdout: 'pipe',
      stderr: 'pipe',
      env: { ...process.env, TRELLIS_URL: t.origin!, TRELLIS_TOKEN: token },
    })
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
    expect(stdout).toContain('process.md: created (/docs/pages/process revision 1)')
    expect(await pageText('process')).toBe('# From a process\n')

    const wrong = Bun.spawnSync(['bun', 'src/cli/main.ts', 'docs', 'publish'], {
      cwd: REPO,
      stdout: 'pipe',
      stderr: 'pipe',
    })
    expect(wrong.exitCode).toBe(2)
    expect(wrong.stderr.toString()).toContain('docs: expected "docs validate FILE" or "docs push DIR"')
  })
})
