import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import pkg from '../../package.json' with { type: 'json' }
import { type RunningServer, ROOT, runCli, startServer, storageEnv } from '../helpers/process'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/**
 * One smoke test, three runtimes: the same app served by Bun (`bun src/runtimes/bun.ts`), by
 * Deno (`Deno.serve(app.fetch)`) and by Node (`node:http` through our fetch bridge),
 * spoken to over TCP. Deno and Node run the bundles the `build:deno` and `build:node` scripts make.
 * A missing runtime is skipped loudly, never silently; CI (.ci/ship) installs Deno
 * (`npm install --prefix /tmp/trellis-deno deno@…`) and points DENO_BIN at it.
 */
const DENO_FROM_NPM = '/tmp/trellis-deno/node_modules/.bin/deno'
const deno = process.env.DENO_BIN || Bun.which('deno') || (existsSync(DENO_FROM_NPM) ? DENO_FROM_NPM : undefined)
const node = process.env.NODE_BIN || Bun.which('node') || undefined

// Bundles go to a directory of this run's own (under the repository, so node_modules resolves).
const OUT = join(ROOT, 'dist', `.runtimes-test-${process.pid}`)

type Runtime = {
  name: string
  bin: string | undefined
  build?: 'build:deno' | 'build:node'
  command: (bin: string) => string[]
}
const RUNTIMES: Runtime[] = [
  { name: 'bun', bin: process.execPath, command: (bin) => [bin, join(ROOT, 'src/runtimes/bun.ts')] },
  {
    name: 'deno',
    bin: deno,
    build: 'build:deno',
    command: (bin) => [bin, 'run', '--allow-all', join(OUT, 'deno/deno.js')],
  },
  { name: 'node', bin: node, build: 'build:node', command: (bin) => [bin, join(OUT, 'node/node.js')] },
]
for (const runtime of RUNTIMES)
  if (!runtime.bin)
    console.warn(
      `\n!! SKIPPED: the ${runtime.name} smoke test; no ${runtime.name} executable (PATH, ${runtime.name.toUpperCase()}_BIN${runtime.name === 'deno' ? `, ${DENO_FROM_NPM}` : ''})\n`,
    )

const DRAIN_DEADLINE_MS = 1_500

let storage: Awaited<ReturnType<typeof storageEnv>>
const tokens: Record<string, string> = {}

beforeAll(async () => {
  storage = await storageEnv()
  // One owner per runtime, so no runtime sees another's plants.
  for (const runtime of RUNTIMES) {
    const created = await runCli(
      ['token', 'create', '--owner', runtime.name, '--scope', 'plants:read,plants:write,chat'],
      storage.env,
    )
    if (created.code !== 0) throw new Error(`token create failed: ${created.stderr}`)
    tokens[runtime.name] = created.stdout.match(/trl_[A-Za-z0-9_-]{43}/)![0]
  }
}, 120_000)

afterAll(async () => {
  await storage.cleanup()
  rmSync(OUT, { recursive: true, force: true })
})

/** Runs the package's own build script, only with the output directory moved to OUT. */
async function build(script: 'build:deno' | 'build:node') {
  const command = pkg.scripts[script].replace('--outdir dist/', `--outdir ${OUT}/`)
  if (command === pkg.scripts[script]) throw new Error(`unexpected ${script} script: ${pkg.scripts[script]}`)
  const child = Bun.spawn(['sh', '-c', command], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited])
  if (code !== 0) throw new Error(`${command} failed: ${stderr}`)
}

