/**
 * The native path: a registry entry whose provider speaks the Messages API (`ChatProvider.messages`)
 * gets the client's body with only `model` rewritten, and its answer, event bytes and token counts
 * go back as they are. Mixed registries fall back from a native entry to a translated one.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createEchoProvider } from '../../../src/chat/providers/echo/echo'
import {
  ProviderError,
  type ChatProvider,
  type JsonObject,
  type NativeMessages,
} from '../../../src/chat/providers/provider'
import { ModelRegistry, type RouteEntry } from '../../../src/chat/registry'
import { SETUP_TIMEOUT } from '../../helpers/app'
import { makeChatApp, readAll } from '../chat-app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const encoder = new TextEncoder()
const NATIVE_EVENTS = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_native","type":"message","role":"assistant","model":"claude-up-1","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":7,"output_tokens":1}}}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"native"}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\nevent: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n',
]
const NATIVE_MESSAGE = {
  id: 'msg_native',
  type: 'message',
  role: 'assistant',
  model: 'claude-up-1',
  content: [{ type: 'text', text: 'native' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 7, output_tokens: 3, cache_read_input_tokens: 4, cache_creation_input_tokens: 0 },
  container: null,
}
/** What the fake reports, in OpenAI's shape as the NativeMessages contract says: prompt counts cache reads. */
const REPORTED_USAGE = {
  prompt_tokens: 11,
  completion_tokens: 3,
  total_tokens: 14,
  prompt_tokens_details: { cached_tokens: 4 },
}

/** What the native fake was asked. */
const seen: { complete: JsonObject[]; stream: JsonObject[]; count: JsonObject[] } = {
  complete: [],
  stream: [],
  count: [],
}

/** A native Anthropic provider; its OpenAI methods must never be called. */
function nativeProvider(name: string, messages: NativeMessages): ChatProvider {
  return {
    name,
    complete: async () => {
      throw new Error('the OpenAI form must not reach a native provider')
    },
    // eslint-disable-next-line require-yield
    stream: async function* () {
      throw new Error('the OpenAI form must not reach a native provider')
    },
    messages,
  }
}

const anthropic = nativeProvider('anthropic:fake', {
  complete: async (request, _signal, report) => {
    seen.complete.push(request)
    if (report) Object.assign(report, { usage: REPORTED_USAGE, finishReason: 'stop' })
    return NATIVE_MESSAGE
  },
  streamEvents: async function* (request, _signal, report) {
    seen.stream.push(request)
    for (const text of NATIVE_EVENTS) yield encoder.encode(text)
    if (report) Object.assign(report, { usage: REPORTED_USAGE, finishReason: 'stop' })
  },
  countTokens: async (request) => {
    seen.count.push(request)
    return { input_tokens: 42 }
  },
})

/** A native entry that is down before its first byte: the registry falls back. */
const down = (): ProviderError => new ProviderError(503, 'the Anthropic upstream is down', { retryable: true })
const downProvider = nativeProvider('anthropic:down', {
  complete: async () => {
    throw down()
  },
  // eslint-disable-next-line require-yield
  streamEvents: async function* () {
    throw down()
  },
  countTokens: async () => {
    throw down()
  },
})

