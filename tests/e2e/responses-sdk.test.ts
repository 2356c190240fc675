import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import OpenAI, { BadRequestError, NotFoundError, RateLimitError } from 'openai'
import { zodResponsesFunction, zodTextFormat } from 'openai/helpers/zod'
import { z } from 'zod'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'
import { openAISpec } from '../helpers/openai-spec'

// Each app starts on a fresh database; the first one in a process takes seconds.
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/*
 * The official `openai` SDK, unchanged, against a real listening Trellis, with base URL
 * http://127.0.0.1:<port>/v1: `responses.create` (streamed and not), `responses.stream()` (the
 * strictest reader of events), `responses.parse` with a zod format, a function call answered
 * through `previous_response_id`, the stored-response routes and their owners, limits and the
 * ledger. Every body and every event is also checked against OpenAI's published schema.
 */

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp({ transport: 'listening server', env: { ECHO_TOKEN_DELAY_MS: '0' } })
  openAISpec()
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

/** A token made through the admin API, as an operator would; its owner is unique. */
async function token(body: Record<string, unknown> = {}): Promise<{ token: string; owner: string }> {
  const admin = await t.tokenFor('root', ['admin'])
  const owner = `r-${crypto.randomUUID().slice(0, 8)}`
  const response = await t.request('/admin/tokens', {
    method: 'POST',
    token: admin,
    json: { owner, scopes: ['chat'], ...body },
  })
  expect(response.status).toBe(201)
  return { token: (await response.json()).token, owner }
}

