import { PROVIDER_KINDS } from '../../src/chat/providers'
import { afterAll, beforeAll, expect, setDefaultTimeout, spyOn, test } from 'bun:test'
import { TokenService } from '../../src/auth/service'
import { announceDevelopmentToken } from '../../src/runtimes/bootstrap'
import { loadConfig } from '../../src/config'
import type { DatabaseHandle } from '../../src/db/connect'
import { SETUP_TIMEOUT } from '../helpers/app'
import { freshDatabase } from '../helpers/database'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let database: DatabaseHandle
beforeAll(async () => {
  database = await freshDatabase()
}, SETUP_TIMEOUT)
afterAll(() => database.close(), SETUP_TIMEOUT)

test('replicas starting together on an empty database mint exactly one development token', async () => {
  const log = spyOn(console, 'log').mockImplementation(() => {})
  try {
    const config = loadConfig({ NODE_ENV: 'development' }, PROVIDER_KINDS)
    // Each "replica" has its own token service, as separate processes would.
    await Promise.all(Array.from({ length: 10 }, () => announceDevelopmentToken(config, new TokenService(database.db))))
    expect(await new TokenService(database.db).count()).toBe(1)
    expect(log.mock.calls.filter((call) => String(call[0]).includes('development admin token'))).toHaveLength(1)
  } finally {
    log.mockRestore()
  }
})

test('once any token exists, createFirst creates none', async () => {
  expect(await new TokenService(database.db).createFirst({ owner: 'late', scopes: ['admin'] })).toBeUndefined()
  expect(await new TokenService(database.db).count()).toBe(1)
})
