import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * GET /docs/search over the API operations of the repository's own OpenAPI files (issue #27 §3): the pages a
 * navigation group's `openapi` generates, and stored pages whose front matter names an operation, found by the
 * operation's words and kept in step with docs.json and the documents. Runs on PGlite, and on PostgreSQL with
 * DATABASE_URL.
 */

let t: TestApp
let writer: string
beforeEach(async () => {
  t = await makeTestApp()
  writer = await t.tokenFor('docs-author', ['docs:write'])
}, SETUP_TIMEOUT)
afterEach(() => t.close(), SETUP_TIMEOUT)

type Result = { title: string; url: string; path: string; kind: string; snippet: string }

/** A small OpenAPI 3.0 document in YAML: one operation per entry of `operations`. */
const openApiYaml = (operations: { path: string; summary: string; description: string; parameter: string }[]) =>
  [
    'openapi: 3.0.3',
    'info: { title: Orchard, version: "1.0" }',
    'paths:',
    ...operations.flatMap((operation) => [
      `  ${operation.path}:`,
      '    get:',
      `      summary: ${operation.summary}`,
      `      description: ${operation.description}`,
      '      tags: [Trees]',
      '      parameters:',
      `        - { name: ${operation.parameter}, in: query, schema: { type: string } }`,
      '      responses:',
      "        '200': { description: OK }",
    ]),
  ].join('\n')

const PRUNE = {
  path: '/trees/prune',
  summary: 'Prune the quinces',
  description: 'Cuts back every espalier.',
  parameter: 'loppers',
}
const GRAFT = {
  path: '/trees/graft',
  summary: 'Graft a medlar',
  description: 'Joins a scion to rootstock.',
  parameter: 'budwood',
}

const putFile = async (path: string, body: string) =>
  expect((await t.request(`/docs/assets/${path}`, { method: 'PUT', token: writer, body })).status).toBeLessThan(300)
const putDocs = async (config: unknown) =>
  expect((await t.request('/docs.json', { method: 'PUT', token: writer, json: config })).status).toBeLessThan(300)
const putPage = async (path: string, text: string) =>
  expect(
    (
      await t.request(`/docs/pages/${path}`, {
        method: 'PUT',
        token: writer,
        body: text,
        headers: { 'content-type': 'text/markdown' },
      })
    ).status,
  ).toBeLessThan(300)
const search = async (q: string): Promise<Result[]> => {
  const response = await t.request(`/docs/search?q=${encodeURIComponent(q)}`)
  expect(response.status).toBe(200)
  return ((await response.json()) as { results: Result[] }).results
}

const GENERATED_SITE = {
  name: 'Orchard',
  colors: { primary: '#0D9488' },
  navigation: [
    { group: 'Guides', pages: ['intro'] },
    { group: 'API', pages: ['overview'], openapi: 'api/orchard.yaml' },
  ],
}

describe('pages generated from an OpenAPI file', () => {
  test("an operation's summary, description, method, path and parameter names find its generated page", async () => {
    await putFile('api/orchard.yaml', openApiYaml([PRUNE]))
    await putDocs(GENERATED_SITE)
    const [hit] = await search('quinces')
    expect(hit).toMatchObject({
      title: 'Prune the quinces',
      url: '/docs/api-reference/trees/prune-the-quinces',
      kind: 'operation',
    })
    // The URL is the page the site serves, with the operation on it.
    const page = await t.request(hit!.url)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<code>/trees/prune</code>')
    for (const words of ['espalier', 'loppers', '/trees/prune'])
      expect({ words, urls: (await search(words)).map((result) => result.url) }).toEqual({
        words,
        urls: ['/docs/api-reference/trees/prune-the-quinces'],
      })
  })

  test('after the OpenAPI file changes, the old operation is gone and the new one is found', async () => {
    await putFile('api/orchard.yaml', openApiYaml([PRUNE]))
    await putDocs(GENERATED_SITE)
    expect(await search('quinces')).toHaveLength(1)
    await putFile('api/orchard.yaml', openApiYaml([GRAFT]))
    expect(await search('quinces')).toEqual([])
    expect((await search('medlar')).map((result) => result.url)).toEqual(['/docs/api-reference/trees/graft-a-medlar'])
  })

  test('when docs.json no longer names the file, its pages are no longer found', async () => {
    await putFile('api/orchard.yaml', openApiYaml([PRUNE]))
    await putDocs(GENERATED_SITE)
    expect(await search('quinces')).toHaveLength(1)
    await putDocs({ ...GENERATED_SITE, navigation: [{ group: 'Guides', pages: ['intro'] }] })
    expect(await search('quinces')).toEqual([])
  })

  test('a stored page at a generated path is the one found (the site shows it)', async () => {
    await putFile('api/orchard.yaml', openApiYaml([PRUNE]))
    await putDocs(GENERATED_SITE)
    await putPage('api-reference/trees/prune-the-quinces', '---\ntitle: Pruning by hand\n---\nQuinces need care.\n')
    const results = await search('quinces')
    expect(results.map((result) => [result.title, result.kind])).toEqual([['Pruning by hand', 'page']])
  })

  test('a site of many operations is indexed a batch per search, and completely after a few', async () => {
    const many = Array.from({ length: 120 }, (_, index) => ({
      path: `/trees/t${index}`,
      summary: `Tend tree number${index}`,
      description: 'Looks after one pear.',
      parameter: 'shears',
    }))
    await putFile('api/orchard.yaml', openApiYaml(many))
    await putDocs(GENERATED_SITE)
    // Each search indexes at most 50 pages before it answers: the third finds the last operation.
    expect(await search('number0')).toHaveLength(1)
    expect(await search('number119')).toEqual([])
    expect(await search('number119')).toHaveLength(1)
    expect(await search('number0')).toHaveLength(1)
  })
})

describe("a stored page whose front matter names an operation of the repository's OpenAPI file", () => {
  const SITE = {
    name: 'Orchard',
    colors: { primary: '#0D9488' },
    navigation: [{ group: 'API', pages: ['api/prune'] }],
    openapi: 'api/orchard.yaml',
  }

  test("is found by its operation's description and parameter names, the document named or not", async () => {
    await putFile('api/orchard.yaml', openApiYaml([PRUNE, GRAFT]))
    await putDocs(SITE)
    await putPage('api/prune', '---\ntitle: Pruning\nopenapi: GET /trees/prune\n---\n')
    await putPage('api/graft', '---\ntitle: Grafting\nopenapi: api/orchard.yaml GET /trees/graft\n---\n')
    expect((await search('espalier')).map((result) => [result.url, result.kind])).toEqual([
      ['/docs/api/prune', 'operation'],
    ])
    expect((await search('rootstock budwood')).map((result) => result.url)).toEqual(['/docs/api/graft'])
  })

  test('stored before its OpenAPI file, it is found once the file is', async () => {
    await putDocs(SITE)
    await putPage('api/prune', '---\ntitle: Pruning\nopenapi: GET /trees/prune\n---\n')
    expect(await search('espalier')).toEqual([])
    await putFile('api/orchard.yaml', openApiYaml([PRUNE]))
    expect((await search('espalier')).map((result) => result.url)).toEqual(['/docs/api/prune'])
  })
})
