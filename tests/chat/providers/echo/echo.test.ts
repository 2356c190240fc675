import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { ChatCompletionChunkObject, ChatCompletionResponse } from '../../../../src/chat/model'
import { createEchoProvider } from '../../../../src/chat/providers/echo/echo'
import { logprobFor } from '../../../../src/chat/providers/echo/logprobs'
import type { ChatRequest } from '../../../../src/chat/providers/provider'
import {
  promptOf,
  PromptCache,
  promptTokens,
  tokenize,
  type PromptMessage,
} from '../../../../src/chat/providers/echo/tokenizer'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/*
 * `echo` is deterministic and offline: it answers with the last user message, split by a
 * documented tokenizer, and reports usage that can be computed by hand.
 */

const signal = () => new AbortController().signal
const ask = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'echo',
  messages: [{ role: 'user', content }],
  ...extra,
})

async function complete(request: ChatRequest, provider = createEchoProvider()) {
  return (await provider.complete(request, signal())) as ChatCompletionResponse
}

async function stream(request: ChatRequest, provider = createEchoProvider()) {
  const chunks: ChatCompletionChunkObject[] = []
  for await (const chunk of provider.stream(request, signal())) chunks.push(chunk as ChatCompletionChunkObject)
  return chunks
}

describe('answers', () => {
  test('the last user message, whole, finishing with stop', async () => {
    const completion = await complete({
      model: 'echo',
      messages: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'Hello, world!' },
      ],
    })
    expect(completion.object).toBe('chat.completion')
    expect(completion.id).toMatch(/^chatcmpl-/)
    expect(completion.model).toBe('echo')
    expect(completion.system_fingerprint).toBeString()
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: 'Hello, world!', refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ])
  })

  test('created is in unix seconds from the clock', async () => {
    const provider = createEchoProvider({ clock: () => new Date('2026-01-02T03:04:05.678Z') })
    expect((await complete(ask('hi'), provider)).created).toBe(Date.UTC(2026, 0, 2, 3, 4, 5) / 1000)
  })

  test('max_tokens cuts the answer and finishes with length', async () => {
    const completion = await complete(ask('one two three four', { max_tokens: 2 }))
    expect(completion.choices[0]!.message.content).toBe('one two')
    expect(completion.choices[0]!.finish_reason).toBe('length')
    expect(completion.usage!.completion_tokens).toBe(2)
  })

  test('max_completion_tokens counts the same way', async () => {
    expect((await complete(ask('one two three', { max_completion_tokens: 1 }))).choices[0]!.message.content).toBe('one')
  })

  test('the answer ends before the earliest stop sequence', async () => {
    const completion = await complete(ask('alpha beta. gamma; delta', { stop: [';', '.'] }))
    expect(completion.choices[0]!.message.content).toBe('alpha beta')
    expect(completion.choices[0]!.finish_reason).toBe('stop')
    expect((await complete(ask('alpha beta', { stop: 'beta' }))).choices[0]!.message.content).toBe('alpha ')
    // Half of a surrogate pair as the stop sequence: the cut keeps whole characters.
    expect((await complete(ask('a🌿b', { stop: '\udf3f' }))).choices[0]!.message.content).toBe('a')
  })

  // vLLM's field, which /v1/messages reads to name the sequence in stop_sequence.
  test("the stop sequence that cut the answer is the choice's stop_reason, streamed or not; none without a cut", async () => {
    const STOPS: [name: string, request: ChatRequest, stopReason: string | undefined][] = [
      ['the earliest of two', ask('alpha beta. gamma; delta', { stop: [';', '.'] }), '.'],
      ['a single string', ask('alpha beta', { stop: 'beta' }), 'beta'],
      ['a stop that is not in the text', ask('alpha beta', { stop: ['zeta'] }), undefined],
      ['max_tokens before the stop', ask('one two three. four', { stop: ['.'], max_tokens: 2 }), undefined],
      ['no stop', ask('alpha'), undefined],
    ]
    for (const [name, request, stopReason] of STOPS) {
      const choice = (await complete(request)).choices[0] as Record<string, unknown>
      const last = (await stream(request)).at(-1)!.choices[0] as Record<string, unknown>
      expect({ name, complete: choice.stop_reason, stream: last.stop_reason }).toEqual({
        name,
        complete: stopReason,
        stream: stopReason,
      })
    }
  })

  test('n choices, identical', async () => {
    const completion = await complete(ask('hi there', { n: 3 }))
    expect(completion.choices.map((choice) => choice.index)).toEqual([0, 1, 2])
    expect(new Set(completion.choices.map((choice) => choice.message.content))).toEqual(new Set(['hi there']))
    expect(completion.usage!.completion_tokens).toBe(6)
  })

  test('json_object format answers a JSON object holding the text', async () => {
    const content = (await complete(ask('hi', { response_format: { type: 'json_object' } }))).choices[0]!.message
      .content!
    expect(JSON.parse(content)).toEqual({ echo: 'hi' })
  })

  test('json_schema format answers an example of the schema', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } } }
    const content = (
      await complete(ask('Oslo', { response_format: { type: 'json_schema', json_schema: { name: 'trip', schema } } }))
    ).choices[0]!.message.content!
    expect(JSON.parse(content)).toEqual({ city: 'Oslo', days: 1 })
  })
})

