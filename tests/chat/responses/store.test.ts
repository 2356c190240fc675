/**
 * Stored responses (`store`, true unless false): kept per owner with their input items, for
 * `previous_response_id`, `item_reference`, `GET /v1/responses/{id}`, `GET
 * /v1/responses/{id}/input_items` and `DELETE /v1/responses/{id}`. Another owner's are answered as
 * ones that do not exist. They expire after RESPONSES_RETENTION_DAYS (reads skip them; a sweep
 * deletes them), each holds at most RESPONSES_MAX_STORED_BYTES of conversation, and database
 * trouble is a 503 with Retry-After.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createEchoProvider } from '../../../src/chat/providers/echo/echo'
import type { JsonObject } from '../../../src/chat/providers/provider'
import { startRetentionSweep, sweepExpired } from '../../../src/chat/responses/retention'
import { ResponseStore } from '../../../src/chat/responses/store'
import { SETUP_TIMEOUT } from '../../helpers/app'
import { openAISpec } from '../../helpers/openai-spec'
import { readAll, registryOf } from '../chat-app'
import { makeResponsesApp, responseEventsOf, scripted } from './responses-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const DAY = 86_400_000
let now = new Date('2026-11-01T12:00:00Z')
const recorder = scripted('recorder', [], { role: 'assistant', content: 'noted' })

let t: Awaited<ReturnType<typeof makeResponsesApp>>
let other: string
beforeAll(async () => {
  const echo = createEchoProvider()
  t = await makeResponsesApp({
    chat: { registry: registryOf({ echo, recorder }), keepAliveMs: 15_000 },
    env: { RESPONSES_MAX_STORED_BYTES: '4kb' },
    deps: { clock: () => now },
  })
  other = await t.tokenFor('someone-else', ['chat'])
  openAISpec()
}, SETUP_TIMEOUT)
afterAll(() => t.close().catch(() => {}), SETUP_TIMEOUT)

async function create(body: Record<string, unknown>, token = t.token): Promise<JsonObject & { id: string }> {
  const response = await t.respond(body, { token })
  const json = await response.json()
  expect({ status: response.status, json }).toMatchObject({ status: 200 })
  return json
}

const get = (path: string, token = t.token) => t.request(path, { token })

describe('a stored response', () => {
  test('is retrieved as it was answered; its input items listed with ids', async () => {
    const answered = await create({ model: 'echo', input: 'Hello there', metadata: { k: 'v' } })
    const retrieved = await get(`/v1/responses/${answered.id}`)
    expect(retrieved.status).toBe(200)
    const json = await retrieved.json()
    expect(json).toEqual(answered)
    openAISpec().assert('Response', json)
    const items = await (await get(`/responses/${answered.id}/input_items`)).json()
    openAISpec().assert('ResponseItemList', items)
    expect(items).toEqual({
      object: 'list',
      data: [
        {
          id: expect.stringMatching(/^msg_/),
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: 'Hello there' }],
          status: 'completed',
        },
      ],
      first_id: items.data[0].id,
      last_id: items.data[0].id,
      has_more: false,
    })
  })

  test('every kind of input item is listed as OpenAI lists it (ids made where the client gave none)', async () => {
    const answered = await create({
      model: 'echo',
      input: [
        { role: 'developer', content: 'rules' },
        { role: 'user', content: [{ type: 'input_image', image_url: 'https://example.com/a.png' }] },
        { type: 'reasoning', id: 'rs_7', summary: [], content: null, encrypted_content: 'opaque' },
        { role: 'assistant', content: 'Calling.' },
        { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'done' },
        { role: 'user', content: 'thanks' },
      ],
    })
    const items = await (await get(`/v1/responses/${answered.id}/input_items?order=asc`)).json()
    openAISpec().assert('ResponseItemList', items)
    expect(items.data.map((item: { id: string }) => item.id.replace(/_.*/, '_'))).toEqual([
      'msg_',
      'msg_',
      'rs_',
      'msg_',
      'fc_',
      'fco_',
      'msg_',
    ])
    expect(items.data[3].content).toEqual([{ type: 'output_text', text: 'Calling.', annotations: [], logprobs: [] }])
  })

  test('a streamed one is stored before response.completed is sent', async () => {
    const response = await t.respond({ model: 'echo', input: 'streamed', stream: true })
    const text = await readAll(response)
    const completed = JSON.parse(
      text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .at(-1)!
        .slice(6),
    )
    expect(completed.type).toBe('response.completed')
    const retrieved = await (await get(`/v1/responses/${completed.response.id}`)).json()
    expect(retrieved).toEqual(completed.response)
  })

  test('store: false keeps nothing', async () => {
    const answered = await create({ model: 'echo', input: 'forget me', store: false })
    expect(answered.store).toBe(false)
    expect((await get(`/v1/responses/${answered.id}`)).status).toBe(404)
  })

  test('is deleted with its items; after that it does not exist', async () => {
    const answered = await create({ model: 'echo', input: 'short-lived' })
    const deleted = await t.request(`/v1/responses/${answered.id}`, { method: 'DELETE', token: t.token })
    expect(await deleted.json()).toEqual({ id: answered.id, object: 'response', deleted: true })
    expect((await get(`/v1/responses/${answered.id}`)).status).toBe(404)
    expect((await t.request(`/v1/responses/${answered.id}`, { method: 'DELETE', token: t.token })).status).toBe(404)
    const message = (answered.output as JsonObject[])[0]!.id
    const referenced = await t.respond({ model: 'echo', input: [{ type: 'item_reference', id: message }] })
    expect(referenced.status).toBe(400)
  })
})

