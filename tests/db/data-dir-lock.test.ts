/**
 * The embedded database's lock (src/db/data-dir-lock.ts), between real processes. It once read a
 * pid file, removed it and wrote its own: two processes both took a stale lock in 4 of 80 tries,
 * and two containers on one volume (both pid 1) each took the other's lock for its own.
 */
import { afterEach, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes, which take several times as long beside a parallel run
// (`bun test --parallel=2`, .ci/run); the CLI mistakes test took 12 s there.
setDefaultTimeout(90_000)

const HOLDER = join(import.meta.dir, 'fixtures/lock-holder.ts')
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-lock-'))
  dirs.push(dir)
  return join(dir, 'data')
}

function holder(dir: string, holdMs: number, waitMs = 0) {
  return Bun.spawn(['bun', HOLDER, dir, String(holdMs), String(waitMs)], { stdout: 'pipe', stderr: 'inherit' })
}
const said = async (child: ReturnType<typeof holder>) => (await new Response(child.stdout).text()).trim()

test('eight processes racing for one data directory: exactly one gets it, in each of five rounds', async () => {
  for (let round = 0; round < 5; round++) {
    const dir = freshDir()
    const children = Array.from({ length: 8 }, () => holder(dir, 1_500))
    const outcomes = await Promise.all(children.map(said))
    expect(outcomes.filter((outcome) => outcome === 'locked')).toHaveLength(1)
    expect(outcomes.filter((outcome) => outcome === 'in use')).toHaveLength(7)
  }
}, 60_000)

test('a lock released is free at once; a lock whose holder was killed (SIGKILL) is taken over once stale', async () => {
  const dir = freshDir()
  expect(await said(holder(dir, 10))).toBe('locked')
  expect(await said(holder(dir, 10))).toBe('locked')

  const killed = holder(dir, 60_000)
  const reader = killed.stdout.getReader()
  expect(new TextDecoder().decode((await reader.read()).value).trim()).toBe('locked')
  killed.kill('SIGKILL')
  await killed.exited
  // At once: still held, as far as anyone can tell.
  expect(await said(holder(dir, 10))).toBe('in use')
  // A server restarting after the crash waits out the stale time, then takes it over.
  const started = performance.now()
  expect(await said(holder(dir, 10, 15_000))).toBe('locked')
  expect(performance.now() - started).toBeGreaterThan(2_000)
}, 60_000)
