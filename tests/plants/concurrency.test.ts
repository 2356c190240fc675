import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp, uniqueOwner } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

test('200 parallel creates all appear, exactly once each', async () => {
  const token = await t.tokenFor(uniqueOwner('parallel'))
  const names = Array.from({ length: 200 }, (_, i) => `plant-${i}`)
  // Half choose their id, half let the service assign one, so both paths race each other.
  const responses = await Promise.all(
    names.map((name, i) =>
      t.request('/plants', { method: 'POST', token, json: i % 2 ? { name } : { name, id: 500_000 + i } }),
    ),
  )
  expect(responses.map((r) => r.status)).toEqual(names.map(() => 200))
  const listed = (await (await t.request('/plants?limit=1000', { token })).json()) as { name: string }[]
  expect(listed.map((p) => p.name).sort()).toEqual([...names].sort())
})

test('50 parallel creates of one id: exactly one 200 and 49 409s', async () => {
  const token = await t.tokenFor(uniqueOwner('same-id'))
  const responses = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      t.request('/plants', { method: 'POST', token, json: { name: `contender ${i}`, id: 4242424242 } }),
    ),
  )
  const statuses = responses.map((r) => r.status)
  expect(statuses.filter((s) => s === 200)).toHaveLength(1)
  expect(statuses.filter((s) => s === 409)).toHaveLength(49)
  const listed = (await (await t.request('/plants', { token })).json()) as unknown[]
  expect(listed).toHaveLength(1)
})