describe('usage', () => {
  test('exact for the tokenizer, with reasoning tokens 0 and no cache hit the first time', async () => {
    const completion = await complete(ask('Hello, world!'))
    // <|user|> Hello , world !  → 5 prompt tokens; Hello , world ! → 4 completion tokens
    expect(completion.usage).toEqual({
      prompt_tokens: 5,
      completion_tokens: 4,
      total_tokens: 9,
      prompt_cache_hit_tokens: 0,
      prompt_cache_miss_tokens: 5,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    })
  })

  test('a repeated prompt prefix counts as cache hits', async () => {
    const provider = createEchoProvider()
    const system = { role: 'system', content: 'You are a gardener.' } // <|system|> You are a gardener . → 6
    await complete({ model: 'echo', messages: [system, { role: 'user', content: 'water?' }] }, provider)
    const second = await complete({ model: 'echo', messages: [system, { role: 'user', content: 'soil?' }] }, provider)
    // shared: the 6 system tokens and the <|user|> marker
    expect(second.usage!.prompt_cache_hit_tokens).toBe(7)
    expect(second.usage!.prompt_cache_miss_tokens).toBe(second.usage!.prompt_tokens - 7)
    const again = await complete({ model: 'echo', messages: [system, { role: 'user', content: 'soil?' }] }, provider)
    expect(again.usage!.prompt_cache_hit_tokens).toBe(again.usage!.prompt_tokens)
    expect(again.usage!.prompt_cache_miss_tokens).toBe(0)
  })

  test('the cache is per provider instance', async () => {
    await complete(ask('same words'), createEchoProvider())
    expect((await complete(ask('same words'), createEchoProvider())).usage!.prompt_cache_hit_tokens).toBe(0)
  })

  test('the cache is bounded: the least recently seen prompt is forgotten', () => {
    const user = (content: string) => promptOf([{ role: 'user', content }])
    const cache = new PromptCache(2)
    cache.lookupAndRemember(user('a b'))
    cache.lookupAndRemember(user('c'))
    cache.lookupAndRemember(user('d'))
    // <|user|> is shared with every remembered prompt; 'a b' itself was forgotten.
    expect(cache.lookupAndRemember(user('a b')).hits).toBe(1)
    expect(cache.lookupAndRemember(user('d')).hits).toBe(2)
  })

  test('cache hits are the leading tokens a prompt shares with a remembered one, token for token', () => {
    // The cache compares offsets and text rather than token strings; check it against the
    // plain definition on prompts built to share prefixes, split tokens differently at the
    // same place ('ab' + 'c' against 'abc'), and look like role markers.
    const pieces = ['a', 'b', ' ', 'ab', 'c', '<|user|>', '!', 'é', '🌱', '\n']
    let seed = 7
    const random = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n
    const text = () => Array.from({ length: random(6) }, () => pieces[random(pieces.length)]).join('')
    const prompt = (): PromptMessage[] =>
      Array.from({ length: 1 + random(3) }, () => ({ role: random(2) ? 'user' : 'assistant', content: text() }))
    const shared = (a: string[], b: string[]) => {
      let i = 0
      while (i < a.length && i < b.length && a[i] === b[i]) i++
      return i
    }
    for (let round = 0; round < 2000; round++) {
      const first = prompt()
      const second = random(3) ? [...first.slice(0, random(first.length + 1)), ...prompt()] : prompt()
      const cache = new PromptCache()
      cache.lookupAndRemember(promptOf(first))
      const expected = shared(promptTokens(first), promptTokens(second))
      expect({ first, second, hits: cache.lookupAndRemember(promptOf(second)).hits }).toEqual({
        first,
        second,
        hits: expected,
      })
    }
  })

  test('the cache keeps at most maxTokens tokens of a prompt', () => {
    const cache = new PromptCache(4, 3)
    cache.lookupAndRemember(promptOf([{ role: 'user', content: 'one two three four' }]))
    // <|user|> one two are remembered; three is not.
    expect(cache.lookupAndRemember(promptOf([{ role: 'user', content: 'one two three' }])).hits).toBe(3)
  })
})

