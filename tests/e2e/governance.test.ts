/**
 * Governance with real processes: the admin API while the server holds the embedded database, the
 * CLI's token and usage commands, and the usage ledger written out on SIGTERM.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { type RunningServer, runCli, startServer, storageEnv } from '../helpers/process'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

let storage: Awaited<ReturnType<typeof storageEnv>>
beforeAll(async () => {
  storage = await storageEnv()
}, 60_000)
afterAll(() => storage.cleanup(), 60_000)

const json = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' })

describe('the CLI, with no server running', () => {
  test('token create and update take limits, models and expiry; token list shows them; usage prints a table', async () => {
    const created = await runCli(
      [
        'token',
        'create',
        '--owner',
        'alice',
        '--scope',
        'chat',
        '--rpm',
        '60',
        '--tpm',
        '100000',
        '--streams',
        '4',
        '--budget-tokens',
        '5000000',
        '--models',
        'echo,echo-reasoner',
        '--expires',
        '30d',
      ],
      storage.env,
    )
    expect(created.code).toBe(0)
    expect(created.stdout).toContain(
      'with limits rpm=60, tpm=100000, streams=4, budget_tokens=5000000; models echo, echo-reasoner; expires 20',
    )
    const id = created.stdout.match(/created (tok_\S+)/)![1]!
    const updated = await runCli(
      ['token', 'update', id, '--rpm', '120', '--tpm', 'none', '--models', 'none'],
      storage.env,
    )
    expect(updated.code).toBe(0)
    expect(updated.stdout).toContain('limits rpm=120, streams=4, budget_tokens=5000000')
    const listed = await runCli(['token', 'list'], storage.env)
    expect(listed.stdout).toMatch(
      new RegExp(`${id}\\talice\\tchat\\trpm=120,streams=4,budget_tokens=5000000\\t\\*\\t20`),
    )
    const usage = await runCli(['usage', '--by', 'owner'], storage.env)
    expect(usage.code).toBe(0)
    expect(usage.stdout.trim()).toBe('no usage in that time')
    expect((await runCli(['token', 'update', 'tok_nonexistent1', '--rpm', '5'], storage.env)).code).toBe(1)
  }, 60_000)
})

describe('a running server', () => {
  let server: RunningServer
  let admin = ''
  beforeAll(async () => {
    const created = await runCli(['token', 'create', '--owner', 'root', '--scope', 'admin'], storage.env)
    admin = created.stdout.match(/trl_[A-Za-z0-9_-]{43}/)![0]
    server = await startServer({ ...storage.env, MIGRATE_ON_START: 'false' })
  }, 60_000)
  afterAll(() => server?.stop(), 60_000)

  test('tokens are made over HTTP meanwhile; on the embedded database the CLI says so, in one line', async () => {
    const response = await fetch(`${server.url}/admin/tokens`, {
      method: 'POST',
      headers: json(admin),
      body: JSON.stringify({ owner: 'bob', scopes: ['chat'], limits: { rpm: 100 } }),
    })
    expect(response.status).toBe(201)
    const { token } = await response.json()
    expect((await fetch(`${server.url}/v1/models`, { headers: json(token) })).status).toBe(200)
    if (!process.env.DATABASE_URL) {
      const refused = await runCli(['token', 'list'], storage.env)
      expect(refused.code).toBe(1)
      expect(refused.stderr.trim().split('\n')).toHaveLength(1)
      expect(refused.stderr).toContain('/admin/tokens')
    }
  }, 60_000)

  test('the usage ledger is written out on SIGTERM: what was answered is in GET /usage after a restart', async () => {
    const response = await fetch(`${server.url}/admin/tokens`, {
      method: 'POST',
      headers: json(admin),
      body: JSON.stringify({ owner: 'carol', scopes: ['chat'] }),
    })
    const { token } = await response.json()
    for (let i = 0; i < 5; i++) {
      const answer = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: json(token),
        body: JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: `hello ${i}` }] }),
      })
      expect(answer.status).toBe(200)
    }
    // At once: well inside the ledger's one-second batch.
    expect(await server.stop()).toBe(0)
    server = await startServer({ ...storage.env, MIGRATE_ON_START: 'false' })
    const usage = await (await fetch(`${server.url}/usage?group_by=owner&owner=carol`, { headers: json(admin) })).json()
    expect(usage.data).toEqual([expect.objectContaining({ owner: 'carol', requests: 5 })])
  }, 60_000)
})
