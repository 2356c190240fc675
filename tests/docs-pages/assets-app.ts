import { afterEach, beforeEach } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

/** What the file route tests share: a fresh app per test (with env), a writer token, PUT, DELETE and GET. */
export let t: TestApp
let writer: string

export function freshAppPerTest(env: Record<string, string> = {}) {
  beforeEach(async () => {
    t = await makeTestApp({ env })
    writer = await t.tokenFor('alice', ['docs:write'])
  }, SETUP_TIMEOUT)
  afterEach(() => t.close(), SETUP_TIMEOUT)
}

/** `PUT /docs/assets/<path>` with the writer's token unless told otherwise (`null`: none). */
export const putFile = (path: string, body: BodyInit, init: { token?: string | null; headers?: HeadersInit } = {}) =>
  t.request(`/docs/assets/${path}`, {
    method: 'PUT',
    body,
    headers: init.headers,
    token: init.token === null ? undefined : (init.token ?? writer),
  })

export const deleteFile = (path: string, token: string | null = writer) =>
  t.request(`/docs/assets/${path}`, { method: 'DELETE', token: token ?? undefined })

/** The site's URL for a file: `/docs/{path}`, anonymously. */
export const site = (path: string, init: RequestInit = {}) => t.request(`/docs/${path}`, init)

/** A 1×1 transparent PNG. */
export const PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII='),
  (c) => c.charCodeAt(0),
)

export const SVG_WITH_SCRIPT =
  '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(document.cookie)</script>' +
  '<rect width="10" height="10" fill="red"/></svg>'
