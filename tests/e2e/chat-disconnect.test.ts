import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import type { ChatProvider } from '../../src/chat/providers/provider'
import { makeChatApp, registryOf, USER } from '../chat/chat-app'

// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/*
 * A client that hangs up on a real socket aborts the provider's signal, so the upstream
 * request is released. (Until Bun v1.1.27 Bun did not call cancel() on a response's
 * ReadableStream when the client went away; this guards that path.)
 */

const seen: { started: number; aborted: number } = { started: 0, aborted: 0 }
let onAbort: () => void = () => {}

/** Streams one chunk, then waits (for a minute) until its signal aborts, counting both. */
const patient: ChatProvider = {
  name: 'patient',
  complete: async () => {
    throw new Error('unused')
  },
  stream: async function* (_request, signal) {
    seen.started++
    signal.addEventListener('abort', () => (seen.aborted++, onAbort()), { once: true })
    yield {
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'patient',
      choices: [{ index: 0, delta: { role: 'assistant', content: 'first' }, finish_reason: null }],
    }
    await new Promise((resolve) => setTimeout(resolve, 60_000))
  },
}

let app: Awaited<ReturnType<typeof makeChatApp>>
let server: ReturnType<typeof Bun.serve>
beforeAll(async () => {
  app = await makeChatApp({ chat: { registry: registryOf({ patient }), keepAliveMs: 60_000 } })
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: app.app.fetch })
})
afterAll(async () => {
  await server.stop(true)
  await app.close()
})

test('hanging up mid-stream aborts the provider signal', async () => {
  const aborted = new Promise<void>((resolve) => (onAbort = resolve))
  const client = new AbortController()
  const response = await fetch(`http://127.0.0.1:${server.port}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${app.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'patient', messages: USER('hi'), stream: true }),
    signal: client.signal,
  })
  const reader = response.body!.getReader()
  expect(new TextDecoder().decode((await reader.read()).value)).toContain('"content":"first"')
  client.abort()
  await aborted
  expect(seen).toEqual({ started: 1, aborted: 1 })
})
