import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * OpenAPI documents written to make the server work: each is stored (or refused with a 400 naming why) and the
 * API page naming its operation renders within bounds of time and size. No document may make a page render
 * forever or grow without bound.
 */

let t: TestApp
let writer: string

const info = { title: 'Hostile', version: '1' }
/** A document whose one operation, GET /x, answers `schema`, with `schemas` as components. */
const withSchema = (schema: unknown, schemas: Record<string, unknown>) =>
  JSON.stringify({
    openapi: '3.1.0',
    info,
    paths: {
      '/x': {
        post: {
          requestBody: { content: { 'application/json': { schema } } },
          responses: { '200': { description: 'ok', content: { 'application/json': { schema } } } },
        },
      },
    },
    components: { schemas },
  })

/** `levels` schemas, each with `width` required properties that all refer to the next: width^levels fields if expanded. */
function fanOut(width: number, levels: number): string {
  const schemas: Record<string, unknown> = {}
  for (let level = 0; level < levels; level++) {
    const next = level + 1 < levels ? { $ref: `#/components/schemas/L${level + 1}` } : { type: 'string' }
    const names = Array.from({ length: width }, (_, i) => `p${i}`)
    schemas[`L${level}`] = {
      type: 'object',
      required: names,
      properties: Object.fromEntries(names.map((n) => [n, next])),
    }
  }
  return withSchema({ $ref: '#/components/schemas/L0' }, schemas)
}

type Row = {
  name: string
  file: string
  text: () => string
  status: number
  message?: string
  operation?: string
  /** Text the rendered page must hold. */
  shows?: string
}

const rows: Row[] = [
  {
    name: 'a $ref cycle (A → B → A) and a schema that is its own item',
    file: 'cycle.json',
    text: () =>
      withSchema(
        { $ref: '#/components/schemas/A' },
        {
          A: { type: 'object', required: ['b'], properties: { b: { $ref: '#/components/schemas/B' } } },
          B: {
            type: 'object',
            required: ['a', 'self'],
            properties: {
              a: { $ref: '#/components/schemas/A' },
              self: { type: 'array', items: { $ref: '#/components/schemas/B' } },
            },
          },
        },
      ),
    status: 201,
    operation: 'POST /x',
  },
  {
    name: 'a chain of 5,000 $refs',
    file: 'chain.json',
    text: () =>
      withSchema(
        { $ref: '#/components/schemas/S0' },
        Object.fromEntries(
          Array.from({ length: 5000 }, (_, i) => [
            `S${i}`,
            i < 4999 ? { $ref: `#/components/schemas/S${i + 1}` } : { type: 'string' },
          ]),
        ),
      ),
    status: 201,
    operation: 'POST /x',
  },
  {
    name: 'a fan-out of 12 properties over 6 levels (3 million fields if expanded)',
    file: 'fan.json',
    text: () => fanOut(12, 6),
    status: 201,
    operation: 'POST /x',
    shows: 'more fields not shown',
  },
  {
    name: 'an object of 100,000 properties',
    file: 'wide.json',
    text: () =>
      withSchema(
        {
          type: 'object',
          properties: Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`f${i}`, { type: 'string' }])),
        },
        {},
      ),
    status: 201,
    operation: 'POST /x',
  },
  {
    name: 'a YAML mapping of 80,000 keys (quadratic in a duplicate-key check)',
    file: 'keys.yaml',
    text: () =>
      `openapi: 3.1.0\ninfo: {title: K, version: "1"}\npaths: {}\nx-keys:\n${Array.from({ length: 80_000 }, (_, i) => `  k${i}: ${i}`).join('\n')}\n`,
    status: 201,
  },
  {
    name: 'a document over 8 MiB',
    file: 'huge.json',
    text: () => JSON.stringify({ openapi: '3.1.0', info, paths: {}, 'x-pad': 'x'.repeat(8 * 1024 * 1024) }),
    status: 400,
    message: 'may hold at most 8 MiB',
  },
  {
    name: 'nesting 10,000 levels deep',
    file: 'deep.json',
    text: () =>
      `{"openapi":"3.1.0","info":{"title":"D","version":"1"},"paths":{},"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    status: 400,
    message: 'deeper than 64 levels',
  },
  {
    name: "OpenAI's published document (3.4 MB, real)",
    file: 'openai.json',
    text: () => readFileSync(join(import.meta.dir, '../fixtures/openai-openapi/openai-openapi.json'), 'utf8'),
    status: 201,
    operation: 'POST /chat/completions',
  },
]

describe('hostile OpenAPI documents', () => {
  beforeAll(async () => {
    t = await makeTestApp()
    writer = await t.tokenFor('alice', ['docs:write'])
  }, SETUP_TIMEOUT)
  afterAll(() => t.close(), SETUP_TIMEOUT)

  for (const row of rows) {
    test(`${row.name}: ${row.status}${row.operation ? ', and its page renders within bounds' : ''}`, async () => {
      const put = await t.request(`/docs/assets/${row.file}`, { method: 'PUT', token: writer, body: row.text() })
      const answer = await put.json()
      expect({ status: put.status, message: answer.message }).toMatchObject({ status: row.status })
      if (row.message !== undefined) expect(answer.message).toContain(row.message)
      if (row.operation === undefined) return
      const config = { name: 'H', navigation: [{ group: 'G', pages: ['op'] }], openapi: row.file }
      expect((await t.request('/docs.json', { method: 'PUT', token: writer, json: config })).status).toBeLessThan(300)
      const page = `---\nopenapi: ${row.operation}\n---\n`
      const stored = await t.request('/docs/pages/op', {
        method: 'PUT',
        token: writer,
        body: page,
        headers: { 'content-type': 'text/markdown' },
      })
      expect(stored.status).toBeLessThan(300)
      const started = performance.now()
      const response = await t.request('/docs/op')
      const html = await response.text()
      const elapsed = performance.now() - started
      expect(response.status).toBe(200)
      expect(html).toContain(`<code>${row.operation.split(' ')[1]}</code>`)
      if (row.shows !== undefined) expect(html).toContain(row.shows)
      expect({ elapsedUnder3s: elapsed < 3000, sizeUnder4MiB: html.length < 4 * 1024 * 1024 }).toEqual({
        elapsedUnder3s: true,
        sizeUnder4MiB: true,
      })
    }, 60_000)
  }
})