describe('logprobs', () => {
  test('one deterministic entry per content token, with UTF-8 bytes and top alternatives', async () => {
    const completion = await complete(ask('Hi café', { logprobs: true, top_logprobs: 3 }))
    const entries = completion.choices[0]!.logprobs!.content!
    expect(entries.map((entry) => entry.token)).toEqual(['Hi', ' café'])
    expect(entries[1]!.bytes).toEqual([...new TextEncoder().encode(' café')])
    for (const entry of entries) {
      expect(entry.logprob).toBeLessThan(0)
      expect(entry.top_logprobs).toHaveLength(3)
      expect(entry.top_logprobs[0]).toEqual({ token: entry.token, logprob: entry.logprob, bytes: entry.bytes })
      const logprobs = entry.top_logprobs.map((top) => top.logprob)
      expect(logprobs).toEqual([...logprobs].sort((a, b) => b - a))
    }
    expect((await complete(ask('Hi café', { logprobs: true, top_logprobs: 3 }))).choices[0]!.logprobs).toEqual(
      completion.choices[0]!.logprobs,
    )
  })

  // OpenAI's schema requires `refusal` beside `content` (null without a refusal), streamed or not.
  test("the logprobs object carries refusal: null, as OpenAI's schema requires", async () => {
    const completion = await complete(ask('a b', { logprobs: true }))
    expect(completion.choices[0]!.logprobs).toEqual({
      content: [logprobFor('a', 0), logprobFor(' b', 0)],
      refusal: null,
    })
    const chunks = await stream(ask('a b', { logprobs: true }))
    const withLogprobs = chunks.filter((chunk) => chunk.choices[0]?.logprobs)
    expect(withLogprobs).toHaveLength(2)
    for (const chunk of withLogprobs) expect(chunk.choices[0]!.logprobs!.refusal).toBeNull()
  })

  test('top_logprobs defaults to none', () => {
    expect(logprobFor('x', 0).top_logprobs).toEqual([])
  })
})

