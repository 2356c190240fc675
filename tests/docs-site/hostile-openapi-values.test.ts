import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * An OpenAPI document the store accepts, with values of the wrong type where the checks at PUT do not look (inside
 * a parameter, or behind a `$ref`): the API page, the home page it may be, its Markdown, llms-full.txt and search
 * all answer 200, showing what is usable and leaving out the rest. A document is an author's, but a wrong type in
 * it must not take the site down (a 500 on every page that lists the operation).
 */

let t: TestApp
let writer: string
beforeAll(async () => {
  t = await makeTestApp()
  writer = await t.tokenFor('docs-author', ['docs:write'])
  const config = {
    theme: 'mint',
    name: 'H',
    colors: { primary: '#16A34A' },
    navigation: { groups: [{ group: 'G', openapi: 'api.json', pages: ['op'] }] },
  }
  expect((await t.request('/docs.json', { method: 'PUT', token: writer, json: config })).status).toBe(200)
  const page = await t.request('/docs/pages/op', {
    method: 'PUT',
    token: writer,
    body: '---\nopenapi: POST /x\n---\n',
    headers: { 'content-type': 'text/markdown' },
  })
  expect(page.status).toBe(201)
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

/** A document whose one operation, POST /x, has `parameters`, with `components`. */
const documentWith = (parameters: unknown[], components: Record<string, unknown> = {}) => ({
  openapi: '3.1.0',
  info: { title: 'T', version: '1' },
  paths: { '/x': { post: { parameters, responses: { '200': { description: 'ok' } } } } },
  components,
})
const referenced = (parameter: unknown) =>
  documentWith([{ $ref: '#/components/parameters/P' }], { parameters: { P: parameter } })

const ROWS: [string, object, string | undefined][] = [
  ['a description that is a number', documentWith([{ name: 'p', in: 'query', description: 1 }]), '<code>p</code>'],
  ['a description that is a list', documentWith([{ name: 'p', in: 'query', description: ['a'] }]), '<code>p</code>'],
  ['a description that is a mapping', documentWith([{ name: 'p', in: 'query', description: {} }]), '<code>p</code>'],
  ['a description that is true', documentWith([{ name: 'p', in: 'query', description: true }]), '<code>p</code>'],
  ['required: "yes" (not a boolean)', documentWith([{ name: 'p', in: 'path', required: 'yes' }]), '<code>p</code>'],
  ['a schema that is a string', documentWith([{ name: 'p', in: 'query', schema: 'string' }]), '<code>p</code>'],
  ['a $ref to a parameter whose name is a number', referenced({ name: 5, in: 'query' }), undefined],
  ['a $ref to a parameter whose in is a mapping', referenced({ name: 'p', in: {} }), undefined],
  [
    'a $ref to a parameter with a numeric description',
    referenced({ name: 'q', in: 'query', description: 2 }),
    '<code>q</code>',
  ],
  ['a $ref to a list', referenced([1, 2]), undefined],
]

describe('wrong types inside parameters', () => {
  test.each(ROWS)('%s: every page that shows the operation is 200', async (_name, document, shows) => {
    const put = await t.request('/docs/assets/api.json', {
      method: 'PUT',
      token: writer,
      body: JSON.stringify(document),
    })
    expect(put.status).toBeLessThan(300)
    for (const url of ['/docs/op', '/docs/', '/docs/op.md', '/docs/llms-full.txt', '/docs/search?q=post']) {
      const response = await t.request(url)
      expect({ url, status: response.status }).toEqual({ url, status: 200 })
    }
    const html = await (await t.request('/docs/op')).text()
    if (shows !== undefined) expect(html).toContain(shows)
    else expect(html).not.toContain('<h2 id="parameters">')
  })
})
