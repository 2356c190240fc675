import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'
import { ask, type Said, WAYS } from './script-clients'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/*
 * The script provider (issue #28 §1) through a listening Trellis with the official `openai` and `@anthropic-ai/sdk`
 * clients: the scenario in fixtures/script-wire.yaml answers alike through /v1/chat/completions, /v1/responses and
 * /v1/messages, streamed or not, with usage that adds up; its scripted errors reach the clients as written (status,
 * Retry-After, message) without the gateway retrying or falling back; its faults break streams as scripted.
 */

let t: TestApp
let openai: OpenAI
let anthropic: Anthropic

beforeAll(async () => {
  const scenario = join(import.meta.dir, 'fixtures/script-wire.yaml')
  t = await makeTestApp({
    transport: 'listening server',
    env: {
      CHAT_PROVIDERS: JSON.stringify({ script: { kind: 'script', scenario } }),
      // A fallback entry the scripted errors must not reach.
      CHAT_MODELS: JSON.stringify({
        scripted: [
          { provider: 'script', model: 'scripted' },
          { provider: 'echo', model: 'echo' },
        ],
      }),
    },
  })
  const token = await t.tokenFor('script-sdk', ['chat'])
  openai = new OpenAI({ apiKey: token, baseURL: `${t.origin}/v1`, maxRetries: 0 })
  anthropic = new Anthropic({ apiKey: token, baseURL: t.origin!, maxRetries: 0 })
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const clients = () => ({ openai, anthropic })

describe('the same answer through every wire format, streamed or not', () => {
  const said: Partial<Record<(typeof WAYS)[number], Said>> = {}

  test.each(WAYS)('%s: the text, and usage that adds up', async (way) => {
    const answer = await ask(clients(), way, 'scripted', { ask: 'hello there' })
    said[way] = answer
    expect(answer.text).toBe('Hello from the script.')
    expect(answer.calls).toEqual([])
    // echo's tokenizer: "Hello", " from", " the", " script", "."; the prompt: <|user|>, "hello", " there".
    expect(answer.usage).toEqual({ prompt: 3, completion: 5, total: 8 })
  })

  test.each(WAYS)('%s: a tool call, then the answer to its result', async (way) => {
    const call = await ask(clients(), way, 'scripted', { ask: 'What is the Weather in Paris?' })
    expect(call.text).toBe('')
    expect(call.calls).toEqual([{ name: 'get_weather', arguments: { city: 'Paris' } }])
    expect(call.usage.total).toBe(call.usage.prompt + call.usage.completion)
    const result = { id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' }, output: '18 C, clear' }
    const answer = await ask(clients(), way, 'scripted', { ask: 'What is the Weather in Paris?', toolResult: result })
    expect(answer.text).toBe('It is sunny in Paris.')
    expect(answer.calls).toEqual([])
  })

  test.each(WAYS)('%s: a request header picks the rule; given usage is reported as written', async (way) => {
    const answer = await ask(clients(), way, 'scripted', { ask: 'anything' }, { 'x-scenario': 'reasoning' })
    expect(answer.text).toBe('The answer is 42.')
    expect(answer.usage).toEqual({ prompt: 10, completion: 20, total: 30 })
  })

  test('the time to first token is scripted', async () => {
    const started = performance.now()
    const stream = await openai.chat.completions.create({
      model: 'scripted',
      stream: true,
      messages: [{ role: 'user', content: 'hello' }],
    })
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content) break
    expect(performance.now() - started).toBeGreaterThanOrEqual(45)
  })
})

describe('scripted HTTP errors reach the client as written, neither retried nor falling back', () => {
  const ERRORS: [ask: string, status: number, retryAfter: string | null, message: string, anthropicType: string][] = [
    ['limit me', 429, '7', 'Slow down.', 'rate_limit_error'],
    ['overloaded', 529, null, 'Overloaded.', 'overloaded_error'],
    ['unavailable', 503, '2', 'Come back later.', 'overloaded_error'],
    ['crash', 500, null, 'Scripted crash.', 'api_error'],
    ['who am i', 401, null, 'Bad key.', 'authentication_error'],
  ]

  test.each(ERRORS)(
    '%s: %d through chat, responses and messages',
    async (prompt, status, retryAfter, message, type) => {
      for (const stream of [false, true]) {
        const chat = await openai.chat.completions
          .create({ model: 'scripted', stream, messages: [{ role: 'user', content: prompt }] })
          .then(
            () => undefined,
            (error: unknown) => error,
          )
        expect(chat).toBeInstanceOf(OpenAI.APIError)
        expect((chat as InstanceType<typeof OpenAI.APIError>).status).toBe(status)
        expect((chat as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after') ?? null).toBe(retryAfter)
        expect((chat as Error).message).toContain(message)
        const responses = await openai.responses
          .create({ model: 'scripted', stream, input: prompt, store: false })
          .then(
            () => undefined,
            (error: unknown) => error,
          )
        expect((responses as InstanceType<typeof OpenAI.APIError>).status).toBe(status)
        const messages = await anthropic.messages
          .create({ model: 'scripted', stream, max_tokens: 64, messages: [{ role: 'user', content: prompt }] })
          .then(
            () => undefined,
            (error: unknown) => error,
          )
        expect(messages).toBeInstanceOf(Anthropic.APIError)
        const anthropicError = messages as InstanceType<typeof Anthropic.APIError>
        expect(anthropicError.status).toBe(status)
        expect(anthropicError.headers?.get('retry-after') ?? null).toBe(retryAfter)
        expect((anthropicError.error as { error: { type: string; message: string } }).error).toEqual({ type, message })
      }
    },
  )

  test('the openai SDK retries a scripted 429 as it would a real one, after its Retry-After', async () => {
    const retrying = new OpenAI({ apiKey: openai.apiKey, baseURL: openai.baseURL, maxRetries: 1 })
    const started = performance.now()
    const failed = await retrying.chat.completions
      .create({ model: 'scripted', messages: [{ role: 'user', content: 'unavailable' }] })
      .catch((error: unknown) => error)
    expect((failed as InstanceType<typeof OpenAI.APIError>).status).toBe(503)
    // One retry, 2 s later as Retry-After says: the gateway itself waited for nothing.
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_900)
  }, 10_000)
})

describe('scripted faults after the first byte', () => {
  test('an error event after N events: each SDK throws it, after the text before it', async () => {
    let text = ''
    const chat = await openai.chat.completions.create({
      model: 'scripted',
      stream: true,
      messages: [{ role: 'user', content: 'fail midway' }],
    })
    const failure = await (async () => {
      for await (const chunk of chat) text += chunk.choices[0]?.delta.content ?? ''
    })().catch((error: unknown) => error)
    expect(text).toBe('one two')
    expect((failure as Error).message).toContain('Scripted failure.')

    const messages = anthropic.messages.stream({
      model: 'scripted',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'fail midway' }],
    })
    expect(messages.finalMessage()).rejects.toThrow('Scripted failure.')

    const responses = await openai.responses.create({
      model: 'scripted',
      stream: true,
      input: 'fail midway',
      store: false,
    })
    const types: string[] = []
    const ended = await (async () => {
      for await (const event of responses) types.push(event.type)
    })().catch((error: unknown) => error)
    expect(String(ended)).toContain('Scripted failure.')
    expect(types).not.toContain('response.completed')
  })

  test('a disconnect after N events: the connection breaks without the end, in every format', async () => {
    const chat = await openai.chat.completions.create({
      model: 'scripted',
      stream: true,
      messages: [{ role: 'user', content: 'break' }],
    })
    let text = ''
    const cut = await (async () => {
      for await (const chunk of chat) text += chunk.choices[0]?.delta.content ?? ''
    })().catch((error: unknown) => error)
    expect(cut).toBeInstanceOf(Error)
    expect(text).toBe('partial')
    const messages = anthropic.messages.stream({
      model: 'scripted',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'break' }],
    })
    expect(messages.finalMessage()).rejects.toBeInstanceOf(Error)
    const raw = await fetch(`${t.origin}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${openai.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'scripted', stream: true, input: 'break', store: false }),
    })
    expect(raw.status).toBe(200)
    expect(raw.text()).rejects.toThrow()
  })
})

describe('a request no rule matches', () => {
  test('a 400 naming the closest rule, in each format', async () => {
    const chat = await openai.chat.completions
      .create({ model: 'scripted', messages: [{ role: 'user', content: 'helo' }] })
      .catch((error: unknown) => error)
    expect((chat as InstanceType<typeof OpenAI.APIError>).status).toBe(400)
    expect((chat as Error).message).toContain('The closest rule is greeting (match: {"last_user":"hello"})')
    const messages = await anthropic.messages
      .create({ model: 'scripted', max_tokens: 64, messages: [{ role: 'user', content: 'limt me' }] })
      .catch((error: unknown) => error)
    expect((messages as InstanceType<typeof Anthropic.APIError>).status).toBe(400)
    expect((messages as Error).message).toContain('The closest rule is rules[2]')
  })
})
