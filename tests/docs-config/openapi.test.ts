import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

/**
 * The docs.json routes are in the OpenAPI document (a generator that takes dotted paths for static files would drop
 * them).
 */
test('every docs.json route is documented, with its security and error responses', async () => {
  const document = await (await t.request('/openapi.json')).json()
  const paths = document.paths ?? {}
  expect(
    Object.keys(paths)
      .filter((path) => path.startsWith('/docs.json'))
      .sort(),
  ).toEqual([
    '/docs.json',
    '/docs.json/revisions',
    '/docs.json/revisions/{n}',
    '/docs.json/schema',
    '/docs.json/validate',
  ])
  expect(paths['/docs.json'].get.security).toEqual([])
  expect(paths['/docs.json'].put.security).toEqual([{ bearerAuth: [] }])
  expect(Object.keys(paths['/docs.json'].put.responses).sort()).toEqual([
    '200',
    '400',
    '401',
    '403',
    '412',
    '413',
    '415',
    '429',
    '500',
    '503',
  ])
  expect(paths['/docs.json'].put.requestBody.content['application/json']).toBeDefined()
  expect(
    paths['/docs.json/validate'].post.responses['200'].content['application/json'].schema.properties.errors,
  ).toBeDefined()
})
