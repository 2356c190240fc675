import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { type RunningServer, runCli, startServer, storageEnv } from '../helpers/process'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

/**
 * SIGTERM on a real `bun src/runtimes/bun.ts` with a chat stream in flight. The echo provider
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
    body: JSON.stringify({
      model: 'echo',
      stream: true,
      messages: [{ role: 'user', content: Array.from({ length: WORDS }, (_, i) => `word${i}`).join(' ') }],
    }),
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
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        text += decoder.decode(chunk.value, { stream: true })
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

describe('SIGTERM under keep-alive write load', () => {
  test('requests in flight finish, their responses say Connection: close, nothing is a 5xx, and every acknowledged write is kept', async () => {
    const server = await serverWith({ SHUTDOWN_TIMEOUT_MS: '5000' })
    const created = await runCli(['token', 'create', '--owner', 'drain', '--scope', 'plants:read,plants:write'], {
      ...storage.env,
      MIGRATE_ON_START: 'false',
    })
    // The CLI cannot open the embedded database beside the server; on PGlite the chat token's owner writes instead.
    const writer = created.code === 0 ? created.stdout.match(/trl_[A-Za-z0-9_-]{43}/)![0] : undefined
    const { hostname, port } = new URL(server.url)
    const seen = { before: 0, after: 0, closing: 0, statuses: new Map<number, number>(), acknowledged: [] as string[] }
    let signalled = false
    const body = (name: string) => JSON.stringify({ name })
    /** One raw keep-alive connection sending one request after another until the server closes it. */
    const connection = (id: number) =>
      new Promise<void>((resolve) => {
        let buffered = ''
        let n = 0
        let pending = ''
        const next = (socket: { write(text: string): unknown }) => {
          pending = `c${id}-${n++}`
          const text = writer ? body(pending) : ''
          const auth = `authorization: Bearer ${writer ?? token}\r\n`
          socket.write(
            writer
              ? `POST /plants HTTP/1.1\r\nhost: t\r\n${auth}content-type: application/json\r\ncontent-length: ${text.length}\r\n\r\n${text}`
              : `GET /v1/models HTTP/1.1\r\nhost: t\r\n${auth}\r\n`,
          )
        }
        void Bun.connect({
          hostname,
          port: Number(port),
          socket: {
            open: next,
            data(socket, data) {
              buffered += data.toString()
              for (let end = buffered.indexOf('\r\n\r\n'); end !== -1; end = buffered.indexOf('\r\n\r\n')) {
                const head = buffered.slice(0, end)
                const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0)
                if (buffered.length < end + 4 + length) return
                buffered = buffered.slice(end + 4 + length)
                const status = Number(head.split(' ')[1])
                seen.statuses.set(status, (seen.statuses.get(status) ?? 0) + 1)
                if (status === 200 && writer) seen.acknowledged.push(pending)
                if (signalled) seen.after++
                else seen.before++
                if (/\r\nconnection: close/i.test(head)) {
                  seen.closing++
                  socket.end()
                  return
                }
                next(socket)
              }
            },
            close: () => resolve(),
            error: () => resolve(),
          },
        }).catch(() => resolve())
      })
    const load = Promise.all(Array.from({ length: 8 }, (_, i) => connection(i)))
    await until(() => seen.before > 200, 'some load')
    // One request sure to be in flight at the signal: its body is half sent.
    let answer = ''
    const slow = await Bun.connect({
      hostname,
      port: Number(port),
      socket: { data: (_socket, data) => void (answer += data.toString()) },
    })
    const docs = '{"name":"Docs","navigation":[{"group":"G","pages":["a"]}]}'
    slow.write(
      `POST /docs.json/validate HTTP/1.1\r\nhost: t\r\nauthorization: Bearer ${token}\r\ncontent-length: ${docs.length}\r\n\r\n${docs.slice(0, 10)}`,
    )
    await Bun.sleep(50)
    signalled = true
    server.child.kill('SIGTERM')
    await until(() => server.output.some((line) => line.includes('"msg":"draining"')), 'the draining log line')
    slow.write(docs.slice(10))
    await until(() => answer.includes('"valid":true'), 'the slow answer')
    expect(answer).toStartWith('HTTP/1.1 200')
    expect(answer.toLowerCase()).toContain('\r\nconnection: close\r\n')
    slow.end()
    await load
    expect(await server.child.exited).toBe(0)
    // Keep-alive connections are not served on and on after the signal: only what was in flight.
    expect(seen.after).toBeLessThanOrEqual(16)
    expect([...seen.statuses.keys()].filter((status) => status >= 500 && status !== 503)).toEqual([])
    expect(server.output.filter((line) => line.includes('"level":"error"'))).toEqual([])
    expect(server.output.some((line) => line.includes('closing the database with requests still being handled'))).toBe(
      false,
    )
    if (writer) {
      const restarted = await serverWith({})
      try {
        const names = new Set<string>()
        for (let after: string | undefined, page = 0; page < 100; page++) {
          const response = await fetch(`${restarted.url}/plants?limit=1000${after ? `&after=${after}` : ''}`, {
            headers: { authorization: `Bearer ${writer}` },
          })
          for (const plant of (await response.json()) as { name: string }[]) names.add(plant.name)
          after = /after=(\d+)/.exec(response.headers.get('link') ?? '')?.[1]
          if (!after) break
        }
        expect(seen.acknowledged.filter((name) => !names.has(name))).toEqual([])
      } finally {
        await restarted.stop()
      }
    }
  }, 60_000)
})