describe('streaming', () => {
  test('one token per chunk: role first, an empty delta with finish_reason last, same id/created/model throughout', async () => {
    const chunks = await stream(ask('Hello, world!'))
    expect(chunks.map((chunk) => chunk.choices[0]!.delta)).toEqual([
      { role: 'assistant', content: '', refusal: null },
      { content: 'Hello' },
      { content: ',' },
      { content: ' world' },
      { content: '!' },
      {},
    ])
    expect(chunks.map((chunk) => chunk.choices[0]!.finish_reason)).toEqual([null, null, null, null, null, 'stop'])
    expect(new Set(chunks.map((chunk) => `${chunk.id} ${chunk.created} ${chunk.model} ${chunk.object}`)).size).toBe(1)
    expect(chunks[0]!.object).toBe('chat.completion.chunk')
    expect(chunks.some((chunk) => 'usage' in chunk)).toBe(false)
  })

  test('include_usage adds one chunk with choices [] and the usage', async () => {
    const chunks = await stream(ask('Hello, world!', { stream_options: { include_usage: true } }))
    const last = chunks.at(-1)!
    expect(last.choices).toEqual([])
    expect(last.usage).toEqual((await complete(ask('Hello, world!'))).usage!)
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true)
  })

  test('logprobs ride on each content chunk', async () => {
    const chunks = await stream(ask('a b', { logprobs: true, top_logprobs: 1 }))
    expect(chunks[1]!.choices[0]!.logprobs).toEqual({ content: [logprobFor('a', 1)], refusal: null })
  })

  test('echo-reasoner streams reasoning_content before content, and counts it', async () => {
    const chunks = await stream({
      ...ask('Hi there', { stream_options: { include_usage: true } }),
      model: 'echo-reasoner',
    })
    const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta))
    const kinds = deltas.map((delta) => (delta.reasoning_content ? 'r' : delta.content ? 'c' : '-')).join('')
    expect(kinds).toMatch(/^-r+c+-$/)
    const reasoning = deltas.map((delta) => delta.reasoning_content ?? '').join('')
    expect(reasoning).toBe('Echo provider, not a model: repeating 2 tokens.')
    const usage = chunks.at(-1)!.usage!
    expect(usage.completion_tokens_details!.reasoning_tokens).toBe(tokenize(reasoning).length)
    expect(usage.completion_tokens).toBe(tokenize(reasoning).length + 2)
  })

  test('max_tokens counts reasoning first: a budget it uses up leaves no content and finishes with length', async () => {
    const chunks = await stream({
      ...ask('Hi there', { max_tokens: 3, stream_options: { include_usage: true } }),
      model: 'echo-reasoner',
    })
    const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta))
    expect(deltas.map((delta) => delta.reasoning_content ?? '').join('')).toBe('Echo provider,')
    expect(deltas.some((delta) => delta.content)).toBe(false)
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('length')
    expect(chunks.at(-1)!.usage).toMatchObject({
      completion_tokens: 3,
      completion_tokens_details: { reasoning_tokens: 3 },
    })
  })

  test('a configured pace spaces the chunks', async () => {
    const started = performance.now()
    await stream(ask('a b c'), createEchoProvider({ tokenDelayMs: 20 }))
    // five chunks: role, three tokens, finish
    expect(performance.now() - started).toBeGreaterThanOrEqual(5 * 20 - 5)
  })

  test('stops promptly when the signal aborts', async () => {
    const abort = new AbortController()
    const provider = createEchoProvider({ tokenDelayMs: 10_000 })
    const iterator = provider.stream(ask('never finishes'), abort.signal)[Symbol.asyncIterator]()
    const next = iterator.next()
    setTimeout(() => abort.abort(new Error('client went away')), 10)
    const started = performance.now()
    await expect(next).rejects.toThrow('client went away')
    expect(performance.now() - started).toBeLessThan(1000)
  })

  test("an abort between steps is the next step's error, not the end of the stream", async () => {
    const abort = new AbortController()
    const iterator = createEchoProvider({ tokenDelayMs: 1 }).streamEvents!(ask('a b c d'), abort.signal)[
      Symbol.asyncIterator
    ]()
    await iterator.next()
    abort.abort(new Error('shutting down'))
    await expect(iterator.next()).rejects.toThrow('shutting down')
  })
})

