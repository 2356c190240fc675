/**
 * What Claude Code 2.1.332 really sends (captured requests, tests/fixtures/claude-code/), replayed
 * against echo: `POST /v1/messages?beta=true` with its headers, system blocks with cache_control,
 * `system` turns inside `messages`, a deferred tool, adaptive thinking with a display, effort,
 * context_management, a JSON-string user_id, safeguards (the TUI), and a tool_result with
 * cache_control. Any 400 would make it strip features and retry six times; each must be a 200
 * whose header names what was ignored and whose events the SDK accepts, streamed and, as its
 * fallback, not.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { SETUP_TIMEOUT } from '../../helpers/app'
import { makeChatApp, readAll } from '../chat-app'
import { expectSdkMessage, sdkEvents } from './sdk-shapes'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

type Capture = {
  path: string
  query: Record<string, string>
  headers: Record<string, string>
  body: Record<string, unknown>
}
const fixture = async (name: string): Promise<Capture> =>
  Bun.file(`${import.meta.dir}/../../fixtures/claude-code/${name}.json`).json()

let t: Awaited<ReturnType<typeof makeChatApp>>
beforeAll(async () => {
  t = await makeChatApp()
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

/** The capture as Claude Code sent it, to echo (its default model named echo instead), with our token as its key. */
function replay(capture: Capture, overrides: Record<string, unknown> = {}) {
  const url = new URL(`http://localhost${capture.path}`)
  for (const [key, value] of Object.entries(capture.query)) url.searchParams.set(key, value)
  return t.app.handle(
    new Request(url, {
      method: 'POST',
      headers: { ...capture.headers, 'x-api-key': t.token },
      body: JSON.stringify({ ...capture.body, model: 'echo', ...overrides }),
    }),
  )
}

/** One row per capture: its file, and what x-trellis-ignored must name for it. */
const CAPTURES: [name: string, ignored: string][] = [
  ['first-turn', 'context_management, cache_control, tools[10].defer_loading'],
  ['tool-turn', 'context_management, cache_control, tools[10].defer_loading'],
  ['tui-first-turn', 'context_management, safeguards, thinking.display, cache_control, tools[11].defer_loading'],
]

describe("Claude Code's requests, replayed against echo", () => {
  test('the captures are what the research saw: system turns, a deferred tool, adaptive thinking, effort', async () => {
    const { body, query } = await fixture('first-turn')
    expect(query).toEqual({ beta: 'true' })
    expect((body.messages as { role: string }[]).map((message) => message.role)).toEqual(['user', 'system'])
    expect(body.thinking).toEqual({ type: 'adaptive', display: 'omitted' })
    expect(body.output_config).toEqual({ effort: 'high' })
    expect(JSON.parse((body.metadata as { user_id: string }).user_id)).toHaveProperty('session_id')
    const tool = await fixture('tool-turn')
    expect((tool.body.messages as { role: string }[]).map((message) => message.role)).toEqual([
      'user',
      'system',
      'assistant',
      'user',
    ])
    expect((await fixture('tui-first-turn')).body.safeguards).toBeArray()
  })

  for (const [name, ignored] of CAPTURES) {
    test(`${name}, streamed: 200, the ignored fields named, events the SDK accepts`, async () => {
      const response = await replay(await fixture(name))
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('text/event-stream')
      expect(response.headers.get('x-trellis-ignored')).toBe(ignored)
      const events = sdkEvents(await readAll(response))
      const end = events.at(-2) as { delta: { stop_reason: string } }
      expect(end.delta.stop_reason).toBe('end_turn')
      expect(events.some((event) => event.type === 'content_block_delta')).toBe(true)
    })

    test(`${name}, not streamed (Claude Code's fallback): a whole message`, async () => {
      const response = await replay(await fixture(name), { stream: false })
      expect(response.status).toBe(200)
      expect(response.headers.get('x-trellis-ignored')).toBe(ignored)
      const message = await response.json()
      expectSdkMessage(message)
      expect(message.content.map((block: { type: string }) => block.type)).toEqual(['text'])
    })
  }

  test('the tool turn through a reasoning model: its reasoning comes as a thinking block without text (display omitted)', async () => {
    const response = await replay(await fixture('tool-turn'), { model: 'echo-reasoner', stream: false })
    const message = await response.json()
    expect(message.content[0]).toEqual({ type: 'thinking', thinking: '', signature: '' })
    expect(message.usage.output_tokens_details.thinking_tokens).toBeGreaterThan(0)
  })
})
