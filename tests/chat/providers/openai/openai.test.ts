import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { PROVIDER_DEFAULTS } from '../../../../src/config/chat'
import { openaiProvider, type OpenAIProviderOptions } from '../../../../src/chat/providers/openai/openai'
import { ProviderError, type ChatCompletionChunk, type ChatRequest } from '../../../../src/chat/providers/provider'
import { completionOf, eventsOf, piecesOf, startMockUpstream, type MockUpstream } from '../../mock-upstream'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let upstream: MockUpstream
beforeEach(async () => {
  upstream = await startMockUpstream()
})
afterEach(async () => {
  await upstream.stop()
})

function relay(overrides: Partial<OpenAIProviderOptions> = {}) {
  return openaiProvider({ ...PROVIDER_DEFAULTS, name: 'mock', baseUrl: upstream.baseUrl, ...overrides })
}

const request = (extra: Record<string, unknown> = {}): ChatRequest => ({
  model: 'upstream-model',
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
})

async function collect(chunks: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const out: ChatCompletionChunk[] = []
  for await (const chunk of chunks) out.push(chunk)
  return out
}

/** Runs the stream to its end and returns what arrived before it failed, plus the failure. */
async function collectUntilFailure(chunks: AsyncIterable<ChatCompletionChunk>) {
  const out: ChatCompletionChunk[] = []
  try {
    for await (const chunk of chunks) out.push(chunk)
  } catch (error) {
    return { chunks: out, error }
  }
  throw new Error(`the stream ended without failing after ${out.length} chunks`)
}

const contentOf = (chunks: ChatCompletionChunk[]) =>
  chunks.map((chunk) => (chunk.choices[0]?.delta as { content?: string } | undefined)?.content ?? '').join('')

describe('streaming relay', () => {
  test('relays every chunk in order, exactly as the upstream sent it, fields we do not model included', async () => {
    const reply = { chunks: 64 }
    upstream.script(reply)
    const chunks = await collect(relay().stream(request(), new AbortController().signal))

    // What the upstream sends a client that did not ask for usage: Trellis asks for it (for the ledger) and strips it.
    expect(upstream.requests[0].body.stream_options).toEqual({ include_usage: true })
    expect(chunks).toEqual(eventsOf(reply, request()) as ChatCompletionChunk[])
    expect(contentOf(chunks)).toBe(piecesOf(reply).join(''))
    expect(chunks[1].obfuscation).toBe('x0')
    expect(chunks[0].choices[0]).toEqual({
      index: 0,
      delta: { role: 'assistant', content: '', refusal: null },
      logprobs: null,
      finish_reason: null,
    })
  })

  test('100 concurrent streams each arrive whole and in order', async () => {
    upstream.script({ chunks: 64 })
    const provider = relay()
    const streams = await Promise.all(
      Array.from({ length: 100 }, () => collect(provider.stream(request(), new AbortController().signal))),
    )
    for (const chunks of streams) expect(contentOf(chunks)).toBe(piecesOf({ chunks: 64 }).join(''))
  })

  test('a 1 MB chunk spread over many network reads arrives intact', async () => {
    const big = 'ü🌱x'.repeat(262_144)
    upstream.script({ chunks: ['before ', big, ' after'] })
    const chunks = await collect(relay().stream(request(), new AbortController().signal))
    expect(contentOf(chunks)).toBe(`before ${big} after`)
  })

  test('keeps the usage chunk and its vendor fields when include_usage is asked for', async () => {
    const chunks = await collect(
      relay().stream(request({ stream_options: { include_usage: true } }), new AbortController().signal),
    )
    const last = chunks.at(-1)!
    expect(last.choices).toEqual([])
    expect(last.usage).toEqual({
      prompt_tokens: 5,
      completion_tokens: 3,
      total_tokens: 8,
      vendor_extra: { kept: true },
    })
  })

  test('yields each chunk as soon as it arrives, without waiting for the rest of the stream', async () => {
    upstream.script({ chunks: 4, chunkDelayMs: 150 })
    const started = performance.now()
    const iterator = relay().stream(request(), new AbortController().signal)[Symbol.asyncIterator]()
    await iterator.next()
    const second = await iterator.next()
    expect(contentOf([second.value])).toBe('tok0 ')
    expect(performance.now() - started).toBeLessThan(450)
    await iterator.return?.()
  })

  test('sends the request upstream untouched apart from stream: true and include_usage, unknown fields included, with the key and extra headers', async () => {
    const sent = request({ temperature: 0.2, seed: 7, vendor_flag: { nested: [1, 2] }, reasoning_effort: 'low' })
    await collect(
      relay({ apiKey: 'sk-upstream', headers: { 'x-team': 'plants' } }).stream(sent, new AbortController().signal),
    )

    const seen = upstream.requests[0]
    expect(seen.path).toBe('/v1/chat/completions')
    expect(seen.body).toEqual({ ...sent, stream: true, stream_options: { include_usage: true } })
    expect(seen.headers.get('authorization')).toBe('Bearer sk-upstream')
    expect(seen.headers.get('x-team')).toBe('plants')
    expect(seen.headers.get('accept')).toBe('text/event-stream')
  })

  test('sends no authorization header to a keyless upstream such as Ollama', async () => {
    await collect(relay().stream(request(), new AbortController().signal))
    expect(upstream.requests[0].headers.get('authorization')).toBeNull()
  })

  test('an upstream that breaks the connection mid-stream: the chunks before it arrive, then a 502', async () => {
    upstream.script({ chunks: 10, failAfterChunks: 4 })
    const { chunks, error } = await collectUntilFailure(relay().stream(request(), new AbortController().signal))

    expect(contentOf(chunks)).toBe(piecesOf({ chunks: 4 }).join(''))
    expect(error).toBeInstanceOf(ProviderError)
    expect((error as ProviderError).status).toBe(502)
    expect((error as ProviderError).message).toContain("upstream provider 'mock' broke mid-response")
  })

  test('an upstream stream that ends without [DONE] is reported as truncated, not as a complete answer', async () => {
    upstream.script({ chunks: 2, omitDone: true })
    const { chunks, error } = await collectUntilFailure(relay().stream(request(), new AbortController().signal))
    expect(chunks).toHaveLength(4)
    expect((error as ProviderError).status).toBe(502)
    expect((error as ProviderError).message).toContain('closed the stream before [DONE]')
  })

  test('an error event inside a 200 stream (as OpenRouter sends) ends the stream; its message goes to the log', async () => {
    upstream.script({
      rawPieces: [
        'data: {"id":"a","object":"chat.completion.chunk","choices":[]}\n\n',
        'data: {"error":{"message":"provider overloaded","code":502}}\n\n',
      ],
    })
    const { chunks, error } = await collectUntilFailure(relay().stream(request(), new AbortController().signal))
    expect(chunks).toHaveLength(1)
    expect((error as ProviderError).status).toBe(502)
    expect((error as ProviderError).message).toContain('reported an error mid-answer')
    expect((error as ProviderError).options.detail).toBe('provider overloaded')
  })

  test('a JSON body where an event stream was asked for is a 502; the log quotes it', async () => {
    upstream.script({
      rawPieces: ['{"note":"streaming is disabled here"}'],
      headers: { 'content-type': 'application/json' },
    })
    const { chunks, error } = await collectUntilFailure(relay().stream(request(), new AbortController().signal))
    expect(chunks).toHaveLength(0)
    expect((error as ProviderError).status).toBe(502)
    expect((error as ProviderError).message).toContain('JSON instead of an event stream')
    expect((error as ProviderError).options.detail).toBe('{"note":"streaming is disabled here"}')
  })

  test('an event that is not JSON is a 502; the log names it', async () => {
    upstream.script({ rawPieces: ['data: not json\n\n'] })
    const { error } = await collectUntilFailure(relay().stream(request(), new AbortController().signal))
    expect((error as ProviderError).status).toBe(502)
    expect((error as ProviderError).message).toContain('not a JSON object')
    expect((error as ProviderError).options.detail).toBe('not json')
  })

  test('an unreachable upstream is a retryable 502', async () => {
    const port = upstream.port
    await upstream.stop()
    const { error } = await collectUntilFailure(
      relay({ baseUrl: `http://127.0.0.1:${port}/v1` }).stream(request(), new AbortController().signal),
    )
    expect(error).toBeInstanceOf(ProviderError)
    expect((error as ProviderError).status).toBe(502)
    expect((error as ProviderError).options).toMatchObject({ code: 'upstream_unreachable', retryable: true })
    upstream = await startMockUpstream()
  })
})

