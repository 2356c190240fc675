import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildBinary } from '../helpers/binary'
import { scratchPostgresDatabase } from '../helpers/database'
import { ROOT, runCli, startServer } from '../helpers/process'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/**
 * `serve --workers 2`: two processes on one port (SO_REUSEPORT) against one PostgreSQL,
 * from source and from the compiled binary. Workers need PostgreSQL, so this file always
 * uses it: the suite's DATABASE_URL, or else the machine's server, in a scratch database per test.
 */
const POSTGRES = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

let scratch = ''
let binary = ''
beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'trellis-workers-'))
  binary = await buildBinary(scratch)
}, 180_000)
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

type Line = { msg: string; pid?: number; worker?: number; method?: string; path?: string; status?: number }
const logLines = (output: string[]) =>
  output.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Line)

async function until(condition: () => boolean, what: string, ms = 30_000) {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(20)
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe.each([
  ['from source', () => ['bun', join(ROOT, 'src/cli/main.ts')]],
  ['from the binary', () => [binary]],
])('serve --workers 2 %s', (_name, command) => {
  test('both processes serve one port; concurrent creates through both are stored exactly once; SIGTERM stops both', async () => {
    const database = await scratchPostgresDatabase(POSTGRES)
    const env = { DATABASE_URL: database.url }
    try {
      const created = await runCli(
        ['token', 'create', '--owner', 'workers', '--scope', 'plants:read,plants:write'],
        env,
        command(),
      )
      expect(created.code).toBe(0)
      const token = created.stdout.match(/trl_[A-Za-z0-9_-]{43}/)![0]

      const server = await startServer(env, [...command(), 'serve', '--workers', '2'])
      try {
        await until(
          () => logLines(server.output).filter((line) => line.msg === 'listening').length === 2,
          'two listening workers',
        )
        const workerPids = logLines(server.output)
          .filter((line) => line.msg === 'listening')
          .map((line) => line.pid!)
        expect(new Set(workerPids).size).toBe(2)
        expect(workerPids).not.toContain(server.child.pid)

        const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
        // Fresh connections each time, so the kernel spreads them over both workers.
        const post = (body: unknown) =>
          fetch(`${server.url}/plants`, {
            method: 'POST',
            headers: { ...auth, connection: 'close' },
            body: JSON.stringify(body),
          })
        const names = Array.from({ length: 200 }, (_, i) => `parallel ${i}`)
        const statuses = await Promise.all(names.map(async (name) => (await post({ name })).status))
        expect(statuses.filter((status) => status !== 200)).toEqual([])

        const sameId = await Promise.all(
          Array.from({ length: 50 }, async () => (await post({ name: 'contested', id: 4242 })).status),
        )
        expect(sameId.filter((status) => status === 200).length).toBe(1)
        expect(sameId.filter((status) => status === 409).length).toBe(49)

        const listed = (await (await fetch(`${server.url}/plants?limit=1000`, { headers: auth })).json()) as {
          name: string
        }[]
        expect(listed.length).toBe(201)
        expect(listed.map((plant) => plant.name).sort()).toEqual([...names, 'contested'].sort())

        await until(
          () =>
            logLines(server.output).filter((line) => line.msg === 'request' && line.method === 'POST').length === 250,
          'every request logged',
        )
        const servedBy = new Set(
          logLines(server.output)
            .filter((line) => line.msg === 'request' && line.method === 'POST')
            .map((line) => line.pid),
        )
        expect([...servedBy].sort()).toEqual([...workerPids].sort())

        expect(await server.stop('SIGTERM')).toBe(0)
        for (const pid of workerPids) expect(alive(pid)).toBe(false)
      } finally {
        server.child.kill('SIGKILL')
      }
    } finally {
      await database.drop()
    }
  }, 120_000)
})

test('the embedded PGlite refuses more than one worker with a clear error', async () => {
  const result = await runCli(['serve', '--workers', '2'], { TRELLIS_DATA_DIR: join(scratch, 'never-created') })
  expect(result.code).toBe(1)
  expect(result.stderr.trim()).toBe(
    'trellis: configuration error: WORKERS > 1 needs DATABASE_URL: the embedded PGlite database can only be opened by one process',
  )
})

test('a worker that dies takes the others down, and the parent exits non-zero', async () => {
  const database = await scratchPostgresDatabase(POSTGRES)
  try {
    const server = await startServer({ DATABASE_URL: database.url }, [
      'bun',
      join(ROOT, 'src/cli/main.ts'),
      'serve',
      '--workers',
      '2',
    ])
    try {
      await until(
        () => logLines(server.output).filter((line) => line.msg === 'listening').length === 2,
        'two listening workers',
      )
      const [victim, survivor] = logLines(server.output)
        .filter((line) => line.msg === 'listening')
        .map((line) => line.pid!)
      process.kill(victim, 'SIGKILL')
      expect(await server.child.exited).not.toBe(0)
      expect(alive(survivor)).toBe(false)
      expect(server.output.join('\n')).toContain('"msg":"worker exited; stopping the others"')
    } finally {
      server.child.kill('SIGKILL')
    }
  } finally {
    await database.drop()
  }
}, 60_000)
