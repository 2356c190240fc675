import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI, { RateLimitError } from 'openai'
import { startTrellis } from '../../src/testing'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/*
 * `scenario` is the script provider's configuration, exactly: `providers: { script: { kind: script, scenario } }`
 * with the model `script` and the test's `models` routed to it. These tests check that mapping and `setScenario`;
 * what a scenario can say is the script provider's own (tests/chat/providers/script/, tests/e2e/script-sdk.test.ts).
 */

const SCENARIO = `rules:
  - match: { has_tool_result: true }
    reply:
      - text: "It is sunny in Paris."
  - match: { last_user: "weather" }
    reply:
      - tool_call: { name: get_weather, arguments: { city: Paris } }
  - match: { last_user: "limit me" }
    reply:
      - error: { status: 429, headers: { retry-after: "3" } }
  - match: { last_user: "hello" }
    reply:
      - text: "Hello from the script."
`

function projectWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-testing-scenario-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

const openai = async (trellis: Awaited<ReturnType<typeof startTrellis>>) =>
  new OpenAI({ baseURL: trellis.openaiBaseURL, apiKey: await trellis.token(), maxRetries: 0 })

describe('scenario', () => {
  test('a file relative to cwd is served as the model script and as each of models, echo beside them', async () => {
    const cwd = projectWith({ 'llm.yaml': SCENARIO })
    await using trellis = await startTrellis({ cwd, scenario: 'llm.yaml', models: ['gpt-4o-mini'] })
    const client = await openai(trellis)
    expect((await client.models.list()).data.map((model) => model.id)).toEqual([
      'script',
      'gpt-4o-mini',
      'echo',
      'echo-reasoner',
    ])
    for (const model of ['script', 'gpt-4o-mini']) {
      const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }] })
      expect(answer.choices[0]!.message.content).toBe('Hello from the script.')
    }
    const echoed = await client.chat.completions.create({
      model: 'echo',
      messages: [{ role: 'user', content: 'hello' }],
    })
    expect(echoed.choices[0]!.message.content).toBe('hello')
  })

  test('the same scenario answers the three wire formats: a tool call, then the text after its result', async () => {
    await using trellis = await startTrellis({ scenario: join(projectWith({ 'llm.yaml': SCENARIO }), 'llm.yaml') })
    const client = await openai(trellis)
    const call = await client.chat.completions.create({
      model: 'script',
      messages: [{ role: 'user', content: 'weather in Paris?' }],
    })
    const toolCall = call.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall
    expect([toolCall.function.name, JSON.parse(toolCall.function.arguments)]).toEqual([
      'get_weather',
      { city: 'Paris' },
    ])
    const responses = await client.responses.create({ model: 'script', input: 'weather in Paris?' })
    expect(responses.output.map((item) => item.type)).toEqual(['function_call'])
    const anthropic = new Anthropic({ baseURL: trellis.anthropicBaseURL, apiKey: await trellis.token(), maxRetries: 0 })
    const message = await anthropic.messages.create({
      model: 'script',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'weather in Paris?' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
      ],
    })
    expect(message.content).toMatchObject([{ type: 'text', text: 'It is sunny in Paris.' }])
    expect(trellis.requests().map((request) => [request.path, request.status])).toEqual([
      ['/v1/chat/completions', 200],
      ['/v1/responses', 200],
      ['/v1/messages', 200],
    ])
  })

  test('a scripted 429 reaches the client with its Retry-After, and the ledger counts it', async () => {
    await using trellis = await startTrellis({ scenario: join(projectWith({ 'llm.yaml': SCENARIO }), 'llm.yaml') })
    const client = await openai(trellis)
    const refused = (await client.chat.completions
      .create({ model: 'script', messages: [{ role: 'user', content: 'limit me' }] })
      .catch((error: unknown) => error)) as RateLimitError
    expect(refused).toBeInstanceOf(RateLimitError)
    expect(refused.headers.get('retry-after')).toBe('3')
    expect((await trellis.usage()).map((row) => [row.model, row.status])).toEqual([['script', 429]])
  })

  test('setScenario serves another scenario from the next request on; a bad one is refused and changes nothing', async () => {
    await using trellis = await startTrellis({ scenario: { rules: [{ reply: [{ text: 'first' }] }] } })
    const client = await openai(trellis)
    const ask = async () =>
      (await client.chat.completions.create({ model: 'script', messages: [{ role: 'user', content: 'hi' }] }))
        .choices[0]!.message.content
    expect(await ask()).toBe('first')
    await trellis.setScenario({ rules: [{ reply: [{ text: 'second' }] }] })
    expect(await ask()).toBe('second')
    const cwd = projectWith({ 'bad.yaml': 'rules:\n  - reply:\n      - txet: "typo"\n' })
    await using other = await startTrellis({ cwd })
    expect(other.setScenario('bad.yaml')).rejects.toThrow(/bad\.yaml:3:9: .*txet.*text/)
    expect(trellis.setScenario({ rules: [] } as never)).rejects.toThrow(
      '/rules: Expected array length to be greater or equal to 1',
    )
    expect(await ask()).toBe('second')
  })

  test('a scenario that does not validate stops the start with where and what', async () => {
    const cwd = projectWith({ 'bad.yaml': 'rules:\n  - match: { last_usr: "hi" }\n    reply: [{ text: "x" }]\n' })
    expect(startTrellis({ cwd, scenario: 'bad.yaml' })).rejects.toThrow(/bad\.yaml:2:14: .*last_usr/)
    expect(startTrellis({ cwd, scenario: 'missing.yaml' })).rejects.toThrow('missing.yaml')
  })

  test('a request no rule matches is a 400 naming the closest rule', async () => {
    await using trellis = await startTrellis({
      scenario: { rules: [{ name: 'greeting', match: { last_user: 'hello' }, reply: [{ text: 'hi' }] }] },
    })
    const client = await openai(trellis)
    const refused = (await client.chat.completions
      .create({ model: 'script', messages: [{ role: 'user', content: 'goodbye' }] })
      .catch((error: unknown) => error)) as { status: number; message: string }
    expect(refused.status).toBe(400)
    expect(refused.message).toContain('greeting')
  })
})