describe('non-streaming relay', () => {
  test('returns the upstream completion exactly, fields we do not model included', async () => {
    const completion = await relay().complete(request({ logit_bias: { '42': 1 } }), new AbortController().signal)
    expect(completion).toEqual(completionOf({}, upstream.requests[0].body) as typeof completion)
    expect(completion.service_tier).toBe('default')
    expect(upstream.requests[0].body).toEqual(request({ logit_bias: { '42': 1 } }))
    expect(upstream.requests[0].headers.get('accept')).toBe('application/json')
  })

  test('maps an upstream error status the same way streams do', async () => {
    upstream.script({ status: 404, errorBody: { error: { message: 'no such model', code: 'model_not_found' } } })
    const error = await relay()
      .complete(request(), new AbortController().signal)
      .catch((caught) => caught)
    expect(error).toBeInstanceOf(ProviderError)
    expect(error.status).toBe(404)
    expect(error.options.code).toBe('model_not_found')
  })
})

describe('event bytes: grouped by the network read that completed them', () => {
  const event = (i: number) =>
    `data: {"id":"b","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"${i}"}}]}\n\n`

  test('a burst arrives as one batch; a later read is a later batch; nothing is held back', async () => {
    upstream.script({
      rawPieces: [event(0) + event(1) + event(2), event(3) + event(4), 'data: [DONE]\n\n'],
      chunkDelayMs: 80,
    })
    const items: string[] = []
    for await (const events of relay().streamEvents(request(), new AbortController().signal))
      items.push(new TextDecoder().decode(events))
    expect(items).toEqual([event(0) + event(1) + event(2), event(3) + event(4), 'data: [DONE]\n\n'])
  })

  test('event bytes go out exactly as the upstream wrote them: integers beyond 2^53, 1.0 and escapes included', async () => {
    const exact =
      'data: {"id":"b","object":"chat.completion.chunk","seed":9007199254740993123,"score":1.0,"choices":[{"index":0,"delta":{"content":"\\u00e9"}}]}\n\n'
    upstream.script({ rawPieces: [exact + 'data: [DONE]\n\n'] })
    const items: string[] = []
    for await (const events of relay().streamEvents(request(), new AbortController().signal))
      items.push(new TextDecoder().decode(events))
    expect(items.join('')).toBe(exact + 'data: [DONE]\n\n')
  })

  test('chunks read before a bad event are delivered, then the error', async () => {
    upstream.script({ rawPieces: [event(0) + event(1) + 'data: {"error":{"message":"boom"}}\n\n'] })
    const items: string[] = []
    let error: unknown
    try {
      for await (const events of relay().streamEvents(request(), new AbortController().signal))
        items.push(new TextDecoder().decode(events))
    } catch (caught) {
      error = caught
    }
    expect(items).toEqual([event(0) + event(1)])
    expect((error as ProviderError).options.detail).toBe('boom')
  })
})
