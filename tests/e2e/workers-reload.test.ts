import { expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { scratchPostgresDatabase } from '../helpers/database'
import { ROOT, runCli, startServer } from '../helpers/process'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/**
 * `serve --workers 2 --config FILE` (issue #29 §2): every worker reads the file the parent was given, and SIGHUP to
 * the parent reloads them all (it would otherwise end the parent). Workers need PostgreSQL, as in workers.test.ts.
 */
const POSTGRES = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

async function until(condition: () => boolean, what: string, ms = 30_000) {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(20)
  }
}

test('the workers read --config, and SIGHUP to the parent reloads every one of them', async () => {
  const database = await scratchPostgresDatabase(POSTGRES)
  const dir = mkdtempSync(join(tmpdir(), 'trellis-workers-reload-'))
  const file = join(dir, 'trellis.yaml')
  writeFileSync(file, 'models:\n  before: [{ provider: echo, model: echo }]\n')
  const cli = ['bun', join(ROOT, 'src/cli/main.ts')]
  const env = { DATABASE_URL: database.url }
  try {
    const created = await runCli(['token', 'create', '--owner', 'ops', '--scope', 'chat'], env, cli)
    const token = created.stdout.match(/trl_[A-Za-z0-9_-]{43}/)![0]
    const server = await startServer(env, [...cli, 'serve', '--workers', '2', '--config', file])
    const count = (message: string) => server.output.filter((line) => line.includes(`"msg":"${message}"`)).length
    try {
      await until(() => count('listening') === 2, 'two listening workers')
      // Fresh connections, so that the kernel spreads them over both workers.
      const models = async () => {
        const seen = new Set<string>()
        for (let i = 0; i < 20; i++) {
          const response = await fetch(`${server.url}/v1/models`, {
            headers: { authorization: `Bearer ${token}`, connection: 'close' },
          })
          seen.add(((await response.json()).data as { id: string }[]).map((model) => model.id).join(','))
        }
        return [...seen]
      }
      expect(await models()).toEqual(['before,echo,echo-reasoner'])

      writeFileSync(file, 'echo: false\nmodels:\n  after: [{ provider: echo, model: echo }]\n')
      server.child.kill('SIGHUP')
      await until(() => count('configuration reloaded') === 2, 'both workers reloaded')
      expect(await models()).toEqual(['after'])
      expect(server.child.exitCode).toBeNull()
      expect(await server.stop('SIGTERM')).toBe(0)
    } finally {
      server.child.kill('SIGKILL')
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
    await database.drop()
  }
}, 120_000)
