import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type RunningServer, runCli, startServer, storageEnv } from '../helpers/process'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/** The real server as a newcomer runs it: `bun src/runtimes/bun.ts`, spoken to over TCP with fetch. */
const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {})
})

async function server(env: Record<string, string>): Promise<RunningServer> {
  const running = await startServer(env)
  cleanups.push(async () => {
    if (running.child.exitCode === null) await running.stop('SIGKILL')
  })
  return running
}

async function storage() {
  const storage = await storageEnv()
  cleanups.push(storage.cleanup)
  return storage.env
}

const devToken = (output: string[]) => output.join('\n').match(/^ {2}(trl_[A-Za-z0-9_-]{43})$/m)?.[1]

describe('a fresh start', () => {
  test('prints one admin development token with a curl line, and serves the plant store with it', async () => {
    const env = await storage()
    const running = await server(env)
    const token = devToken(running.output)
    expect(token).toBeDefined()
    expect(running.output.join('\n')).toContain(`curl -s -X POST http://127.0.0.1:`)
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const created = await fetch(`${running.url}/plants`, {
      method: 'POST',
      headers: auth,
      body: '{"name":"Monstera","tag":"tropical","id":9223372036854775807}',
    })
    expect(created.status).toBe(200)
    expect(created.headers.get('x-request-id')).toBeTruthy()
    expect(await created.json()).toEqual({ name: 'Monstera', tag: 'tropical' })
    expect(await (await fetch(`${running.url}/plants`, { headers: auth })).json()).toEqual([
      { name: 'Monstera', tag: 'tropical' },
    ])
    expect((await fetch(`${running.url}/plants/9223372036854775807`, { method: 'DELETE', headers: auth })).status).toBe(
      204,
    )
    expect((await fetch(`${running.url}/plants`)).status).toBe(401)
    expect(await running.stop('SIGTERM')).toBe(0)
  }, 90_000)

  test('the curl line names the port actually served, and a port in use stops the start before any token is made', async () => {
    const env = await storage()
    const other = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('someone else') })
    cleanups.push(async () => other.stop(true))
    const refused = await runCli(['serve'], { ...env, PORT: String(other.port), HOST: '127.0.0.1' })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`cannot listen on 127.0.0.1:${other.port}: the port is in use`)
    expect(refused.stdout).not.toContain('trl_')
    // No token was made for nobody: the next start, on a free port, is still a first start and gets one.
    const running = await server(env)
    const port = new URL(running.url).port
    expect(devToken(running.output)).toBeDefined()
    expect(running.output.join('\n')).toContain(`curl -s -X POST http://127.0.0.1:${port}/plants`)
    expect(await running.stop('SIGTERM')).toBe(0)
  }, 90_000)

  test('in production no development token is ever created', async () => {
    const running = await server({ ...(await storage()), NODE_ENV: 'production' })
    expect(devToken(running.output)).toBeUndefined()
    expect(await running.stop()).toBe(0)
  }, 90_000)

  test('a bad setting stops the server with one clear line', async () => {
    const result = await runCli(['serve'], { PORT: 'eighty' })
    expect(result.code).toBe(1)
    expect(result.stderr.trim()).toBe('trellis: configuration error: PORT must be a whole number, got "eighty"')
  })
})

describe('the configuration file (issue #29 §2)', () => {
  test('SIGHUP reloads trellis.yaml with a stream in flight: the stream finishes as it began, new requests get the new models; a bad file is refused and the server serves on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trellis-sighup-'))
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
    const file = join(dir, 'trellis.yaml')
    writeFileSync(file, 'chat: { echoTokenDelayMs: 80 }\nmodels:\n  slow: [{ provider: echo, model: echo }]\n')
    const running = await server({ ...(await storage()), TRELLIS_CONFIG: file })
    const auth = { authorization: `Bearer ${devToken(running.output)}`, 'content-type': 'application/json' }
    const models = async () =>
      ((await (await fetch(`${running.url}/v1/models`, { headers: auth })).json()).data as { id: string }[]).map(
        (model) => model.id,
      )
    const ask = (model: string, stream: boolean) =>
      fetch(`${running.url}/v1/chat/completions`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'a b c d e f g h i j k l' }] }),
      })
    expect(await models()).toEqual(['slow', 'echo', 'echo-reasoner'])
    const stream = await ask('slow', true)
    const reader = stream.body!.getReader()
    let text = new TextDecoder().decode((await reader.read()).value)

    writeFileSync(file, 'echo: false\nmodels:\n  quick: [{ provider: echo, model: echo }]\n')
    running.child.kill('SIGHUP')
    while (!running.output.some((line) => line.includes('"msg":"configuration reloaded"'))) await Bun.sleep(20)
    const reloadedAt = performance.now()
    expect(await models()).toEqual(['quick'])
    expect((await ask('slow', false)).status).toBe(404)
    expect((await ask('quick', false)).status).toBe(200)
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      text += new TextDecoder().decode(value)
    }
    expect(performance.now() - reloadedAt).toBeGreaterThan(200)
    expect(text).toContain('data: [DONE]')
    expect(text).toContain(' l')

    writeFileSync(file, 'models:\n  quick: [{ provider: nowhere, model: echo }]\n')
    running.child.kill('SIGHUP')
    while (!running.output.some((line) => line.includes('"msg":"configuration reload refused"'))) await Bun.sleep(20)
    const refused = JSON.parse(running.output.find((line) => line.includes('configuration reload refused'))!)
    expect(refused).toMatchObject({ level: 'error', trigger: 'SIGHUP' })
    expect(refused.findings).toEqual([
      `${file}:2:23: model 'quick' uses provider 'nowhere', which is not under providers (echo)`,
    ])
    expect(await models()).toEqual(['quick'])
    expect(await running.stop()).toBe(0)
  }, 90_000)
})