describe.each(RUNTIMES)('on $name', (runtime) => {
  let server: RunningServer
  const headers = () => ({ authorization: `Bearer ${tokens[runtime.name]}`, 'content-type': 'application/json' })

  beforeAll(async () => {
    if (!runtime.bin) return
    if (runtime.build) await build(runtime.build)
    // Paced echo streams and a short drain deadline, so the last test can signal with streams in flight.
    const env = {
      ...storage.env,
      MIGRATE_ON_START: 'false',
      ECHO_TOKEN_DELAY_MS: '20',
      SHUTDOWN_TIMEOUT_MS: String(DRAIN_DEADLINE_MS),
    }
    server = await startServer(env, runtime.command(runtime.bin))
  }, 90_000)

  afterAll(() => {
    if (server?.child.exitCode === null) server.child.kill('SIGKILL')
  })

  test.skipIf(!runtime.bin)('announces itself on the runtime it was started with', () => {
    const listening = JSON.parse(server.output.find((line) => line.includes('"msg":"listening"'))!)
    if (runtime.name !== 'bun') expect(listening.runtime).toStartWith(runtime.name)
    expect(listening.pid).toBe(server.child.pid)
  })

  test.skipIf(!runtime.bin)('plants: create, list, delete, and the error contract', async () => {
    const url = `${server.url}/plants`
    const created = await fetch(url, {
      method: 'POST',
      headers: headers(),
      body: '{"name":"Fern","tag":"shade","id":9223372036854775807}',
    })
    expect(created.status).toBe(200)
    expect(created.headers.get('x-request-id')).toBeTruthy()
    expect(await created.json()).toEqual({ name: 'Fern', tag: 'shade' })
    expect(await (await fetch(url, { headers: headers() })).json()).toEqual([{ name: 'Fern', tag: 'shade' }])
    expect((await fetch(`${url}/9223372036854775807`, { method: 'DELETE', headers: headers() })).status).toBe(204)
    expect(await (await fetch(url, { headers: headers() })).json()).toEqual([])
    expect((await fetch(`${url}/9223372036854775807`, { method: 'DELETE', headers: headers() })).status).toBe(404)

    const malformed = await fetch(url, { method: 'POST', headers: headers(), body: '{"name":' })
    expect(malformed.status).toBe(400)
    expect(((await malformed.json()) as { message: string }).message).toContain('malformed JSON')
    const huge = await fetch(url, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
    })
    expect(huge.status).toBe(413)
    expect((await fetch(url)).status).toBe(401)
  })

  test.skipIf(!runtime.bin)(
    'chat: a streamed completion arrives as bytes, event by event, to data: [DONE]',
    async () => {
      const prompt = 'roots reach down while leaves reach up'
      const response = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify({ model: 'echo', stream: true, messages: [{ role: 'user', content: prompt }] }),
      })
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('text/event-stream')
      const reader = response.body!.getReader()
      let text = ''
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        expect(chunk.value).toBeInstanceOf(Uint8Array)
        text += new TextDecoder().decode(chunk.value)
      }
      expect(text).toEndWith('data: [DONE]\n\n')
      const deltas = text
        .split('\n\n')
        .filter((event) => event.startsWith('data: {'))
        .map((event) => JSON.parse(event.slice(6)).choices[0]?.delta?.content ?? '')
      expect(deltas.join('')).toBe(prompt)
    },
  )

  test.skipIf(!runtime.bin)(
    'docs.json: the built-in default, its schema, and validation with line and column',
    async () => {
      const current = await fetch(`${server.url}/docs.json`)
      expect(current.status).toBe(200)
      expect(((await current.json()) as { name: string }).name).toBe('Trellis')
      expect((await fetch(`${server.url}/docs.json/schema`)).status).toBe(200)
      const validated = await fetch(`${server.url}/docs.json/validate`, {
        method: 'POST',
        headers: headers(),
        body: '{\n  "name": "Acme",\n  "navigation": [{ "group": "A", "pages": ["a"] }],\n  "colors": { "primary": "red" }\n}',
      })
      expect(validated.status).toBe(200)
      const result = (await validated.json()) as {
        valid: boolean
        errors: { path: string; line: number; column: number }[]
      }
      expect(result.valid).toBe(false)
      expect(result.errors.map(({ path, line }) => ({ path, line }))).toEqual([{ path: '/colors/primary', line: 4 }])
    },
  )

  test.skipIf(!runtime.bin)(
    'the docs site renders: Markdown, highlighting, icons, an API page, its own stylesheet',
    async () => {
      const page = await fetch(`${server.url}/docs/introduction`)
      expect(page.status).toBe(200)
      const html = await page.text()
      expect(html).toContain('<code class="hljs language-bash">')
      expect(html).toMatch(/<span class="anchor-icon" data-anchor="top"><svg/)
      const api = await (await fetch(`${server.url}/docs/api-reference/plants/get-plants`)).text()
      expect(api).toContain('<span class="method method-get">GET</span> <code>/plants</code>')
      expect((await fetch(`${server.url}${/<link rel="stylesheet" href="([^"]+)">/.exec(html)![1]}`)).status).toBe(200)
    },
  )

  test.skipIf(!runtime.bin)('the console serves its page, stylesheet, script and icon', async () => {
    const page = await (await fetch(`${server.url}/console/`)).text()
    const assets = page.match(/\/console\/_assets\/[^"]+/g)!
    expect(assets.length).toBe(3)
    for (const asset of assets)
      expect({ asset, status: (await fetch(`${server.url}${asset}`)).status }).toEqual({ asset, status: 200 })
  })

  test.skipIf(!runtime.bin)('the reference UI is served from node_modules or the binary, never a CDN', async () => {
    const css = await fetch(`${server.url}/openapi/assets/swagger-ui.css`)
    expect(css.status).toBe(200)
    expect((await css.arrayBuffer()).byteLength).toBeGreaterThan(100_000)
  })

  // The Bun server runs workers (tests/e2e/workers.test.ts); the other entries refuse them.
  if (runtime.name !== 'bun')
    test.skipIf(!runtime.bin)('WORKERS > 1 is refused with one clear line', async () => {
      const result = await runCli(
        [],
        { WORKERS: '2', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
        runtime.command(runtime.bin!),
      )
      expect(result.code).toBe(1)
      expect(result.stderr.trim()).toStartWith(
        'trellis: configuration error: WORKERS > 1 is a feature of the Bun server',
      )
    })

  test.skipIf(!runtime.bin)(
    'SIGTERM: new connections are refused, a short stream finishes, a long one is cut at the deadline with an error event; exit 0',
    async () => {
      const open = async (words: number) => {
        const content = Array.from({ length: words }, (_, i) => `leaf${i}`).join(' ')
        const response = await fetch(`${server.url}/v1/chat/completions`, {
          method: 'POST',
          headers: headers(),
          body: JSON.stringify({ model: 'echo', stream: true, messages: [{ role: 'user', content }] }),
        })
        const reader = response.body!.getReader()
        let text = new TextDecoder().decode((await reader.read()).value)
        return async () => {
          for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
            text += new TextDecoder().decode(chunk.value)
          return text
        }
      }
      // 20 ms a word: 25 words end well before the deadline, 400 words long after it.
      const [short, long] = await Promise.all([open(25), open(400)])
      server.child.kill('SIGTERM')
      while (!server.output.some((line) => line.includes('"msg":"draining"'))) await Bun.sleep(10)
      const { hostname, port } = new URL(server.url)
      await expect(Bun.connect({ hostname, port: Number(port), socket: { data() {} } })).rejects.toThrow()

      const [finished, cut] = await Promise.all([short(), long()])
      expect(finished).toContain('leaf24')
      expect(finished).toEndWith('data: [DONE]\n\n')
      const last = cut.trimEnd().split('\n\n').at(-1)!
      expect(last).toStartWith('data: {"error":')
      expect(JSON.parse(last.slice('data: '.length)).error.message).toContain('shutting down')
      expect(cut).not.toContain('[DONE]')
      expect(await server.child.exited).toBe(0)
      expect(server.output.join('\n')).toContain('"msg":"stopped"')
    },
  )
})
