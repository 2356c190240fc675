import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type RunningServer, runCli, startServer, storageEnv } from '../helpers/process'

/**
 * SIGTERM on a real `bun src/server.ts` with a chat stream in flight. The echo provider
 * is slowed with ECHO_TOKEN_DELAY_MS so the stream is still open when the signal lands.
 * One storage (and one token) serves every server in this file; each test starts its own.
 */
let storage: Awaited<ReturnType<typeof storageEnv>>
let token = ''

beforeAll(async () => {
  storage = await storageEnv()
  const created = await runCli(['token', 'create', '--owner', 'shutdown', '--scope', 'chat'], storage.env)
  if (created.code !== 0) throw new Error(`token create failed: ${created.stderr}`)
  token = created.stdout.match(/trl_[A-Za-z0-9_-]{43}/)![0]
}, 90_000)

afterAll(async () => {
  await storage.cleanup()
})

const WORDS = 30

/** Opens a streamed echo completion of WORDS words and returns once its first event has arrived. */
async function openStream(url: string) {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'echo', stream: true, messages: [{ role: 'user', content: Array.from({ length: WORDS }, (_, i) => `word${i}`).join(' ') }] }),
  })
  expect(response.status).toBe(200)
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  while (!text.includes('data: ')) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`the stream ended before its first event: ${text}`)
    text += decoder.decode(value, { stream: true })
  }
  return {
    /** Everything the stream sends, to its end. */
    rest: async () => {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true })
      return text
    },
  }
}

async function until(condition: () => boolean, what: string, ms = 10_000) {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(10)
  }
}

/** A fresh TCP connection to the server's port: true when it is accepted. */
async function accepts(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url)
  try {
    const socket = await Bun.connect({ hostname, port: Number(port), socket: { data() {} } })
    socket.end()
    return true
  } catch {
    return false
  }
}

async function serverWith(env: Record<string, string>): Promise<RunningServer> {
  return startServer({ ...storage.env, MIGRATE_ON_START: 'false', ...env })
}

describe('SIGTERM with a stream in flight', () => {
  test('a stream that ends before the deadline is delivered whole; new connections are refused meanwhile; exit 0', async () => {
    const server = await serverWith({ ECHO_TOKEN_DELAY_MS: '40', SHUTDOWN_TIMEOUT_MS: '10000' })
    try {
      expect(await accepts(server.url)).toBe(true)
      const stream = await openStream(server.url)
      server.child.kill('SIGTERM')
      await until(() => server.output.some((line) => line.includes('"msg":"draining"')), 'the draining log line')
      expect(await accepts(server.url)).toBe(false)
      expect(server.child.exitCode).toBeNull()

      const text = await stream.rest()
      expect(text).toEndWith('data: [DONE]\n\n')
      expect(text).not.toContain('"error"')
      expect(text).toContain(`word${WORDS - 1}`)
      expect(await server.child.exited).toBe(0)
      expect(server.output.some((line) => line.includes('"msg":"stopped"'))).toBe(true)
    } finally {
      server.child.kill('SIGKILL')
    }
  }, 60_000)

  test('a stream still open at the deadline ends with an error event and no [DONE]; exit 0 soon after the deadline', async () => {
    const deadlineMs = 1_000
    // 30 words at 500 ms each would take 15 s: far past the deadline.
    const server = await serverWith({ ECHO_TOKEN_DELAY_MS: '500', SHUTDOWN_TIMEOUT_MS: String(deadlineMs) })
    try {
      const stream = await openStream(server.url)
      const signalledAt = Date.now()
      server.child.kill('SIGTERM')
      const text = await stream.rest()
      const events = text.split('\n\n').filter(Boolean)
      const last = events.at(-1)!
      expect(last).toStartWith('data: {"error":')
      const error = JSON.parse(last.slice('data: '.length)).error as { message: string; type: string }
      expect(error.message).toContain('shutting down')
      expect(text).not.toContain('[DONE]')
      expect(await server.child.exited).toBe(0)
      const took = Date.now() - signalledAt
      expect(took).toBeGreaterThanOrEqual(deadlineMs)
      expect(took).toBeLessThan(deadlineMs + 5_000)
    } finally {
      server.child.kill('SIGKILL')
    }
  }, 60_000)

  test('SIGINT drains the same way', async () => {
    const server = await serverWith({ ECHO_TOKEN_DELAY_MS: '20' })
    try {
      const stream = await openStream(server.url)
      server.child.kill('SIGINT')
      expect(await stream.rest()).toEndWith('data: [DONE]\n\n')
      expect(await server.child.exited).toBe(0)
      expect(server.output.join('\n')).toContain('"signal":"SIGINT"')
    } finally {
      server.child.kill('SIGKILL')
    }
  }, 60_000)
})