const sdk = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${t.origin}/v1`, maxRetries: 0 })
let client: OpenAI
beforeAll(async () => {
  client = sdk((await token()).token)
})

/** The SDK's object without the `output_text` it computes itself, checked against OpenAI's `Response`. */
function checked<R extends { output_text?: string }>(response: R): R {
  const { output_text: _computed, ...sent } = response
  openAISpec().assert('Response', sent)
  return response
}

describe('responses.create', () => {
  test('a whole response: output_text is the echo of the input', async () => {
    const response = checked(
      await client.responses.create({ model: 'echo', input: 'Hello there', instructions: 'Be terse.' }),
    )
    expect(response.output_text).toBe('Hello there')
    expect(response.status).toBe('completed')
    expect(response.id).toMatch(/^resp_/)
    expect(response.usage?.output_tokens).toBe(2)
  })

  test('streamed: every event valid, numbered from 0, ending in response.completed', async () => {
    const stream = await client.responses.create({ model: 'echo-reasoner', input: 'Hello there', stream: true })
    const events = []
    for await (const event of stream) {
      openAISpec().assert('ResponseStreamEvent', event)
      events.push(event)
    }
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i))
    const last = events.at(-1)!
    expect(last.type).toBe('response.completed')
    const text = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : []))
    expect(text.join('')).toBe('Hello there')
  })

  test('errors are the SDK’s own classes, with the param', async () => {
    const bad = await client.responses.create({ model: 'echo', input: 'hi', temperature: 3 }).catch((error) => error)
    expect(bad).toBeInstanceOf(BadRequestError)
    expect((bad as BadRequestError).param).toBe('temperature')
    const missing = await client.responses.create({ model: 'nope', input: 'hi' }).catch((error) => error)
    expect(missing).toBeInstanceOf(NotFoundError)
    expect((missing as NotFoundError).code).toBe('model_not_found')
  })
})

describe('responses.stream() and responses.parse', () => {
  test('stream(): the deltas as they come, finalResponse() the whole, reasoning summary included', async () => {
    const deltas: string[] = []
    const stream = client.responses
      .stream({ model: 'echo-reasoner', input: 'Hello there friend' })
      .on('response.output_text.delta', (event) => deltas.push(event.delta))
    const final = checked(await stream.finalResponse())
    expect(deltas.join('')).toBe('Hello there friend')
    expect(final.output_text).toBe('Hello there friend')
    const reasoning = final.output.find((item) => item.type === 'reasoning')
    expect(reasoning?.type === 'reasoning' && reasoning.summary[0]?.text).toContain('Echo provider')
  })

  test('parse() with a zod format: output_parsed is the typed object', async () => {
    const City = z.object({ city: z.string(), country: z.string() })
    const parsed = await client.responses.parse({
      model: 'echo',
      input: 'Paris',
      text: { format: zodTextFormat(City, 'city_info') },
    })
    expect(parsed.output_parsed).toEqual({ city: 'Paris', country: 'Paris' })
  })

  test('a zod function tool: the call parsed, answered through previous_response_id', async () => {
    const weather = zodResponsesFunction({ name: 'get_weather', parameters: z.object({ city: z.string() }) })
    const asked = await client.responses.parse({
      model: 'echo',
      input: 'Paris',
      tools: [weather],
      tool_choice: 'required',
    })
    const call = asked.output.find((item) => item.type === 'function_call')
    expect(call?.type === 'function_call' && call.parsed_arguments).toEqual({ city: 'Paris' })
    const answered = checked(
      await client.responses.create({
        model: 'echo',
        previous_response_id: asked.id,
        input: [{ type: 'function_call_output', call_id: (call as { call_id: string }).call_id, output: '21C' }],
      }),
    )
    expect(answered.previous_response_id).toBe(asked.id)
    expect(answered.status).toBe('completed')
  })
})

describe('stored responses', () => {
  test('retrieve, inputItems.list (paged), delete; another owner sees none of it', async () => {
    const input = ['one', 'two', 'three'].map((text) => ({ role: 'user' as const, content: text }))
    const created = await client.responses.create({ model: 'echo', input })
    expect(checked(await client.responses.retrieve(created.id)).output_text).toBe('three')
    const items = []
    for await (const item of client.responses.inputItems.list(created.id, { limit: 2, order: 'asc' })) items.push(item)
    expect(
      items.map((item) => item.type === 'message' && item.content[0]?.type === 'input_text' && item.content[0].text),
    ).toEqual(['one', 'two', 'three'])
    const stranger = sdk((await token()).token)
    for (const call of [
      () => stranger.responses.retrieve(created.id),
      () => stranger.responses.delete(created.id),
      () => stranger.responses.inputItems.list(created.id),
    ])
      expect(await call().catch((error) => error)).toBeInstanceOf(NotFoundError)
    // The SDK types delete() as void; it resolves to the body all the same.
    const deleted: unknown = await client.responses.delete(created.id)
    expect(deleted).toEqual({ id: created.id, object: 'response', deleted: true })
    expect(await client.responses.retrieve(created.id).catch((error) => error)).toBeInstanceOf(NotFoundError)
  })
})

describe('limits and the ledger', () => {
  test('rpm: past the limit a RateLimitError with Retry-After', async () => {
    const own = sdk((await token({ limits: { rpm: 2 } })).token)
    await own.responses.create({ model: 'echo', input: 'one', store: false })
    await own.responses.stream({ model: 'echo', input: 'two', store: false }).finalResponse()
    const refused = await own.responses.create({ model: 'echo', input: 'three' }).catch((error) => error)
    expect(refused).toBeInstanceOf(RateLimitError)
    expect((refused as RateLimitError).headers.get('retry-after')).toMatch(/^\d+$/)
  })

  test('one ledger row per answered request, streamed or not, with the tokens the answers reported', async () => {
    const { token: own, owner } = await token()
    const client = sdk(own)
    const whole = await client.responses.create({ model: 'echo', input: 'the quick brown fox', store: false })
    const streamed = await client.responses.stream({ model: 'echo-reasoner', input: 'jumps over' }).finalResponse()
    expect(await t.deps.ledger!.flush()).toBe(true)
    await Bun.sleep(5)
    const usage = await (await t.request('/usage?group_by=owner', { token: own })).json()
    expect(usage.data).toEqual([
      {
        owner,
        requests: 2,
        prompt_tokens: whole.usage!.input_tokens + streamed.usage!.input_tokens,
        completion_tokens: whole.usage!.output_tokens + streamed.usage!.output_tokens,
        cached_tokens:
          whole.usage!.input_tokens_details.cached_tokens + streamed.usage!.input_tokens_details.cached_tokens,
        reasoning_tokens: streamed.usage!.output_tokens_details.reasoning_tokens,
        cache_write_tokens: 0,
        cost_micros: 0,
        cost_usd: 0,
        unpriced_requests: 0,
        errors: 0,
        // Both answers were settled by their own process: nothing is an estimate (README, "The usage ledger").
        estimated_requests: 0,
        estimated_prompt_tokens: 0,
        estimated_completion_tokens: 0,
      },
    ])
  })

  test('x-ratelimit-* headers on an answer of a token with limits', async () => {
    const own = sdk((await token({ limits: { rpm: 10, tpm: 100_000 } })).token)
    const { response } = await own.responses.create({ model: 'echo', input: 'hi', store: false }).withResponse()
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('10')
    expect(response.headers.get('x-ratelimit-limit-tokens')).toBe('100000')
  })
})