describe('tool calls', () => {
  const weather = {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      parameters: {
        type: 'object',
        properties: {
          city: { type: 'string', minLength: 1 },
          unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
          days: { type: 'integer', minimum: 1, maximum: 7 },
          when: { type: 'string', format: 'date' },
          tags: { type: 'array', items: { type: 'string' } },
          exact: { type: 'boolean' },
        },
        required: ['city'],
      },
    },
  }
  const other = { type: 'function' as const, function: { name: 'noop' } }

  test('tool_choice required calls the first tool with arguments valid for its schema', async () => {
    const completion = await complete(ask('Paris', { tools: [weather, other], tool_choice: 'required' }))
    const choice = completion.choices[0]!
    expect(choice.finish_reason).toBe('tool_calls')
    expect(choice.message.content).toBeNull()
    const call = choice.message.tool_calls![0]!
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } })
    expect(call.id).toMatch(/^call_/)
    expect(JSON.parse(call.function.arguments)).toEqual({
      city: 'Paris',
      unit: 'celsius',
      days: 1,
      when: '1970-01-01',
      tags: ['Paris'],
      exact: true,
    })
  })

  test('a named function is called even when it is not first', async () => {
    const completion = await complete(
      ask('x', { tools: [weather, other], tool_choice: { type: 'function', function: { name: 'noop' } } }),
    )
    expect(completion.choices[0]!.message.tool_calls![0]!.function).toEqual({ name: 'noop', arguments: '{}' })
  })

  test('auto and none answer with text', async () => {
    for (const tool_choice of ['auto', 'none'] as const) {
      const completion = await complete(ask('Paris', { tools: [weather], tool_choice }))
      expect(completion.choices[0]!.message.content).toBe('Paris')
    }
  })

  test('streamed the way OpenAI does: id, type and name first with empty arguments, then pieces', async () => {
    const chunks = await stream(ask('Paris', { tools: [weather], tool_choice: 'required' }))
    const deltas = chunks.map((chunk) => chunk.choices[0]!.delta)
    expect(deltas[0]).toEqual({
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [
        {
          index: 0,
          id: expect.stringMatching(/^call_/),
          type: 'function',
          function: { name: 'get_weather', arguments: '' },
        },
      ],
    })
    const pieces = deltas.slice(1, -1)
    expect(pieces.length).toBeGreaterThan(1)
    for (const piece of pieces) expect(Object.keys(piece.tool_calls![0]!).sort()).toEqual(['function', 'index'])
    const args = pieces.map((piece) => piece.tool_calls![0]!.function!.arguments).join('')
    expect(JSON.parse(args).city).toBe('Paris')
    expect(chunks.at(-1)!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'tool_calls' })
  })
})

describe('streamEvents: the bytes the route sends', () => {
  const tools = [
    {
      type: 'function' as const,
      function: {
        name: 'lookup',
        parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      },
    },
  ]
  test.each([
    ['plain content', ask('Hello, "quoted" world 🌿\n')],
    [
      'tokens JSON escapes or that are not ASCII',
      ask('back\\slash "q" tab\there \u0001ctl \u007f naïve 🌱 lone \ud800 end'),
    ],
    ['two choices with logprobs', ask('one two', { n: 2, logprobs: true, top_logprobs: 2 })],
    ['usage at the end', ask('with usage', { stream_options: { include_usage: true } })],
    ['a stop sequence', ask('stop here please', { stop: [' here'] })],
    ['max_tokens', ask('a b c d e', { max_tokens: 2 })],
    ['a tool call', ask('call it', { tools, tool_choice: 'required' })],
    ['reasoning first', ask('think', { model: 'echo-reasoner' })],
  ])('%s: each event is exactly JSON.stringify of the chunk stream() gives, one step per item', async (_, request) => {
    // Fresh providers, so that the prompt cache counts the same for both.
    const items: string[] = []
    for await (const events of createEchoProvider().streamEvents!(request, signal()))
      items.push(new TextDecoder().decode(events))
    const chunks = await stream(request, createEchoProvider())
    const events = items.flatMap((item) => item.split('\n\n').filter(Boolean))
    expect(events.every((event) => event.startsWith('data: '))).toBe(true)
    const payloads = events.map((event) => event.slice('data: '.length))
    // Canonical: what JSON.stringify would write for the parsed chunk, byte for byte.
    for (const payload of payloads) expect(JSON.stringify(JSON.parse(payload))).toBe(payload)
    // The same chunks as stream(), but for the completion and tool call ids, which are new per stream.
    const sameIds = (text: string) =>
      text.replace(/chatcmpl-[0-9a-f]+/g, 'chatcmpl-x').replace(/call_[0-9a-f]+/g, 'call_x')
    expect(payloads.map(sameIds)).toEqual(chunks.map((chunk) => sameIds(JSON.stringify(chunk))))
    // One item per step (a chunk per choice), and the usage chunk alone.
    const n = Number(request.n ?? 1)
    const usageChunks = request.stream_options ? 1 : 0
    expect(items.length).toBe((chunks.length - usageChunks) / n + usageChunks)
  })
})