let t: Awaited<ReturnType<typeof makeChatApp>>
beforeAll(async () => {
  const retry = { maxRetries: 0, retryBaseMs: 0, retryMaxMs: 0 }
  const entry = (provider: ChatProvider, model: string): RouteEntry => ({ provider, model, retry })
  const echo = createEchoProvider()
  const registry = new ModelRegistry(
    new Map([
      ['claude', [entry(anthropic, 'claude-up-1')]],
      ['mixed', [entry(downProvider, 'claude-up-2'), entry(echo, 'echo')]],
    ]),
  )
  t = await makeChatApp({ chat: { registry, keepAliveMs: 15_000 } })
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

const post = (path: string, body: Record<string, unknown>) =>
  t.app.handle(
    new Request(`http://localhost${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.token },
      body: JSON.stringify(body),
    }),
  )

/** A body with what only Anthropic serves: top_k, a server tool, a document, a field Trellis does not model. */
const ANTHROPIC_ONLY = {
  max_tokens: 64,
  top_k: 5,
  container: 'container_1',
  tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 2 }],
  messages: [
    {
      role: 'user',
      content: [
        {
          type: 'document',
          source: { type: 'text', media_type: 'text/plain', data: 'doc' },
          cache_control: { type: 'ephemeral' },
        },
        { type: 'text', text: 'sum up' },
      ],
    },
  ],
}

describe('a native Anthropic provider', () => {
  test('non-streaming: the body as it came, only model rewritten; its message is the answer', async () => {
    const response = await post('/v1/messages', { model: 'claude', ...ANTHROPIC_ONLY })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(NATIVE_MESSAGE)
    expect(seen.complete.at(-1)).toEqual({ model: 'claude-up-1', ...ANTHROPIC_ONLY })
  })

  test('streaming: its event bytes are sent exactly as they are', async () => {
    const response = await post('/v1/messages', { model: 'claude', ...ANTHROPIC_ONLY, stream: true })
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    expect(await readAll(response)).toBe(NATIVE_EVENTS.join(''))
    expect(seen.stream.at(-1)).toEqual({ model: 'claude-up-1', ...ANTHROPIC_ONLY, stream: true })
  })

  test('count_tokens asks the provider, with only model rewritten', async () => {
    const response = await post('/v1/messages/count_tokens', {
      model: 'claude',
      messages: [{ role: 'user', content: 'hi' }],
      top_k: 1,
    })
    expect(await response.json()).toEqual({ input_tokens: 42 })
    expect(response.headers.get('x-trellis-token-count')).toBe('upstream')
    expect(seen.count.at(-1)).toEqual({ model: 'claude-up-1', messages: [{ role: 'user', content: 'hi' }], top_k: 1 })
  })

  test('the ledger records its reported usage under the public model name', async () => {
    const owner = `native-${crypto.randomUUID().slice(0, 8)}`
    const token = await t.tokenFor(owner, ['chat'])
    const response = await t.app.handle(
      new Request('http://localhost/v1/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ model: 'claude', ...ANTHROPIC_ONLY, stream: true }),
      }),
    )
    await readAll(response)
    expect(await t.deps.ledger!.flush()).toBe(true)
    // `/usage` counts rows strictly before "now": a row of this very millisecond would not count yet.
    await Bun.sleep(5)
    const [row] = (await (await t.request('/usage?group_by=owner,model', { token })).json()).data
    expect(row).toMatchObject({
      owner,
      model: 'claude',
      requests: 1,
      prompt_tokens: 11,
      completion_tokens: 3,
      cached_tokens: 4,
      errors: 0,
    })
  })
})

describe('a mixed registry: a native entry first, a translated one as its fallback', () => {
  test('streaming falls back to echo, whose answer is translated into Anthropic events', async () => {
    const response = await post('/v1/messages', {
      model: 'mixed',
      max_tokens: 64,
      stream: true,
      messages: [{ role: 'user', content: 'fell back' }],
    })
    const body = await readAll(response)
    expect(body).toStartWith('event: message_start\ndata: {"type":"message_start","message":{"id":"msg_')
    expect(body).toContain('"model":"mixed"')
    expect(body).toContain(
      `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' back' } })}\n\n`,
    )
    expect(body).toEndWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')
  })

  test('non-streaming falls back too', async () => {
    const response = await post('/v1/messages', {
      model: 'mixed',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'fell back' }],
    })
    expect(await response.json()).toMatchObject({
      type: 'message',
      model: 'mixed',
      content: [{ type: 'text', text: 'fell back' }],
      stop_reason: 'end_turn',
    })
  })

  test('count_tokens falls back to echo, which counts exactly', async () => {
    const response = await post('/v1/messages/count_tokens', {
      model: 'mixed',
      messages: [{ role: 'user', content: 'fell back' }],
    })
    expect(await response.json()).toEqual({ input_tokens: 3 })
    expect(response.headers.get('x-trellis-token-count')).toBe('exact')
  })

  test('what only the native entry could take is a 400 once the registry falls back to the translated one', async () => {
    const response = await post('/v1/messages', {
      model: 'mixed',
      max_tokens: 64,
      top_k: 3,
      messages: [{ role: 'user', content: 'hi' }],
    })
    expect(response.status).toBe(400)
    expect((await response.json()).error.message).toStartWith("top_k: not supported by model 'mixed'")
  })
})
