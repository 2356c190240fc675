import { afterEach, beforeEach } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

/** What the docs.json route tests share: the app (fresh per test where they write), a writer token, PUT. */
export const MIB = 1024 * 1024
export const config = (name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name, navigation: [{ group: 'Start', pages: ['intro'] }], ...extra }, null, 2)

export let t: TestApp
export let writer: string

export async function open() {
  t = await makeTestApp()
  writer = await t.tokenFor('alice', ['docs:write'])
}
export const close = () => t.close()

/** Most tests write: each gets a fresh app and database. */
export function freshAppPerTest() {
  beforeEach(open, SETUP_TIMEOUT)
  afterEach(close, SETUP_TIMEOUT)
}

export const put = (body: string, init: { token?: string; headers?: Record<string, string>; query?: string } = {}) =>
  t.request(`/docs.json${init.query ?? ''}`, {
    method: 'PUT',
    body,
    token: init.token ?? writer,
    headers: { 'content-type': 'application/json', ...init.headers },
  })

/** The submitted text of every revision, oldest first. */
export async function allSources(): Promise<string[]> {
  const { revisions } = await (await t.request('/docs.json/revisions', { token: writer })).json()
  return Promise.all(
    revisions.map(
      async (revision: { revision: number }) =>
        (await (await t.request(`/docs.json/revisions/${revision.revision}`, { token: writer })).json()).source,
    ),
  )
}
