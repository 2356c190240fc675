import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * The current docs.json shape's API settings on API pages (issue #27 §2): `api.playground.display`,
 * `api.examples.languages`, and `api.mdx.server`/`api.mdx.auth` for MDX endpoint pages (`api:` front matter).
 * The older shape's `api.playground.mode` rows are in site.test.ts.
 */

let t: TestApp
let writer: string
beforeAll(async () => {
  t = await makeTestApp()
  writer = await t.tokenFor('docs-author', ['docs:write'])
  await putPage('api-reference/create', '---\ntitle: Create\nopenapi: "POST /plants"\n---\n\nNotes under it.\n')
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const putPage = async (path: string, text: string) => {
  const response = await t.request(`/docs/pages/${path}`, {
    method: 'PUT',
    token: writer,
    body: text,
    headers: { 'content-type': 'text/markdown' },
  })
  expect([200, 201]).toContain(response.status)
}
/** A docs.json of the current shape with `api` settings; its API pages document this server's own /openapi.json. */
const putApi = async (api: Record<string, unknown>) => {
  const config = {
    theme: 'mint',
    name: 'Acme',
    colors: { primary: '#16A34A' },
    navigation: { groups: [{ group: 'API', pages: ['api-reference/create', 'users/update'] }] },
    api: { openapi: '/openapi.json', ...api },
  }
  const response = await t.request('/docs.json', { method: 'PUT', token: writer, json: config })
  expect({ status: response.status, body: response.status === 200 ? '' : await response.text() }).toEqual({
    status: 200,
    body: '',
  })
}
const page = async (path: string) => {
  const response = await t.request(`/docs/${path}`)
  expect(response.status).toBe(200)
  return { html: await response.text(), csp: response.headers.get('content-security-policy') ?? '' }
}

const FORM = '<form class="playground-form">'
const SEND = 'Send POST request</button>'
const CURL = 'class="curl"'

describe('api.playground.display on an OpenAPI page', () => {
  test.each([
    ['interactive', [FORM, SEND], [CURL]],
    ['simple', [CURL, 'curl -X POST &#39;/plants&#39;'], [FORM, SEND]],
    ['none', [], [FORM, SEND, CURL]],
    // Mintlify shows it to signed-in readers only; a Trellis site has no readers' sign-in.
    ['auth', [], [FORM, SEND, CURL]],
  ] as const)('display %s', async (display, present, absent) => {
    await putApi({ playground: { display } })
    const { html } = await page('api-reference/create')
    expect(html).toContain('<span class="method method-post">POST</span> <code>/plants</code>')
    expect(html).toContain('Notes under it.')
    for (const text of present) expect(html).toContain(text)
    for (const text of absent) expect(html).not.toContain(text)
  })
})

describe('api.examples.languages: the code samples a simple playground shows', () => {
  test.each([
    ['none named: cURL', undefined, ['curl -X POST'], ['import requests', 'fetch(']],
    [
      'python',
      ['python'],
      ['<figcaption>Python</figcaption>', 'import requests', 'requests.request(&quot;POST&quot;'],
      ['curl -X'],
    ],
    [
      'javascript then curl, in that order',
      ['javascript', 'bash'],
      ['<figcaption>JavaScript</figcaption><pre><code class="language-javascript"', 'fetch(&quot;/plants&quot;'],
      ['import requests'],
    ],
    ['only languages Trellis does not write: cURL', ['go', 'ruby'], ['curl -X POST'], ['import requests']],
  ] as const)('%s', async (_, languages, present, absent) => {
    await putApi({ playground: { display: 'simple' }, ...(languages && { examples: { languages } }) })
    const { html } = await page('api-reference/create')
    for (const text of present) expect(html).toContain(text)
    for (const text of absent) expect(html).not.toContain(text)
    if (languages?.[0] === 'javascript') expect(html.indexOf('JavaScript')).toBeLessThan(html.indexOf('cURL'))
  })
})

describe('MDX endpoint pages: `api:` front matter, sent to api.mdx.server', () => {
  test.each([
    [
      'a path goes to api.mdx.server, its {id} a field',
      'POST /users/{id}',
      { mdx: { server: 'https://api.acme.test/v2' } },
      [FORM, '"baseUrls":["https://api.acme.test/v2"]', '"path":"/users/{id}"', 'data-name="id"', '"jsonBody":true'],
      "connect-src 'self' https://api.acme.test",
    ],
    [
      'a whole URL goes to its own origin',
      'GET https://other.acme.test/v1/users',
      { mdx: { server: 'https://api.acme.test' } },
      ['"baseUrls":["https://other.acme.test"]', '"path":"/v1/users"', '"jsonBody":false'],
      "connect-src 'self' https://api.acme.test https://other.acme.test;",
    ],
    [
      'simple: the samples name the server and api.mdx.auth',
      'DELETE /users/{id}',
      {
        mdx: { server: 'https://api.acme.test/v2', auth: { method: 'key', name: 'X-Acme-Key' } },
        playground: { display: 'simple' },
      },
      ['curl -X DELETE &#39;https://api.acme.test/v2/users/{id}&#39;', '-H &#39;X-Acme-Key: &lt;key&gt;&#39;'],
      "connect-src 'self' https://api.acme.test",
    ],
    [
      'display none: the endpoint only',
      'GET /users',
      { mdx: { server: 'https://api.acme.test' }, playground: { display: 'none' } },
      ['<code>/users</code>'],
      '',
    ],
    [
      'markup in the path is text',
      'GET /users/<b>{id}</b>',
      {},
      ['<code>/users/&lt;b&gt;{id}&lt;/b&gt;</code>', '"path":"/users/\\u003cb>{id}\\u003c/b>"'],
      '',
    ],
    [
      'not an endpoint: a notice',
      'FETCH /users',
      {},
      ['The front matter&#39;s api value &quot;FETCH /users&quot; is not &quot;METHOD /path&quot;'],
      '',
    ],
  ] as const)('%s', async (_, endpoint, api, present, csp) => {
    await putApi(api)
    await putPage(
      'users/update',
      `---\ntitle: Update a user\napi: "${endpoint}"\n---\n\n<ParamField path="id">The user.</ParamField>\n`,
    )
    const shown = await page('users/update')
    for (const text of present) expect(shown.html).toContain(text)
    expect(shown.csp).toContain(csp)
    if (endpoint === 'GET /users') expect(shown.html).not.toMatch(/playground/)
  })
})
