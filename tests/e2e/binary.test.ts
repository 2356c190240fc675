import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pkg from '../../package.json' with { type: 'json' }
import { buildBinary } from '../helpers/binary'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/**
 * The compiled binary, exactly as `bun run build` makes it, copied alone into an empty
 * directory and run there: no node_modules, no sources, no drizzle/ folder. Everything it
 * needs (migrations, PGlite's wasm and data, the reference UI, the default docs.json)
 * must be inside it. Never skipped: this is what ships.
 */
let scratch = ''
let home = ''
const binary = () => join(home, 'trellis')

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'trellis-binary-'))
  home = join(scratch, 'empty')
  mkdirSync(home)
  copyFileSync(await buildBinary(join(scratch, 'build')), binary())
}, 180_000)

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true })
})

/** The binary's environment: nothing of the suite's database, the embedded PGlite in ./data. */
function env(extra: Record<string, string> = {}): Record<string, string | undefined> {
  const base: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: home,
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: '0',
  }
  return { ...base, ...extra }
}

async function run(args: string[], extra: Record<string, string> = {}) {
  const child = Bun.spawn([binary(), ...args], { cwd: home, env: env(extra), stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { stdout, stderr, code }
}

/** `trellis` with no arguments, waited on until it logs "listening" (with the port it got). */
async function serve() {
  const child = Bun.spawn([binary()], { cwd: home, env: env(), stdout: 'pipe', stderr: 'pipe' })
  const lines: string[] = []
  const stderr = new Response(child.stderr).text()
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader()
  let buffered = ''
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`the binary exited before listening:\n${lines.join('\n')}\n${buffered}\n${await stderr}`)
    buffered += value
    const parts = buffered.split('\n')
    buffered = parts.pop()!
    lines.push(...parts)
    const listening = parts.find((line) => line.includes('"msg":"listening"'))
    if (listening) {
      void (async () => {
        while (!(await reader.read()).done);
      })()
      return {
        child,
        url: (JSON.parse(listening).url as string).replace(/\/$/, ''),
        port: new URL(JSON.parse(listening).url).port,
        lines,
      }
    }
  }
  child.kill('SIGKILL')
  throw new Error(`the binary did not listen within 60 s:\n${lines.join('\n')}`)
}

