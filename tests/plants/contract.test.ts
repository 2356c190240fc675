import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import Ajv from 'ajv'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { makeTestApp, SETUP_TIMEOUT, type TestApp, uniqueOwner } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * Every response of the three plant operations is checked, by a JSON Schema validator,
 * against the published contract in tests/fixtures, extended with the statuses our
 * own OpenAPI document adds (each with the contract's Error schema).
 */
const REFERENCE = JSON.parse(readFileSync(join(import.meta.dir, '../fixtures/plant-store.openapi.json'), 'utf8'))

type Observed = { method: string; template: string; status: number; contentType: string | null; body: string }

let t: TestApp
const observed: Observed[] = []
beforeAll(async () => {
  t = await makeTestApp()
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

async function call(method: string, template: string, path: string, init: Parameters<TestApp['request']>[1] = {}) {
  const response = await t.request(path, { method, ...init })
  observed.push({
    method,
    template,
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: await response.text(),
  })
}

test('a scenario exercising every status of the three operations', async () => {
  const alice = await t.tokenFor(uniqueOwner('alice'))
  const reader = await t.tokenFor(uniqueOwner('reader'), ['plants:read'])
  await call('post', '/plants', '/plants', { token: alice, json: { name: 'Monstera', tag: 'tropical', id: 1 } })
  await call('post', '/plants', '/plants', { token: alice, json: { name: 'Fern' } })
  await call('post', '/plants', '/plants', { token: alice, json: { name: 'Again', id: 1 } })
  await call('post', '/plants', '/plants', { token: alice, json: '{"name":' })
  await call('post', '/plants', '/plants', { token: alice, json: { name: 'x', extra: 1 } })
  await call('post', '/plants', '/plants', {
    token: alice,
    body: 'name=x',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })
  await call('post', '/plants', '/plants', { token: alice, json: { name: 'x'.repeat(2 * 1024 * 1024) } })
  await call('post', '/plants', '/plants', { json: { name: 'anonymous' } })
  await call('post', '/plants', '/plants', { token: reader, json: { name: 'read-only' } })
  for (let i = 0; i < 3; i++)
    await call('post', '/plants', '/plants', { token: alice, json: { name: `bulk ${i}`, tag: 'b' } })
  await call('get', '/plants', '/plants', { token: alice })
  await call('get', '/plants', '/plants?limit=2', { token: alice })
  await call('get', '/plants', '/plants?limit=0', { token: alice })
  await call('get', '/plants', '/plants', {})
  await call('get', '/plants', '/plants', { headers: { authorization: 'Basic abc' } })
  await call('delete', '/plants/{id}', '/plants/1', { token: alice })
  await call('delete', '/plants/{id}', '/plants/1', { token: alice })
  await call('delete', '/plants/{id}', '/plants/abc', { token: alice })
  await call('delete', '/plants/{id}', '/plants/2', { token: reader })
  const statuses = new Set(observed.map((o) => o.status))
  expect([...statuses].sort()).toEqual([200, 204, 400, 401, 403, 404, 409, 413, 415])
})

test('every observed response validates against the published contract (extended with our documented statuses)', async () => {
  const ours = await (await t.request('/openapi.json')).json()
  const ajv = new Ajv({ strict: false, allErrors: true })
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  })
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) })
  ajv.addSchema({ $id: 'contract', components: REFERENCE.components })
  const problems: string[] = []
  for (const o of observed) {
    const operation = REFERENCE.paths[o.template][o.method]
    const documented = ours.paths[o.template.replace('{id}', '{id}')]?.[o.method]?.responses ?? {}
    const where = `${o.method.toUpperCase()} ${o.template} → ${o.status}`
    if (!(String(o.status) in documented)) problems.push(`${where}: status missing from our /openapi.json`)
    const declared = operation.responses[String(o.status)]
    if (o.status === 204) {
      if (o.body !== '') problems.push(`${where}: 204 must have no body`)
      continue
    }
    // Statuses beyond the contract's own use the contract's Error schema, as our document declares.
    const schema = declared?.content?.['application/json']?.schema ?? { $ref: '#/components/schemas/Error' }
    if (!o.contentType?.startsWith('application/json')) problems.push(`${where}: content-type ${o.contentType}`)
    const validate = ajv.compile(
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components', '"contract#/components')),
    )
    if (!validate(JSON.parse(o.body)))
      problems.push(`${where}: ${ajv.errorsText(validate.errors)} in ${o.body.slice(0, 120)}`)
  }
  expect(problems).toEqual([])
})

test('the validator really rejects a body that breaks the contract', () => {
  const ajv = new Ajv({ strict: false })
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) })
  ajv.addSchema({ $id: 'contract', components: REFERENCE.components })
  const validate = ajv.compile({ $ref: 'contract#/components/schemas/Error' })
  expect(validate({ error: 400, message: 'fine' })).toBe(true)
  expect(validate({ error: '400', message: 'fine' })).toBe(false)
  expect(validate({ message: 'no status' })).toBe(false)
})

test("our OpenAPI document declares bearerAuth and the contract's parameter types", async () => {
  const ours = await (await t.request('/openapi.json')).json()
  expect(ours.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
  const del = ours.paths['/plants/{id}'].delete
  // The contract says integer/int64; a path segment is text, and a generated client would type an
  // integer as a JavaScript number, which rounds above 2^53. So: a string of int64 digits.
  const id = del.parameters.find((p: { name: string }) => p.name === 'id')
  expect(id.schema).toEqual({ type: 'string', pattern: '^(0|-?[1-9][0-9]{0,18})$' })
  expect(id.description).toContain('2^53')
  expect(ours.paths['/plants'].post.requestBody.content['application/json'].schema.properties.id).toMatchObject({
    type: 'integer',
    format: 'int64',
  })
  const get = ours.paths['/plants'].get
  expect(get.parameters.find((p: { name: string }) => p.name === 'limit').schema).toMatchObject({
    type: 'integer',
    minimum: 1,
    maximum: 1000,
  })
  for (const op of [ours.paths['/plants'].post, get, del]) expect(op.security).toEqual([{ bearerAuth: [] }])
})
