import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { planFiles } from '../../src/cli/docs-push-files'
import { type PushIo, runDocsPush } from '../../src/cli/docs-push'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * `trellis docs push` and the repository's files (issue #27 §2): tests/fixtures/docs-push-files is a small docs
 * repository with images, an author's logo and favicon at the paths of Trellis's built-in ones, an OpenAPI file a
 * navigation group names, and files Mintlify would not publish (node_modules, a dot-folder, package.json).
 */

const FIXTURE = join(import.meta.dir, '../fixtures/docs-push-files')
/** The lines about files (docs.json is the config, reported by the page half). */
const FILE_LINE = /^(?!docs\.json:)[^:]+\.(png|svg|yaml|json): /

let t: TestApp
let token: string
let dir: string

beforeAll(async () => {
  t = await makeTestApp({ transport: 'listening server' })
  token = await t.tokenFor('pusher', ['docs:write'])
  dir = await mkdtemp(join(tmpdir(), 'trellis-push-files-'))
  await cp(FIXTURE, dir, { recursive: true })
}, SETUP_TIMEOUT)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
  await t.close()
}, SETUP_TIMEOUT)

async function push(folder = dir) {
  let stdout = ''
  const io: PushIo = { stdout: (text) => void (stdout += text), stderr: (text) => void (stdout += text), env: {} }
  const code = await runDocsPush([folder, '--url', t.origin!, '--token', token], io)
  const lines = stdout.trimEnd().split('\n')
  return { code, lines, files: lines.filter((line) => FILE_LINE.test(line) || line.startsWith('files: ')) }
}

const site = (path: string) => fetch(`${t.origin}/docs/${path}`)

describe('trellis docs push: the files', () => {
  test('the plan: media, fonts and data files Mintlify publishes, not node_modules, dot-folders or tool files', async () => {
    const plan = await planFiles(FIXTURE)
    expect(plan.files.map((file) => file.file)).toEqual([
      'api/openapi.yaml',
      'favicon.svg',
      'images/diagram.svg',
      'images/logo.png',
      'logo/light.svg',
    ])
    expect(plan.skipped).toEqual([])
  })

  test('the first push uploads each file once (the OpenAPI file as one), in path order, and exits 0', async () => {
    const result = await push()
    expect(result.files).toEqual([
      'api/openapi.yaml: created as an OpenAPI document (/docs/assets/api/openapi.yaml)',
      'favicon.svg: created (/docs/assets/favicon.svg)',
      'images/diagram.svg: created (/docs/assets/images/diagram.svg)',
      'images/logo.png: created (/docs/assets/images/logo.png)',
      'logo/light.svg: created (/docs/assets/logo/light.svg)',
      'files: 5 stored, 0 unchanged, 0 skipped, 0 failed',
    ])
    expect(result.code).toBe(0)
  })

  test('the site serves them where pages and docs.json name them; the author’s logo and favicon, not the built-ins', async () => {
    const png = await site('images/logo.png')
    expect([png.status, png.headers.get('content-type')]).toEqual([200, 'image/png'])
    expect(await (await site('logo/light.svg')).text()).toContain('Greenhouse logo')
    expect(await (await site('favicon.svg')).text()).toContain('Greenhouse favicon')
    const intro = await (await site('intro')).text()
    expect(intro).toContain('<img alt="The logo" src="/docs/images/logo.png"')
    expect(intro).toContain('<img alt="How beds are laid out" src="/docs/images/diagram.svg"')
    expect(intro).toContain('<img class="logo logo-light" src="/docs/logo/light.svg"')
    expect(intro).toContain('<link rel="icon" href="/docs/favicon.svg">')
    expect(await (await site('guides/beds')).text()).toContain('src="/docs/images/diagram.svg"')
    for (const hidden of ['node_modules/pkg/icon.png', '.hidden/secret.png'])
      expect((await site(hidden)).status).toBe(404)
  })

  test('the group naming the OpenAPI file lists its operations, and their pages render', async () => {
    const intro = await (await site('intro')).text()
    expect(intro).toContain('href="/docs/api-reference/beds/read-a-bed"')
    const operation = await site('api-reference/beds/read-a-bed')
    expect(operation.status).toBe(200)
    expect(await operation.text()).toContain('<code>/beds/{bedId}</code>')
  })

  test('pushed again unchanged, no file is uploaded: each is compared by its SHA-256 first', async () => {
    const before = (await (await fetch(`${t.origin}/docs/assets`)).json()).files
    const result = await push()
    expect(result.files).toEqual([
      'api/openapi.yaml: unchanged',
      'favicon.svg: unchanged',
      'images/diagram.svg: unchanged',
      'images/logo.png: unchanged',
      'logo/light.svg: unchanged',
      'files: 0 stored, 5 unchanged, 0 skipped, 0 failed',
    ])
    const after = (await (await fetch(`${t.origin}/docs/assets`)).json()).files
    expect(after).toEqual(before)
  })

  test('a broken OpenAPI file fails with the server’s reason and exit code 1; a changed image is stored', async () => {
    await writeFile(join(dir, 'api/openapi.yaml'), 'openapi: 3.0.3\ninfo: {title: T}\npaths: {}\n')
    await writeFile(join(dir, 'images/logo.png'), new Uint8Array([1, 2, 3]))
    const result = await push()
    expect(result.files).toContain(
      'api/openapi.yaml: failed (400): api/openapi.yaml is not a usable OpenAPI document: info.version: missing, or not a string',
    )
    expect(result.files).toContain('images/logo.png: stored (/docs/assets/images/logo.png)')
    expect(result.code).toBe(1)
  })
})