describe('durability', () => {
  test('acknowledged writes survive a SIGKILL, and a restart mints no second dev token', async () => {
    const env = await storage()
    const first = await server(env)
    const token = devToken(first.output)!
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    for (let i = 0; i < 20; i++)
      expect(
        (
          await fetch(`${first.url}/plants`, {
            method: 'POST',
            headers: auth,
            body: JSON.stringify({ name: `kept ${i}` }),
          })
        ).status,
      ).toBe(200)
    expect(await first.stop('SIGKILL')).not.toBe(0)
    const second = await server(env)
    expect(devToken(second.output)).toBeUndefined()
    const listed = (await (await fetch(`${second.url}/plants`, { headers: auth })).json()) as { name: string }[]
    expect(listed.map((p) => p.name)).toEqual(Array.from({ length: 20 }, (_, i) => `kept ${i}`))
    expect(await second.stop()).toBe(0)
  }, 120_000)
})

describe('the CLI', () => {
  test('token create prints the secret once; list never shows it; revoke makes it useless', async () => {
    const env = await storage()
    const created = await runCli(['token', 'create', '--owner', 'alice', '--scope', 'plants:read,chat'], env)
    expect(created.code).toBe(0)
    const token = created.stdout.match(/trl_[A-Za-z0-9_-]{43}/)![0]
    const id = created.stdout.match(/created (tok_\S+) for alice with scopes plants:read,chat/)![1]
    const listed = await runCli(['token', 'list'], env)
    expect(listed.code).toBe(0)
    expect(listed.stdout).toContain(`${id}\talice\tplants:read,chat`)
    expect(listed.stdout).not.toContain(token.slice(4, 20))

    const running = await server(env)
    expect((await fetch(`${running.url}/plants`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200)
    if (!env.DATABASE_URL) expect(await running.stop()).toBe(0)
    const revoked = await runCli(['token', 'revoke', id], env)
    expect(revoked.code).toBe(0)
    if (env.DATABASE_URL) {
      // Another process revoked it: the running server notices within its 5 s cache window.
      await Bun.sleep(5_200)
      expect((await fetch(`${running.url}/plants`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401)
      expect(await running.stop()).toBe(0)
    } else {
      const restarted = await server(env)
      expect((await fetch(`${restarted.url}/plants`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
        401,
      )
    }
    expect((await runCli(['token', 'revoke', id], env)).code).toBe(1)
  }, 120_000)

  test.each([
    [['token', 'create'], 'token create needs --owner NAME'],
    [['token', 'create', '--owner', 'x', '--scope', 'plants:eat'], 'unknown scope "plants:eat"'],
    [['token', 'revoke'], 'token revoke needs a token id'],
    [['token', 'frobnicate'], 'expected create, update, list or revoke'],
    [['dance'], 'unknown command "dance"'],
  ])('%p is a usage error (exit 2): %s', async (args, message) => {
    const result = await runCli(args)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(message)
  })

  test('--version, --help and migrate', async () => {
    const version = await runCli(['--version'])
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/)
    const help = await runCli(['--help'])
    for (const word of ['serve', 'migrate', 'token create', 'docs validate']) expect(help.stdout).toContain(word)
    const env = await storage()
    expect((await runCli(['migrate'], env)).stdout).toContain('applied 0000_init')
    expect((await runCli(['migrate'], env)).stdout).toContain('database is up to date')
  }, 60_000)

  test.skipIf(!!process.env.DATABASE_URL)(
    'the embedded database refuses a second process with a clear message',
    async () => {
      const env = await storage()
      const running = await server(env)
      const second = await runCli(['token', 'list'], env)
      expect(second.code).toBe(1)
      expect(second.stderr.trim()).toMatch(/^trellis: the embedded database in .* is in use by another process/)
      expect(second.stderr.trim().split('\n')).toHaveLength(1)
      expect(await running.stop()).toBe(0)
    },
    90_000,
  )
})