describe('continuing a conversation', () => {
  test('previous_response_id prepends the previous input and output, not its instructions', async () => {
    const first = await create({ model: 'recorder', input: 'My name is Ann.', instructions: 'Be terse.' })
    const second = await create({ model: 'recorder', input: 'What is it?', previous_response_id: first.id })
    expect(second.previous_response_id).toBe(first.id)
    await create({ model: 'recorder', input: 'And again?', previous_response_id: second.id })
    expect(recorder.sent.at(-1)!.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'My name is Ann.' }] },
      { role: 'assistant', content: 'noted' },
      { role: 'user', content: [{ type: 'text', text: 'What is it?' }] },
      { role: 'assistant', content: 'noted' },
      { role: 'user', content: [{ type: 'text', text: 'And again?' }] },
    ])
    // A response's input items are its own, not those it continued.
    const items = await (await get(`/v1/responses/${second.id}/input_items`)).json()
    expect(items.data.map((item: { content: { text: string }[] }) => item.content[0]!.text)).toEqual(['What is it?'])
  })

  test('a function call answered through previous_response_id', async () => {
    const tools = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} } }]
    const asked = await create({ model: 'echo', input: 'Weather?', tools, tool_choice: 'required' })
    const call = (asked.output as JsonObject[])[0] as { type: string; call_id: string }
    expect(call.type).toBe('function_call')
    const answered = await create({
      model: 'echo',
      previous_response_id: asked.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '21C and sunny' }],
      tools,
    })
    expect(answered.status).toBe('completed')
  })

  test('item_reference names an item of an earlier response (the AI SDK sends them by default)', async () => {
    const first = await create({ model: 'recorder', input: 'Remember this.' })
    const [message] = first.output as { id: string }[]
    await create({
      model: 'recorder',
      input: [
        { role: 'user', content: 'Remember this.' },
        { type: 'item_reference', id: message!.id },
        { role: 'user', content: 'What did you say?' },
      ],
    })
    expect(recorder.sent.at(-1)!.messages[1]).toEqual({ role: 'assistant', content: 'noted' })
  })

  test('an unknown previous response, or another owner’s, is previous_response_not_found, word for word alike', async () => {
    const mine = await create({ model: 'echo', input: 'private' })
    const answers = []
    for (const [id, token] of [
      [mine.id, other],
      ['resp_doesnotexist', t.token],
    ] as const) {
      const response = await t.respond({ model: 'echo', input: 'hi', previous_response_id: id }, { token })
      expect(response.status).toBe(400)
      answers.push((await response.json()).error)
    }
    expect(answers[0]).toEqual({
      message: `Previous response with id '${mine.id}' not found.`,
      type: 'invalid_request_error',
      param: 'previous_response_id',
      code: 'previous_response_not_found',
    })
    expect(answers[1].code).toBe('previous_response_not_found')
    const referenced = await t.respond(
      { model: 'echo', input: [{ type: 'item_reference', id: (mine.output as JsonObject[])[0]!.id }] },
      { token: other },
    )
    expect((await referenced.json()).error).toMatchObject({ param: 'input[0]', code: 'item_reference_not_found' })
  })
})

