import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * API pages rendered from the repository's own OpenAPI files (issue #27 §2): Mintlify's real document, a YAML
 * 3.0 and a JSON 3.1 one, named from docs.json, a navigation group or a page's front matter.
 */

const FIXTURES = join(import.meta.dir, '../fixtures')
const MINTLIFY = readFileSync(join(FIXTURES, 'mintlify-docs/openapi.json'))
const GREENHOUSE = readFileSync(join(FIXTURES, 'openapi-files/greenhouse-3.0.yaml'))
const SEED_BANK = readFileSync(join(FIXTURES, 'openapi-files/seed-bank-3.1.json'))

let t: TestApp
let writer: string

const putFile = async (path: string, body: BodyInit) => {
  const response = await t.request(`/docs/assets/${path}`, { method: 'PUT', token: writer, body })
  expect({ path, status: response.status }).toEqual({ path, status: response.status < 300 ? response.status : 201 })
  return response
}
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
const html = async (path: string) => {
  const response = await t.request(`/docs/${path}`)
  return { status: response.status, html: await response.text() }
}

const BASE = { name: 'Acme', colors: { primary: '#0D9488' } }

describe('API pages from stored OpenAPI files', () => {
  beforeAll(async () => {
    t = await makeTestApp()
    writer = await t.tokenFor('alice', ['docs:write'])
    await putFile('openapi.json', MINTLIFY)
    await putFile('api/greenhouse.yaml', GREENHOUSE)
    await putFile('api/seed-bank.json', SEED_BANK)
  }, SETUP_TIMEOUT)
  afterAll(() => t.close(), SETUP_TIMEOUT)

  test('each is stored as an OpenAPI document', async () => {
    const { files } = await (await t.request('/docs/assets')).json()
    expect(files.map((file: { path: string; kind: string }) => [file.path, file.kind])).toEqual([
      ['api/greenhouse.yaml', 'openapi'],
      ['api/seed-bank.json', 'openapi'],
      ['openapi.json', 'openapi'],
    ])
  })

  test("before the author's docs.json, Trellis's own site still documents this server, not a stored openapi.json", async () => {
    const page = await html('api-reference/plants/post-plants')
    expect(page.status).toBe(200)
    expect(page.html).toContain('<span class="method method-post">POST</span> <code>/plants</code>')
  })

  test("Mintlify's own document: a page's `openapi: METHOD /path` renders the operation from the repository's openapi.json, not Trellis's", async () => {
    await putDocs({
      ...BASE,
      navigation: [{ group: 'API', pages: ['api/trigger', 'api/status'] }],
      openapi: '/openapi.json',
    })
    await putPage('api/trigger', '---\nopenapi: POST /project/update/{projectId}\n---\n\nNotes by the author.\n')
    await putPage(
      'api/status',
      '---\ntitle: Status\nopenapi: openapi.json GET /project/update-status/{statusId}\n---\n',
    )
    const trigger = await html('api/trigger')
    expect(trigger.status).toBe(200)
    expect(trigger.html).toContain(
      '<span class="method method-post">POST</span> <code>/project/update/{projectId}</code>',
    )
    expect(trigger.html).toContain('Queue a deployment update for your documentation project.')
    expect(trigger.html).toContain('<td><code>projectId</code></td><td>path</td><td>string</td><td>yes</td>')
    expect(trigger.html).toContain('<span class="status status-2xx">202</span>')
    expect(trigger.html).toContain('Notes by the author.')
    expect(trigger.html).not.toContain('not an operation')
    // The playground sends to the document's server when docs.json names no api.baseUrl.
    expect(trigger.html).toContain('"baseUrls":["https://api.mintlify.com/v1"]')
    const status = await html('api/status')
    expect(status.html).toContain('<code>/project/update-status/{statusId}</code>')
  })

  test('YAML 3.0: parameters (path-level, query, header), a $ref’d body, responses with examples, the server variable filled', async () => {
    await putDocs({
      ...BASE,
      navigation: [{ group: 'API', pages: ['beds/read', 'beds/replant'] }],
      openapi: 'api/greenhouse.yaml',
    })
    await putPage('beds/read', '---\nopenapi: GET /beds/{bedId}\n---\n')
    await putPage('beds/replant', '---\nopenapi: api/greenhouse.yaml PUT /beds/{bedId}\n---\n')
    const read = (await html('beds/read')).html
    for (const row of [
      '<td><code>bedId</code></td><td>path</td><td>integer</td><td>yes</td><td>The raised bed&#39;s number.</td>',
      '<td><code>expand</code></td><td>query</td><td>boolean</td><td>no</td>',
      '<td><code>X-Gardener</code></td><td>header</td>',
    ])
      expect(read).toContain(row)
    expect(read).toContain('&quot;soil&quot;: &quot;loam&quot;')
    expect(read).toContain('Requires authentication')
    expect(read).toContain('"baseUrls":["https://eu.greenhouse.test/v2"]')
    const replant = (await html('beds/replant')).html
    expect(replant).toContain('<h2 id="request-body">Request body</h2>')
    expect(replant).toContain(
      '<code>soil</code> <span class="type">string</span> <span class="required">required</span>',
    )
    // A recursive schema (Plant.companions: Plant[]) is shown to a bounded depth, not forever.
    expect(replant.length).toBeLessThan(200_000)
  })

  test('api.baseUrl wins over the document servers', async () => {
    await putDocs({
      ...BASE,
      navigation: [{ group: 'API', pages: ['beds/read'] }],
      openapi: ['api/seed-bank.json', 'api/greenhouse.yaml'],
      api: { baseUrl: 'https://api.acme.test' },
    })
    expect((await html('beds/read')).html).toContain('"baseUrls":["https://api.acme.test"]')
  })

  test('JSON 3.1: type arrays, examples lists and a named example render', async () => {
    await putDocs({ ...BASE, navigation: [{ group: 'API', pages: ['seeds'] }], api: { openapi: 'api/seed-bank.json' } })
    await putPage('seeds', '---\nopenapi: GET /seeds\n---\n')
    const seeds = (await html('seeds')).html
    expect(seeds).toContain('<td><code>limit</code></td><td>query</td><td>integer | null</td>')
    expect(seeds).toContain('Pisum sativum')
    expect(seeds).toContain('"baseUrls":["https://seeds.example.test"]')
  })

  test('an operation no stored document has is a notice naming the documents searched', async () => {
    await putDocs({ ...BASE, navigation: [{ group: 'API', pages: ['gone'] }], openapi: 'api/greenhouse.yaml' })
    await putPage('gone', '---\nopenapi: DELETE /beds\n---\n')
    expect((await html('gone')).html).toContain('DELETE /beds is not an operation of api/greenhouse.yaml')
    await putPage('gone', '---\nopenapi: missing.yaml GET /x\n---\n')
    expect((await html('gone')).html).toContain('missing.yaml (no such document is stored)')
  })

  test('a navigation group with `openapi` lists one page per operation, by tag, at the paths Mintlify uses, and each renders', async () => {
    await putDocs({
      ...BASE,
      navigation: [
        { group: 'Start', pages: ['intro'] },
        { group: 'Greenhouse API', pages: ['overview'], openapi: 'api/greenhouse.yaml' },
        { group: 'Seeds', pages: ['seeds'], openapi: { source: '/api/seed-bank.json', directory: 'seed-api' } },
      ],
    })
    const home = (await html('intro')).html
    const links = [...home.matchAll(/<a href="\/docs\/([^"]+)"[^>]*>([^<]+)<\/a>/g)].map(([, href, label]) => [
      href,
      label,
    ])
    expect(links).toEqual(
      expect.arrayContaining([
        ['api-reference/beds/read-a-bed', 'Read a bed'],
        ['api-reference/beds/replant-a-bed', 'Replant a bed'],
        ['api-reference/post-harvests', 'POST /harvests'],
        ['seed-api/seeds/list-seeds', 'List seeds'],
      ]),
    )
    expect(home).toContain('<span class="nav-subgroup">Beds</span>')
    // x-hidden operations get no page.
    expect(home).not.toContain('Deposit seeds')
    const generated = await html('api-reference/beds/read-a-bed')
    expect(generated.status).toBe(200)
    expect(generated.html).toContain('<h1>Read a bed</h1>')
    expect(generated.html).toContain('<code>/beds/{bedId}</code>')
    expect((await html('seed-api/seeds/list-seeds')).html).toContain('<code>/seeds</code>')
    expect((await html('api-reference/beds/no-such-operation')).status).toBe(404)
  })

  test('"METHOD /path" page entries become the operation’s page, from the entry’s document or the one inherited', async () => {
    await putDocs({
      ...BASE,
      openapi: 'api/greenhouse.yaml',
      navigation: [
        { group: 'Start', pages: ['intro', 'GET /beds/{bedId}', 'api/seed-bank.json GET /seeds'] },
        { group: 'Seeds', openapi: 'api/seed-bank.json', pages: ['intro', 'GET /seeds'] },
        { group: 'Unknown', pages: ['intro', 'GET /nowhere'] },
      ],
    })
    const home = (await html('intro')).html
    expect(home).toContain('<a href="/docs/api-reference/beds/read-a-bed">Read a bed</a>')
    expect(home).toContain('<a href="/docs/api-reference/seeds/list-seeds">List seeds</a>')
    expect((await html('api-reference/beds/read-a-bed')).html).toContain('<code>/beds/{bedId}</code>')
    expect((await html('api-reference/seeds/list-seeds')).html).toContain('<code>/seeds</code>')
  })

  test("the current docs.json shape: a tab's own `openapi` and a group's list their operations in that sidebar", async () => {
    await putDocs({
      theme: 'mint',
      name: 'Acme',
      colors: { primary: '#0D9488' },
      navigation: {
        tabs: [
          { tab: 'Guides', groups: [{ group: 'Start', pages: ['intro'] }] },
          { tab: 'Greenhouse', openapi: 'api/greenhouse.yaml' },
          {
            tab: 'Seeds',
            groups: [{ group: 'Seed API', openapi: 'api/seed-bank.json', pages: ['seeds', 'GET /seeds'] }],
          },
        ],
      },
    })
    const greenhouse = await html('api-reference/beds/read-a-bed')
    expect(greenhouse.status).toBe(200)
    expect(greenhouse.html).toContain('<h1>Read a bed</h1>')
    // The tab's pages are its own sidebar, a group per tag, with no nameless group around them.
    expect(greenhouse.html).toContain('<h2 class="nav-group">Beds</h2>')
    expect(greenhouse.html).toContain('<a href="/docs/api-reference/beds/replant-a-bed">Replant a bed</a>')
    expect(greenhouse.html).not.toContain('<h2 class="nav-group"></h2>')
    const seeds = await html('seeds')
    expect(seeds.html).toContain('<h2 class="nav-group">Seed API</h2>')
    expect(seeds.html).toContain('<a href="/docs/api-reference/seeds/list-seeds">List seeds</a>')
    expect((await html('api-reference/seeds/list-seeds')).html).toContain('<code>/seeds</code>')
    // Not in the guides tab's sidebar.
    expect((await html('intro')).html).not.toContain('Replant a bed')
  })

  test('a new upload of the document shows on the next request: the site does not serve the old operations', async () => {
    await putDocs({ ...BASE, navigation: [{ group: 'API', pages: ['seeds'] }], openapi: 'api/seed-bank.json' })
    await putPage('seeds', '---\nopenapi: GET /seeds\n---\n')
    expect((await html('seeds')).html).toContain('The seeds.')
    const renamed = SEED_BANK.toString().replace('"The seeds."', '"Every seed in the bank."')
    await putFile('api/seed-bank.json', renamed)
    expect((await html('seeds')).html).toContain('Every seed in the bank.')
  })
})
