/**
 * Two real server processes on one PostgreSQL hold one token's rpm between them: N replicas admit
 * at most the limit in total, never N × the limit (the failure mode of gateways that check limits
 * in each process's memory), and at least the limit less one lease block per other replica.
 * PostgreSQL pass of the suite only: the embedded database cannot be shared by two processes.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { type RunningServer, runCli, startServer, storageEnv } from '../helpers/process'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

const skipped = process.env.DATABASE_URL ? undefined : 'two processes need PostgreSQL (DATABASE_URL unset)'
if (skipped) console.warn(`tests/e2e/governance-replicas.test.ts SKIPPED: ${skipped}`)

const RPM = 60
let storage: Awaited<ReturnType<typeof storageEnv>>
let replicas: RunningServer[] = []
let token = ''

beforeAll(async () => {
  if (skipped) return
  storage = await storageEnv()
  const created = await runCli(
    ['token', 'create', '--owner', 'shared', '--scope', 'plants:read', '--rpm', String(RPM)],
    storage.env,
  )
  if (created.code !== 0) throw new Error(created.stderr)
  token = created.stdout.match(/trl_[A-Za-z0-9_-]{43}/)![0]
  replicas = await Promise.all([
    startServer({ ...storage.env, MIGRATE_ON_START: 'false' }),
    startServer({ ...storage.env, MIGRATE_ON_START: 'false' }),
  ])
  // Each replica's first limited request opens its connections and reads the limits once; left to the burst, a
  // replica slow to warm up on a loaded machine found every lease block already held by the other (it admitted
  // 0 of 120 in CI). A token of its own warms both without touching the shared one's budget.
  const warm = await runCli(
    ['token', 'create', '--owner', 'warm', '--scope', 'plants:read', '--rpm', '1000'],
    storage.env,
  )
  if (warm.code !== 0) throw new Error(warm.stderr)
  const warmToken = warm.stdout.match(/trl_[A-Za-z0-9_-]{43}/)![0]
  for (const replica of replicas)
    expect((await fetch(`${replica.url}/plants`, { headers: { authorization: `Bearer ${warmToken}` } })).status).toBe(
      200,
    )
}, 120_000)

afterAll(async () => {
  for (const replica of replicas) await replica.stop()
  await storage?.cleanup()
}, 60_000)

describe.skipIf(Boolean(skipped))('two replicas, one rpm', () => {
  test(`${RPM} rpm shared: a burst of 240 requests spread over both admits about ${RPM} in all, not ${2 * RPM}`, async () => {
    const started = performance.now()
    const statuses = await Promise.all(
      Array.from({ length: 240 }, (_, i) =>
        fetch(`${replicas[i % 2]!.url}/plants`, { headers: { authorization: `Bearer ${token}` } }).then(
          (response) => response.status,
        ),
      ),
    )
    const seconds = (performance.now() - started) / 1000
    const admitted = statuses.filter((status) => status === 200).length
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([])
    // The bucket refills at one a second while the burst runs.
    expect(admitted).toBeLessThanOrEqual(RPM + Math.ceil(seconds))
    // At most one block (rpm / 20) held unused by the other replica.
    expect(admitted).toBeGreaterThanOrEqual(RPM - RPM / 20)
    // And each replica admitted some: the pool is shared, not split.
    const perReplica = [0, 1].map((r) => statuses.filter((status, i) => i % 2 === r && status === 200).length)
    expect(Math.min(...perReplica)).toBeGreaterThan(0)
  }, 60_000)
})
