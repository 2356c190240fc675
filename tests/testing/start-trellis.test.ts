import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI, { RateLimitError } from 'openai'
import { startTrellis, type Trellis } from '../../src/testing'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/*
 * trellis/testing: a whole Trellis in the test's own process, on its own in-memory database and port, configured
 * only by what the test passes. Each test starts its own; they must not see one another.
 */

const chat = (trellis: Trellis, token: string, body: Record<string, unknown>) =>
  fetch(`${trellis.openaiBaseURL}/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'x-api-key': 'sk-should-not-show',
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  })

describe('startTrellis', () => {
  test('serves the OpenAI SDK at openaiBaseURL, with a token it makes, the model names the test lists', async () => {
    await using trellis = await startTrellis({ models: ['gpt-4o-mini'] })
    expect(trellis.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(trellis.openaiBaseURL).toBe(`${trellis.url}/v1`)
    const client = new OpenAI({ baseURL: trellis.openaiBaseURL, apiKey: await trellis.token() })
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'say this back' }],
    })
    expect(completion.choices[0]!.message.content).toBe('say this back')
    expect((await client.models.list()).data.map((model) => model.id)).toEqual(['gpt-4o-mini', 'echo', 'echo-reasoner'])
  })

  test('serves the Anthropic SDK at anthropicBaseURL', async () => {
    await using trellis = await startTrellis()
    const client = new Anthropic({ baseURL: trellis.anthropicBaseURL, apiKey: await trellis.token() })
    const message = await client.messages.create({
      model: 'echo',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hello from claude' }],
    })
    expect(message.content).toEqual([{ type: 'text', text: 'hello from claude', citations: null } as never])
  })

  test('requests() holds what the clients sent, parsed, credentials redacted, with the status answered', async () => {
    await using trellis = await startTrellis()
    const token = await trellis.token()
    await chat(trellis, token, { model: 'echo', messages: [{ role: 'user', content: 'first' }] })
    await chat(trellis, 'trl_not-a-token', { model: 'echo', messages: [] })
    await fetch(`${trellis.url}/health`)
    const [first, refused, health] = trellis.requests()
    expect(first).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      body: { model: 'echo', messages: [{ role: 'user', content: 'first' }] },
      status: 200,
    })
    expect(first!.headers).toMatchObject({
      authorization: 'Bearer [redacted]',
      'x-api-key': '[redacted]',
      'content-type': 'application/json',
    })
    expect(JSON.stringify(trellis.requests())).not.toContain(token.slice(4))
    expect(JSON.stringify(trellis.requests())).not.toContain('sk-should-not-show')
    expect(refused!.status).toBe(401)
    expect(health).toMatchObject({ method: 'GET', path: '/health', body: undefined, status: 200 })
    trellis.clearRequests()
    expect(trellis.requests()).toEqual([])
  })

  test('a body larger than the body limit is refused by the server and not buffered by the record', async () => {
    await using trellis = await startTrellis({ env: { BODY_LIMIT: '1kb' } })
    const response = await chat(trellis, await trellis.token(), { model: 'echo', messages: [], pad: 'x'.repeat(4096) })
    expect(response.status).toBe(413)
    expect(trellis.requests()[0]!.body).toBe('[not recorded: more than 1024 bytes]')
  })

  test('usage() is the ledger: a row per request once it has settled, streamed or not', async () => {
    await using trellis = await startTrellis()
    const client = new OpenAI({ baseURL: trellis.openaiBaseURL, apiKey: await trellis.token({ owner: 'alice' }) })
    const whole = await client.chat.completions.create({
      model: 'echo',
      messages: [{ role: 'user', content: 'one two three' }],
    })
    const stream = await client.chat.completions.create({
      model: 'echo',
      messages: [{ role: 'user', content: 'four five' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    let streamedUsage: OpenAI.CompletionUsage | undefined
    for await (const chunk of stream) streamedUsage = chunk.usage ?? streamedUsage
    const rows = await trellis.usage()
    expect(rows.map((row) => [row.owner, row.model, row.streamed, row.status])).toEqual([
      ['alice', 'echo', false, 200],
      ['alice', 'echo', true, 200],
    ])
    expect(rows[0]!.completionTokens).toBe(whole.usage!.completion_tokens)
    expect(rows[1]!.completionTokens).toBe(streamedUsage!.completion_tokens)
  })

  test('token({ limits }) is enforced: with rpm 2 the third request is a 429 that says when to retry', async () => {
    await using trellis = await startTrellis()
    const client = new OpenAI({
      baseURL: trellis.openaiBaseURL,
      apiKey: await trellis.token({ scopes: ['chat'], limits: { rpm: 2 } }),
      maxRetries: 0,
    })
    const ask = () => client.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'hi' }] })
    await ask()
    await ask()
    const refused = (await ask().catch((error: unknown) => error)) as RateLimitError
    expect(refused).toBeInstanceOf(RateLimitError)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(trellis.requests().map((request) => request.status)).toEqual([200, 200, 429])
  })

  test.each([
    [{ scopes: ['chat', 'everything'] }, 'unknown scope "everything"'],
    [{ models: ['gpt-9'] }, 'models names "gpt-9", which this server does not serve'],
    [{ owner: ' ' }, 'owner must be 1 to 200 characters'],
    [{ limits: { rpm: 0 } }, 'token: limits/rpm: Expected integer to be greater or equal to 1'],
    [{ limits: { rpn: 2 } }, 'token: limits/rpn: Unexpected property'],
  ])('token(%j) is refused: %s', async (options, message) => {
    await using trellis = await startTrellis()
    expect(trellis.token(options as never)).rejects.toThrow(message)
  })

  test('a token limited to models is told the others do not exist', async () => {
    await using trellis = await startTrellis({ models: ['small', 'large'] })
    const token = await trellis.token({ models: ['small'] })
    expect((await chat(trellis, token, { model: 'small', messages: [{ role: 'user', content: 'x' }] })).status).toBe(
      200,
    )
    expect((await chat(trellis, token, { model: 'large', messages: [{ role: 'user', content: 'x' }] })).status).toBe(
      404,
    )
  })
})

describe('configuration comes from the options alone', () => {
  test("a trellis.yaml in the working directory is not read; `config` names one that is, and env's settings win", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trellis-testing-config-'))
    writeFileSync(join(dir, 'trellis.yaml'), 'this: is not a valid setting\n')
    writeFileSync(join(dir, 'served.yaml'), 'echo: false\nmodels:\n  house: [{ provider: echo, model: echo }]\n')
    await using plain = await startTrellis({ cwd: dir })
    const listed = async (trellis: Trellis) => {
      const client = new OpenAI({ baseURL: trellis.openaiBaseURL, apiKey: await trellis.token() })
      return (await client.models.list()).data.map((model) => model.id)
    }
    expect(await listed(plain)).toEqual(['echo', 'echo-reasoner'])
    await using configured = await startTrellis({ cwd: dir, config: 'served.yaml' })
    expect(await listed(configured)).toEqual(['house'])
    await using overridden = await startTrellis({ cwd: dir, config: 'served.yaml', env: { CHAT_ECHO: 'true' } })
    expect(await listed(overridden)).toEqual(['house', 'echo', 'echo-reasoner'])
  })

  test('a port in use is refused, and nothing is left open', async () => {
    await using first = await startTrellis()
    const port = Number(new URL(first.url).port)
    expect(startTrellis({ port })).rejects.toThrow()
    expect((await fetch(`${first.url}/health`)).status).toBe(200)
  })

  test.each([
    [{ env: { BODY_LIMIT: 'lots' } }, 'BODY_LIMIT'],
    [{ config: 'missing.yaml' }, 'missing.yaml, which does not exist'],
    [{ logLevel: 'loud' }, 'LOG_LEVEL must be one of'],
  ])('bad options (%j) are refused with the setting named', async (options, message) => {
    expect(startTrellis(options as never)).rejects.toThrow(message)
  })
})