describe('owners and ids', () => {
  test("another owner's response is a 404 for every route, as one that does not exist", async () => {
    const mine = await create({ model: 'echo', input: 'mine' })
    for (const [method, path] of [
      ['GET', `/v1/responses/${mine.id}`],
      ['GET', `/v1/responses/${mine.id}/input_items`],
      ['DELETE', `/v1/responses/${mine.id}`],
    ]) {
      const response = await t.request(path!, { method, token: other })
      expect(response.status).toBe(404)
      expect((await response.json()).error.message).toBe(`Response with id '${mine.id}' not found.`)
    }
    expect((await get(`/v1/responses/${mine.id}`)).status).toBe(200)
  })

  test.each([
    ['a NUL', '%00'],
    ['a dot', 'resp.1'],
    ['300 characters', 'r'.repeat(300)],
    ['an encoded slash', 'resp%2F1'],
  ])('an id with %s is a 404, never a 500', async (_name, id) => {
    for (const path of [`/v1/responses/${id}`, `/v1/responses/${id}/input_items`])
      expect((await get(path)).status).toBe(404)
  })

  test('replaying a stored response as events is refused, naming stream', async () => {
    const mine = await create({ model: 'echo', input: 'hi' })
    const response = await get(`/v1/responses/${mine.id}?stream=true`)
    expect(response.status).toBe(400)
    expect((await response.json()).error.param).toBe('stream')
  })
})

describe('input items, a page at a time', () => {
  let id: string
  let ids: string[]
  beforeAll(async () => {
    const input = ['one', 'two', 'three', 'four', 'five'].map((text) => ({ role: 'user', content: text }))
    id = (await create({ model: 'echo', input })).id
    ids = (await (await get(`/v1/responses/${id}/input_items?order=asc`)).json()).data.map(
      (item: JsonObject) => item.id,
    )
  })

  test('newest first by default; limit and after page through, has_more says when to stop', async () => {
    const desc = await (await get(`/v1/responses/${id}/input_items`)).json()
    expect(desc.data.map((item: JsonObject) => item.id)).toEqual([...ids].reverse())
    const page = await (await get(`/v1/responses/${id}/input_items?order=asc&limit=2`)).json()
    openAISpec().assert('ResponseItemList', page)
    expect(page).toMatchObject({ first_id: ids[0], last_id: ids[1], has_more: true })
    const next = await (await get(`/v1/responses/${id}/input_items?order=asc&limit=2&after=${ids[1]}`)).json()
    expect(next.data.map((item: JsonObject) => item.id)).toEqual(ids.slice(2, 4))
    const last = await (await get(`/v1/responses/${id}/input_items?order=asc&limit=2&after=${ids[3]}`)).json()
    expect(last).toMatchObject({ data: [{ id: ids[4] }], has_more: false })
    const back = await (await get(`/v1/responses/${id}/input_items?limit=10&after=${ids[2]}`)).json()
    expect(back.data.map((item: JsonObject) => item.id)).toEqual([ids[1], ids[0]])
  })

  test.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['order=up', 'order'],
    ['after=msg_unknown', 'after'],
    ['after=a%20b', 'after'],
  ])('%s is a 400 naming %s', async (query, param) => {
    const response = await get(`/v1/responses/${id}/input_items?${query}`)
    expect(response.status).toBe(400)
    expect((await response.json()).error.param).toBe(param)
  })
})

