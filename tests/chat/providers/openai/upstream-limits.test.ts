/**
 * What an upstream can make the relay hold (OWASP API4, hardening issue §3): a non-streamed answer
 * is counted after decoding and refused past CHAT_MAX_RESPONSE_BYTES, an error answer is read only
 * as far as its message, and a streamed event may grow only to CHAT_MAX_EVENT_BYTES before it ends.
 */
import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { gzipSync } from 'node:zlib'
import { PROVIDER_DEFAULTS } from '../../../../src/config/chat'
import { openaiProvider } from '../../../../src/chat/providers/openai/openai'
import { ProviderError } from '../../../../src/chat/providers/provider'
import { startMockUpstream, type MockUpstream } from '../../mock-upstream'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

let upstream: MockUpstream
beforeEach(async () => {
  upstream = await startMockUpstream()
})
afterEach(async () => {
  await upstream.stop()
})

const MiB = 1024 * 1024
const provider = (limits: { maxResponseBytes?: number; maxEventBytes?: number } = {}) =>
  openaiProvider({ ...PROVIDER_DEFAULTS, name: 'mock', baseUrl: upstream.baseUrl, ...limits })
const ask = { model: 'm', messages: [{ role: 'user', content: 'hi' }] }

/** A chat completion whose content is `size` bytes of one letter. */
const completion = (size: number) =>
  JSON.stringify({
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: 'a'.repeat(size) }, finish_reason: 'stop' }],
  })

describe('a non-streamed answer', () => {
  test('a gzip bomb (64 KB on the wire, 64 MB decoded) is a 502 once the decoded bytes pass the cap, although identity was asked for', async () => {
    const bomb = gzipSync(completion(64 * MiB))
    expect(bomb.length).toBeLessThan(256 * 1024)
    upstream.script({ rawBody: bomb, headers: { 'content-encoding': 'gzip' } })
    const error = await provider({ maxResponseBytes: MiB })
      .complete(ask, new AbortController().signal)
      .catch((caught) => caught)
    expect(upstream.requests[0]!.headers.get('accept-encoding')).toBe('identity')
    expect(error).toBeInstanceOf(ProviderError)
    expect(error.status).toBe(502)
    expect(error.message).toContain(`larger than this gateway's limit of ${MiB} bytes`)
  })

  test('a compressed answer under the cap is decoded and relayed whole', async () => {
    upstream.script({ rawBody: gzipSync(completion(100_000)), headers: { 'content-encoding': 'gzip' } })
    const answer = await provider({ maxResponseBytes: MiB }).complete(ask, new AbortController().signal)
    expect((answer.choices[0]!.message as { content: string }).content).toHaveLength(100_000)
  })

  test('an error answer of 10 MB is read only as far as 64 KB: the status still maps, the page does not', async () => {
    upstream.script({ status: 500, rawBody: new TextEncoder().encode('<html>' + 'x'.repeat(10 * MiB)) })
    const error = await provider()
      .complete(ask, new AbortController().signal)
      .catch((caught) => caught)
    expect(error.status).toBe(502)
    expect(error.options.code).toBe('upstream_error')
    expect(error.options.detail).toBe('HTTP 500')
  })
})

describe('a streamed event', () => {
  const event = (content: string) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`

  test('one that grows past CHAT_MAX_EVENT_BYTES ends the stream with an error, after the events before it', async () => {
    const huge = `data: {"x":"${'y'.repeat(2 * MiB)}`
    upstream.script({
      rawPieces: [
        event('before'),
        ...Array.from({ length: 64 }, (_, i) => huge.slice(i * 32 * 1024, (i + 1) * 32 * 1024)),
      ],
    })
    const items: string[] = []
    const error = await (async () => {
      for await (const bytes of provider({ maxEventBytes: MiB }).streamEvents(
        { ...ask, stream: true },
        new AbortController().signal,
      ))
        items.push(new TextDecoder().decode(bytes))
    })().catch((caught) => caught)
    expect(items.join('')).toBe(event('before'))
    expect(error).toBeInstanceOf(ProviderError)
    expect(error.message).toContain(`larger than this gateway's limit of ${MiB} bytes`)
  })

  test('one of 512 KB arriving 1 KB a read is relayed whole (the decoder takes over from the verbatim scan)', async () => {
    const big = event('z'.repeat(512 * 1024))
    const pieces = Array.from({ length: Math.ceil(big.length / 1024) }, (_, i) => big.slice(i * 1024, (i + 1) * 1024))
    upstream.script({ rawPieces: [event('first'), ...pieces, event('last'), 'data: [DONE]\n\n'] })
    const contents: string[] = []
    for await (const chunk of provider().stream({ ...ask, stream: true }, new AbortController().signal))
      contents.push((chunk.choices[0]!.delta as { content: string }).content)
    expect(contents.map((content) => content.length)).toEqual([5, 512 * 1024, 4])
  })
})
