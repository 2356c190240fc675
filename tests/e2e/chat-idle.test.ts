import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { eventsOf, makeChatApp, USER } from '../chat/chat-app'

// Streams here deliberately outlast Bun's idle timeout by several seconds.
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/*
 * No idle timeout may cut a live stream. Bun closes a connection that sends nothing for
 * `idleTimeout` seconds; the chat route asks the server to lift it for its request
 * (deps.onLongLivedRequest → server.timeout(request, 0)), as src/runtimes/bun.ts wires it.
 * Here the echo provider pauses 1.5 s before each chunk, keep-alives are off (60 s), and
 * Bun's idle timeout is 1 s: the stream must still arrive whole.
 */

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

async function serve(liftIdleTimeout: boolean) {
  let server: ReturnType<typeof Bun.serve> | undefined
  const app = await makeChatApp({
    env: { ECHO_TOKEN_DELAY_MS: '1500', CHAT_KEEPALIVE_MS: '60000' },
    deps: liftIdleTimeout ? { onLongLivedRequest: (request) => server?.timeout(request, 0) } : {},
  })
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', idleTimeout: 1, fetch: app.app.fetch })
  cleanups.push(async () => {
    await server!.stop(true)
    await app.close()
  })
  return { url: `http://127.0.0.1:${server.port}/v1/chat/completions`, token: app.token }
}

async function streamOnce(url: string, token: string): Promise<{ body: string; failed: boolean }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'echo', messages: USER('slow but sure'), stream: true }),
  })
  let body = ''
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  try {
    for (let piece = await reader.read(); !piece.done; piece = await reader.read())
      body += decoder.decode(piece.value, { stream: true })
    return { body, failed: false }
  } catch {
    return { body, failed: true }
  }
}

describe('a stream that outlives the idle timeout', () => {
  test('arrives whole when the route lifts the idle timeout', async () => {
    const { url, token } = await serve(true)
    const started = performance.now()
    const { body, failed } = await streamOnce(url, token)
    // five chunks 1.5 s apart: well past the 1 s idle timeout, several times over
    expect(performance.now() - started).toBeGreaterThan(5_000)
    expect(failed).toBe(false)
    expect(
      eventsOf(body)
        .map((event) => event.choices[0]?.delta.content ?? '')
        .join(''),
    ).toBe('slow but sure')
    expect(body.endsWith('data: [DONE]\n\n')).toBe(true)
  })

  test('control: without lifting it, Bun cuts the same stream', async () => {
    const { url, token } = await serve(false)
    const { body, failed } = await streamOnce(url, token)
    expect(failed || !body.endsWith('data: [DONE]\n\n')).toBe(true)
  })
})