describe('bounds', () => {
  test('a conversation past RESPONSES_MAX_STORED_BYTES is refused naming store; without store it is answered', async () => {
    const input = 'x'.repeat(5000)
    const refused = await t.respond({ model: 'echo', input })
    expect(refused.status).toBe(400)
    expect((await refused.json()).error).toMatchObject({
      param: 'store',
      message: expect.stringContaining('store: false'),
    })
    expect((await t.respond({ model: 'echo', input, store: false })).status).toBe(200)
  })

  test('after RESPONSES_RETENTION_DAYS a response is gone at once, and the sweep deletes it', async () => {
    const old = await create({ model: 'echo', input: 'old news' })
    now = new Date(now.getTime() + 31 * DAY)
    try {
      expect((await get(`/v1/responses/${old.id}`)).status).toBe(404)
      const again = await t.respond({ model: 'echo', input: 'hi', previous_response_id: old.id })
      expect((await again.json()).error.code).toBe('previous_response_not_found')
      const store = new ResponseStore(t.deps.database.db)
      expect(await sweepExpired(store, now)).toBeGreaterThan(0)
      expect(await sweepExpired(store, now)).toBe(0)
    } finally {
      now = new Date(now.getTime() - 31 * DAY)
    }
  })
})

describe('the sweep', () => {
  test('runs on its timer until the server stops, deleting what expired and saying how much', async () => {
    const expiring = await create({ model: 'echo', input: 'soon gone' })
    const stop = new AbortController()
    const later = new Date(now.getTime() + 31 * DAY)
    const store = new ResponseStore(t.deps.database.db)
    startRetentionSweep(store, {
      clock: () => later,
      logger: t.deps.logger,
      stop: stop.signal,
      firstMs: 5,
      everyMs: 20,
    })
    for (let i = 0; i < 100 && !t.logs.some((line) => line.msg === 'expired responses deleted'); i++)
      await Bun.sleep(10)
    stop.abort()
    expect(t.logs.find((line) => line.msg === 'expired responses deleted')).toMatchObject({
      deleted: expect.any(Number),
    })
    // Gone from the table, not only from reads: read as of now, before it expired.
    expect(await store.response('chat-user', expiring.id, now)).toBeUndefined()
    // Stopped: one that expires by then stays until a running server's sweep comes.
    const kept = await create({ model: 'echo', input: 'kept' })
    await Bun.sleep(60)
    expect(await store.response('chat-user', kept.id, now)).toBeDefined()
  })
})

describe('with the database gone', () => {
  test('a verified token still gets a 503 with Retry-After from every stored-response route', async () => {
    const token = await t.tokenFor('down', ['chat'])
    expect((await t.respond({ model: 'echo', input: 'hi', store: false }, { token })).status).toBe(200)
    await t.deps.database.close()
    for (const [method, path, json] of [
      ['POST', '/v1/responses', { model: 'echo', input: 'hi' }],
      ['POST', '/v1/responses', { model: 'echo', input: 'hi', store: false, previous_response_id: 'resp_1' }],
      ['GET', '/v1/responses/resp_1', undefined],
      ['GET', '/v1/responses/resp_1/input_items', undefined],
      ['DELETE', '/v1/responses/resp_1', undefined],
    ] as const) {
      const response = await t.request(path, { method, token, json })
      expect({ path, status: response.status, retryAfter: response.headers.get('retry-after') }).toEqual({
        path,
        status: 503,
        retryAfter: '1',
      })
    }
    const streamed = await t.request('/v1/responses', {
      method: 'POST',
      token,
      json: { model: 'echo', input: 'hi', stream: true },
    })
    const events = responseEventsOf(await readAll(streamed))
    // Every item was finished before the store failed; the error event is numbered after them.
    expect(events.map(({ data }) => data.type).slice(-2)).toEqual(['response.output_item.done', 'error'])
    expect(events.at(-1)!.data).toMatchObject({
      type: 'error',
      code: 'service_unavailable',
      message: expect.stringContaining('could not be stored'),
      sequence_number: events.length - 1,
    })
  })
})
