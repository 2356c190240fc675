import { afterEach, beforeEach } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

/** What the page route tests share: the app (fresh per test), a writer token, PUT and GET. */
export const MIB = 1024 * 1024

export let t: TestApp
let writer: string

async function open() {
  t = await makeTestApp()
  writer = await t.tokenFor('alice', ['docs:write'])
}
const close = () => t.close()

/** Every test writes: each gets a fresh app and database. */
export function freshAppPerTest() {
  beforeEach(open, SETUP_TIMEOUT)
  afterEach(close, SETUP_TIMEOUT)
}

/** A page with front matter. */
export const page = (title: string, body = `# ${title}\n\nSome text.\n`) => `---\ntitle: ${title}\n---\n${body}`

type PutInit = { token?: string | null; headers?: Record<string, string>; type?: string | null }

/** `PUT /docs/pages/<path>` as text/markdown with the writer's token, unless told otherwise. */
export const put = (path: string, body: BodyInit, init: PutInit = {}) => {
  const headers: Record<string, string> = { ...init.headers }
  if (init.type !== null) headers['content-type'] = init.type ?? 'text/markdown'
  return t.request(`/docs/pages/${path}`, {
    method: 'PUT',
    body,
    token: init.token === null ? undefined : (init.token ?? writer),
    headers,
  })
}

/** `GET /docs/pages/<path>`, anonymously, as the public reads it. */
export const get = (path: string, headers: Record<string, string> = {}) => t.request(`/docs/pages/${path}`, { headers })
