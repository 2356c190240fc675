import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import OpenAI from 'openai'
import { useMockResponses } from '../chat/mock-responses'
import { makeTestApp } from '../helpers/app'

// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/*
 * The native Responses relay end to end (#26 §1): a model served by an `openai` provider with
 * `"responses": "native"` gets the client's body with only `model` rewritten, and its events come
 * back byte for byte through a listening Trellis, event types Trellis does not model included;
 * the usage of `response.completed` reaches the ledger, and the response is kept for its owner.
 */

const upstream = useMockResponses()
let trellis: Awaited<ReturnType<typeof makeTestApp>>
let server: ReturnType<typeof Bun.serve>
let token: string
let base: string

beforeAll(async () => {
  trellis = await makeTestApp({
    env: {
      CHAT_PROVIDERS: JSON.stringify({
        openai: { baseUrl: upstream.baseUrl, apiKey: 'sk-upstream', maxRetries: 0, responses: 'native' },
      }),
      CHAT_MODELS: JSON.stringify({ 'gpt-native': [{ provider: 'openai', model: 'gpt-5.5' }] }),
    },
    deps: { onLongLivedRequest: (request) => server.timeout(request, 0) },
  })
  token = await trellis.tokenFor('native-user', ['chat'])
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: trellis.app.fetch })
  base = `http://127.0.0.1:${server.port}`
})

afterAll(async () => {
  await server.stop(true)
  await trellis.close()
})

const SEARCH_EVENT = {
  event: 'response.web_search_call.searching',
  data: { type: 'response.web_search_call.searching', output_index: 0, item_id: 'ws_1', sequence_number: 99 },
}

describe('POST /v1/responses through a native provider', () => {
  test('streamed: the upstream events reach the client byte for byte, an unmodelled event type included', async () => {
    upstream.script({ extraEvents: [{ at: 2, event: SEARCH_EVENT }] })
    const body = { model: 'gpt-native', input: 'Find the fern', stream: true, store: false, client_hint: 'kept' }
    const response = await fetch(`${base}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    expect(response.status).toBe(200)
    const text = await response.text()
    const sent = upstream.requests.at(-1)!
    // Only model was rewritten; every other field, even one Trellis does not model, went as sent.
    expect(sent.body).toEqual({ ...body, model: 'gpt-5.5' })
    expect(sent.headers.get('authorization')).toBe('Bearer sk-upstream')
    expect(text.replaceAll(/^: keep-alive\n\n/gm, '')).toBe(sent.sent)
    expect(text).toContain('event: response.web_search_call.searching\n')
  })

  test('the openai SDK reads it: streamed and not, and the ledger has the upstream usage', async () => {
    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: token, maxRetries: 0 })
    const before = await ledgerRow()
    const answer = {
      items: [{ type: 'message' as const, text: ['Water ', 'weekly'] }],
      usage: { input_tokens: 21, output_tokens: 2 },
    }
    upstream.script(answer)
    const whole = await client.responses.create({ model: 'gpt-native', input: 'How often?', store: false })
    expect(whole.output_text).toBe('Water weekly')
    upstream.script(answer)
    const final = await client.responses
      .stream({ model: 'gpt-native', input: 'How often?', store: false })
      .finalResponse()
    expect(final.output_text).toBe('Water weekly')
    const after = await ledgerRow()
    // The two answers' usage as the upstream reported it in response.completed, to the token.
    expect({
      requests: after.requests - before.requests,
      prompt_tokens: after.prompt_tokens - before.prompt_tokens,
      completion_tokens: after.completion_tokens - before.completion_tokens,
    }).toEqual({ requests: 2, prompt_tokens: 42, completion_tokens: 4 })
  })

  test('stored (store: true): the final response is kept for its owner only', async () => {
    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: token, maxRetries: 0 })
    upstream.script({})
    const stream = client.responses.stream({ model: 'gpt-native', input: 'Keep this', store: true })
    const final = await stream.finalResponse()
    const kept = await client.responses.retrieve(final.id)
    expect(kept.id).toBe(final.id)
    expect(kept.output_text).toBe(final.output_text)
    const stranger = new OpenAI({ baseURL: `${base}/v1`, apiKey: await trellis.tokenFor('someone-else', ['chat']) })
    const refused = await stranger.responses.retrieve(final.id).catch((error) => error)
    expect(refused).toBeInstanceOf(OpenAI.NotFoundError)
  })
})

/** The ledger's totals for the native model so far, once what was queued has been written. */
async function ledgerRow(): Promise<{ requests: number; prompt_tokens: number; completion_tokens: number }> {
  await trellis.deps.ledger!.flush()
  // GET /usage counts rows strictly before now: a row of this millisecond is counted from the next.
  await Bun.sleep(5)
  const usage = await (
    await fetch(`${base}/usage?group_by=model`, { headers: { authorization: `Bearer ${token}` } })
  ).json()
  return (
    usage.data.find((row: { model?: string }) => row.model === 'gpt-native') ?? {
      requests: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
    }
  )
}
