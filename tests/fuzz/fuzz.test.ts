/**
 * A bounded fuzz of every route (hardening issue §8): a few thousand generated requests
 * (tests/fuzz/requests.ts), each of which must be answered, by something other than a 500, within
 * 5 s, with no stack trace in its body. The seed is fixed, so a failure replays; CI also runs it
 * once with a random seed (FUZZ_SEED=random), printing the seed.
 *
 *   FUZZ_SEED=1234 FUZZ_COUNT=20000 bun test tests/fuzz
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'
import { generate, type FuzzRequest } from './requests'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const seed =
  process.env.FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED ?? 20_261_125)
const count = Number(process.env.FUZZ_COUNT ?? 3_000)
const PER_REQUEST_MS = 5_000
const STACK_TRACE = /\n\s+at \S|\bat [\w.<>]+ \(.*:\d+:\d+\)|node_modules|\/src\/[\w/.-]+\.ts|\.ts:\d+:\d+/

let t: TestApp
let server: ReturnType<typeof Bun.serve>
let requests: FuzzRequest[]
beforeAll(async () => {
  console.log(`fuzz: seed ${seed}, ${count} requests (FUZZ_SEED=${seed} replays them)`)
  t = await makeTestApp({ env: { CHAT_MAX_RESPONSE_BYTES: '262144', BODY_LIMIT: '65536' } })
  const tokens = {
    admin: await t.tokenFor('fuzz-admin', ['admin']),
    plants: await t.tokenFor('fuzz-plants', ['plants:read', 'plants:write']),
    chat: await t.tokenFor('fuzz-chat', ['chat']),
    docs: await t.tokenFor('fuzz-docs', ['docs:write']),
  }
  requests = generate(seed, count, tokens)
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: t.app.fetch })
}, SETUP_TIMEOUT)
afterAll(async () => {
  await server.stop(true)
  await t.close()
}, SETUP_TIMEOUT)

/** Over a real socket; undefined when `fetch` itself refuses to send the request (an illegal header). */
async function overTheWire(request: FuzzRequest): Promise<{ status: number; body: string } | 'timeout' | undefined> {
  let sent: Promise<Response>
  try {
    sent = fetch(`${server.url.origin}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body as BodyInit | undefined,
      signal: AbortSignal.timeout(PER_REQUEST_MS),
    })
  } catch {
    return undefined
  }
  try {
    const response = await sent
    return { status: response.status, body: await response.text() }
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return 'timeout'
    if (error instanceof TypeError) return undefined
    throw error
  }
}

/** The whole answer, body included (a stream is read to its end), or 'timeout'. */
async function answer(request: FuzzRequest): Promise<{ status: number; body: string } | 'timeout'> {
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), PER_REQUEST_MS).unref?.())
  const work = (async () => {
    const response = await t.app.handle(
      new Request(`http://localhost${request.path}`, {
        method: request.method,
        headers: request.headers,
        body: request.body as BodyInit | undefined,
      }),
    )
    return { status: response.status, body: await response.text() }
  })()
  return Promise.race([work, timeout])
}

test(
  'nothing answers 500, nothing takes over 5 s, and no body carries a stack trace',
  async () => {
    const failures: string[] = []
    const statuses = new Map<number, number>()
    for (const request of requests) {
      let outcome: Awaited<ReturnType<typeof answer>>
      try {
        outcome = await answer(request)
      } catch (error) {
        failures.push(`${request.label}: threw ${(error as Error).message}`)
        continue
      }
      if (outcome === 'timeout') {
        failures.push(`${request.label}: no answer within ${PER_REQUEST_MS} ms`)
        continue
      }
      statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1)
      if (outcome.status >= 500 && outcome.status !== 503)
        failures.push(`${request.label}: ${outcome.status} ${outcome.body.slice(0, 200)}`)
      if (STACK_TRACE.test(outcome.body))
        failures.push(`${request.label}: a stack trace in the body: ${outcome.body.slice(0, 300)}`)
    }
    console.log(`fuzz: statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`)
    expect(failures.slice(0, 20)).toEqual([])
    // The generator reaches past the front door: not everything is refused.
    expect([...statuses.keys()].some((status) => status < 300)).toBe(true)
    expect(t.logs.filter((line) => line.msg === 'unhandled error')).toEqual([])
  },
  10 * 60_000,
)

test(
  'the same over a real socket, for the first 500',
  async () => {
    const failures: string[] = []
    for (const request of requests.slice(0, 500)) {
      const outcome = await overTheWire(request)
      if (outcome === undefined) continue
      if (outcome === 'timeout') failures.push(`${request.label}: no answer within ${PER_REQUEST_MS} ms`)
      else if (outcome.status >= 500 && outcome.status !== 503)
        failures.push(`${request.label}: ${outcome.status} ${outcome.body.slice(0, 200)}`)
      else if (STACK_TRACE.test(outcome.body)) failures.push(`${request.label}: a stack trace in the body`)
    }
    expect(failures.slice(0, 20)).toEqual([])
  },
  5 * 60_000,
)
