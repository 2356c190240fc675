import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../../../helpers/app'
import { eventsOf, readAll } from '../../chat-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/** The minimal scenario (fixtures/minimal.yaml, the README's), from a trellis.yaml beside it, rule by rule. */

let t: TestApp
let token: string
beforeAll(async () => {
  t = await makeTestApp({ env: { TRELLIS_CONFIG: join(import.meta.dir, 'fixtures/trellis.yaml') } })
  token = await t.tokenFor('script-minimal', ['chat'])
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const chat = (messages: Record<string, unknown>[], stream = false) =>
  t.request('/v1/chat/completions', { method: 'POST', token, json: { model: 'scripted', stream, messages } })
const user = (content: string) => [{ role: 'user', content }]

test('a question about the weather: the tool call; its result: the answer', async () => {
  const call = (await (await chat(user('what is the weather?'))).json()).choices[0]
  expect(call.finish_reason).toBe('tool_calls')
  expect(call.message.tool_calls[0].function).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' })
  const after = [
    ...user('what is the weather?'),
    call.message,
    { role: 'tool', tool_call_id: call.message.tool_calls[0].id, content: '18 C' },
  ]
  expect((await (await chat(after)).json()).choices[0].message.content).toBe('It is sunny in Paris.')
})

test('"limit me": a 429 with Retry-After: 1', async () => {
  const response = await chat(user('please limit me'))
  expect(response.status).toBe(429)
  expect(response.headers.get('retry-after')).toBe('1')
})

test('"break": the role and "partial", then the connection breaks', async () => {
  const response = await chat(user('break'), true)
  const reader = response.body!.getReader()
  let text = ''
  const broke = await (async () => {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return false
      text += new TextDecoder().decode(value)
    }
  })().catch(() => true)
  expect(broke).toBe(true)
  expect(eventsOf(text).map((chunk) => chunk.choices[0]?.delta.content)).toEqual(['', 'partial'])
})

test('anything else: the catch-all, after its 50 ms to the first token', async () => {
  const started = performance.now()
  const body = await readAll(await chat(user('hi'), true))
  expect(performance.now() - started).toBeGreaterThanOrEqual(45)
  expect(
    eventsOf(body)
      .map((chunk) => chunk.choices[0]?.delta.content ?? '')
      .join(''),
  ).toBe('Hello from the script.')
  expect(body).toEndWith('data: [DONE]\n\n')
})
