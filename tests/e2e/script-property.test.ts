import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { PROVIDER_KINDS } from '../../src/chat/providers'
import { chatSetupFrom } from '../../src/chat'
import { isScriptProvider, loadScenario, type Scenario, type ScriptProvider } from '../../src/chat/providers/script'
import { loadConfig } from '../../src/config'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'
import { random } from '../helpers/random'
import { ask, type Said, WAYS } from './script-clients'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/*
 * Property (issue #28 §4): for random scenarios (seeded, so a failure replays), the six ways of asking (Chat
 * Completions, Responses and Messages, streamed or not, with the official SDKs over HTTP) carry the same text, the
 * same tool calls with the same arguments, and the same usage, which adds up; given usage comes back as written.
 */

const SEEDS = Array.from({ length: 12 }, (_, index) => 2026 + index)
const WORDS = [
  'Paris',
  'sunny',
  ' ',
  ',',
  '.',
  '\n',
  'été',
  '日本',
  '42',
  '"quoted"',
  'back\\slash',
  '🙂',
  'tab\t',
  'x',
]

function scenarioFor(seed: number): {
  scenario: Scenario
  text: string
  calls: Said['calls']
  usage?: [number, number]
} {
  const next = random(seed)
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!
  const phrase = () => Array.from({ length: 1 + Math.floor(next() * 12) }, () => pick(WORDS)).join('')
  const reply: Scenario['rules'][number]['reply'] = []
  let text = ''
  const calls: Said['calls'] = []
  if (next() < 0.4) reply.push({ reasoning: phrase() })
  const texts = Math.floor(next() * 3)
  for (let i = 0; i < texts; i++) {
    const words = phrase()
    if (next() < 0.5) reply.push({ text: words })
    else reply.push({ pieces: [words.slice(0, 3), words.slice(3)].filter((piece) => piece !== '') })
    text += words
  }
  const tools = texts === 0 ? 1 + Math.floor(next() * 2) : Math.floor(next() * 2)
  for (let i = 0; i < tools; i++) {
    const args = {
      city: phrase(),
      days: Math.floor(next() * 10),
      metric: next() < 0.5,
      nested: { list: [phrase(), 1] },
    }
    const name = pick(['get_weather', 'lookup', 'save_note'])
    reply.push({ tool_call: { name, arguments: next() < 0.5 ? args : JSON.stringify(args) } })
    calls.push({ name, arguments: args })
  }
  if (next() < 0.5) reply.push({ gap_ms: Math.floor(next() * 3) })
  const usage: [number, number] | undefined =
    next() < 0.3 ? [5 + Math.floor(next() * 50), 1 + Math.floor(next() * 90)] : undefined
  if (usage) reply.push({ usage: { prompt_tokens: usage[0], completion_tokens: usage[1] } })
  return { scenario: { rules: [{ reply }] }, text, calls, usage }
}

let t: TestApp
let provider: ScriptProvider
let clients: { openai: OpenAI; anthropic: Anthropic }

beforeAll(async () => {
  const env = {
    CHAT_PROVIDERS: JSON.stringify({
      script: { kind: 'script', scenario: { rules: [{ reply: [{ text: 'unset' }] }] } },
    }),
    CHAT_MODELS: JSON.stringify({ scripted: [{ provider: 'script', model: 'scripted' }] }),
  }
  const chat = chatSetupFrom(loadConfig(env, PROVIDER_KINDS).chat)
  const found = chat.registry.provider('script')!
  if (!isScriptProvider(found)) throw new Error('the registry serves no script provider')
  provider = found
  t = await makeTestApp({ env, transport: 'listening server', deps: { chat } })
  const token = await t.tokenFor('script-property', ['chat'])
  clients = {
    openai: new OpenAI({ apiKey: token, baseURL: `${t.origin}/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: token, baseURL: t.origin!, maxRetries: 0 }),
  }
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

describe('random scenarios through the three wire formats', () => {
  test.each(SEEDS)('seed %d: the same text, tool calls and usage six ways', async (seed) => {
    const { scenario, text, calls, usage } = scenarioFor(seed)
    provider.setScenario(loadScenario(scenario))
    const said: Said[] = []
    for (const way of WAYS) said.push(await ask(clients, way, 'scripted', { ask: `question ${seed}` }))
    said.forEach((answer, index) => {
      const way = WAYS[index]
      expect({ way, text: answer.text }).toEqual({ way, text })
      expect({ way, calls: answer.calls }).toEqual({ way, calls })
      expect({ way, usage: answer.usage }).toEqual({ way, usage: said[0]!.usage })
    })
    const first = said[0]!.usage
    expect(first.total).toBe(first.prompt + first.completion)
    if (usage) expect([first.prompt, first.completion]).toEqual(usage)
  })
})