describe('the compiled binary, alone in an empty directory', () => {
  test('the directory holds nothing but the binary', () => {
    expect(readdirSync(home)).toEqual(['trellis'])
  })

  test('--version prints the package version; --help lists every subcommand', async () => {
    expect(await run(['--version'])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' })
    const help = await run(['--help'])
    expect(help.code).toBe(0)
    for (const command of [
      'serve',
      '--workers',
      'migrate',
      'token create',
      'token list',
      'token revoke',
      'docs validate',
      'docs push',
      'healthcheck',
    ])
      expect(help.stdout).toContain(command)
  })

  test('migrate, token create|list|revoke and serve on the embedded PGlite in ./data; plants, the UI, docs.json and chat all answer', async () => {
    const migrated = await run(['migrate'])
    expect(migrated.stderr).toBe('')
    expect(migrated.stdout).toContain('applied 0000_init')
    expect(existsSync(join(home, 'data'))).toBe(true)

    const created = await run(['token', 'create', '--owner', 'alice', '--scope', 'plants:read,plants:write,chat'])
    expect(created.code).toBe(0)
    const token = created.stdout.match(/trl_[A-Za-z0-9_-]{43}/)?.[0]
    expect(token).toBeDefined()
    expect((await run(['token', 'list'])).stdout).toContain('\talice\tplants:read,plants:write,chat')
    const doomed = (await run(['token', 'create', '--owner', 'mallory'])).stdout.match(/created (tok_\S+)/)![1]
    expect((await run(['token', 'revoke', doomed])).code).toBe(0)
    const row = (await run(['token', 'list'])).stdout.split('\n').find((line) => line.startsWith(`${doomed}\t`))!
    const [, owner, , , , , , revokedAt] = row.split('\t')
    expect({ owner, revoked: revokedAt !== '-' && !Number.isNaN(Date.parse(revokedAt)) }).toEqual({
      owner: 'mallory',
      revoked: true,
    })

    const server = await serve()
    try {
      // A token existed already, so no development token is minted.
      expect(server.lines.join('\n')).not.toContain('development admin token')
      expect(server.lines.join('\n')).toContain('"database":"pglite"')
      expect(await (await fetch(`${server.url}/health`)).json()).toEqual({ status: 'ok' })
      expect(await (await fetch(`${server.url}/ready`)).json()).toEqual({ status: 'ready', database: 'pglite' })

      const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
      const plant = await fetch(`${server.url}/plants`, {
        method: 'POST',
        headers: auth,
        body: '{"name":"Monstera","tag":"tropical","id":9223372036854775807}',
      })
      expect(plant.status).toBe(200)
      expect(await (await fetch(`${server.url}/plants`, { headers: auth })).json()).toEqual([
        { name: 'Monstera', tag: 'tropical' },
      ])

      for (const [asset, type] of [
        ['swagger-ui.css', 'text/css'],
        ['swagger-ui-bundle.js', 'text/javascript'],
      ]) {
        const response = await fetch(`${server.url}/openapi/assets/${asset}`)
        expect(response.status).toBe(200)
        expect(response.headers.get('content-type')).toStartWith(type)
        expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(100_000)
      }
      const docs = await fetch(`${server.url}/docs.json`)
      expect(docs.status).toBe(200)
      expect(((await docs.json()) as { name: string }).name).toBe('Trellis')
      // The docs site: its pages (Markdown, icons, highlighting), stylesheet, script and images are all in the binary.
      const site = await fetch(`${server.url}/docs/api-reference/plants/post-plants`)
      expect(site.status).toBe(200)
      const html = await site.text()
      expect(html).toContain('<span class="method method-post">POST</span> <code>/plants</code>')
      expect(html).toMatch(/<span class="anchor-icon" data-anchor="top"><svg/)
      const guide = await (await fetch(`${server.url}/docs/introduction`)).text()
      expect(guide).toContain('<code class="hljs language-bash">')
      for (const asset of [
        /<link rel="stylesheet" href="([^"]+)">/.exec(html)![1]!,
        /<script defer src="([^"]+)">/.exec(html)![1]!,
        '/docs/_files/logo/light.svg',
      ]) {
        const response = await fetch(`${server.url}${asset}`)
        expect({ asset, status: response.status }).toEqual({ asset, status: 200 })
      }
      // The console: its page, stylesheet, script and icon are in the binary too.
      const consolePage = await (await fetch(`${server.url}/console/`)).text()
      for (const asset of consolePage.match(/\/console\/_assets\/[^"]+/g)!) {
        const response = await fetch(`${server.url}${asset}`)
        expect({ asset, status: response.status, empty: (await response.text()) === '' }).toEqual({
          asset,
          status: 200,
          empty: false,
        })
      }

      const stream = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          model: 'echo',
          stream: true,
          messages: [{ role: 'user', content: 'grow, little seed' }],
        }),
      })
      expect(stream.headers.get('content-type')).toBe('text/event-stream')
      expect(await stream.text()).toEndWith('data: [DONE]\n\n')

      expect((await run(['healthcheck'], { PORT: server.port })).code).toBe(0)
    } finally {
      server.child.kill('SIGTERM')
    }
    expect(await server.child.exited).toBe(0)
    expect((await run(['healthcheck'], { PORT: server.port })).code).toBe(1)
  }, 120_000)

  test('docs validate: 0 for a valid file, 1 with file:line:column for an invalid one', async () => {
    const valid = join(scratch, 'valid.json')
    const invalid = join(scratch, 'invalid.json')
    writeFileSync(valid, '{\n  "name": "Acme",\n  "navigation": [{ "group": "A", "pages": ["a"] }]\n}\n')
    writeFileSync(
      invalid,
      '{\n  "name": "Acme",\n  "navigation": [{ "group": "A", "pages": ["a"] }],\n  "colors": { "primary": "red" }\n}\n',
    )
    expect(await run(['docs', 'validate', valid])).toEqual({
      code: 0,
      stdout: `${valid}: valid, 0 errors, 0 warnings\n`,
      stderr: '',
    })
    const result = await run(['docs', 'validate', invalid])
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(`${invalid}:4:`)
    expect(result.stdout).toContain('colors.primary')
    expect(result.stdout).toEndWith('invalid, 1 error, 0 warnings\n')
  })
})
