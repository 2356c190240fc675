import { expect, setDefaultTimeout, test } from 'bun:test'
import OpenAI from 'openai'
import { drizzle } from 'drizzle-orm/pglite'
import { migrate } from '../../src/db/migrate'
import { startTrellis, type Trellis } from '../../src/testing'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/*
 * Many test servers in one file, at once: each its own port, database, configuration, tokens, records and ledger.
 * And each starts fast enough to start one per test (the target is 300 ms; BENCHMARKS.md has the figures).
 */

const ask = async (trellis: Trellis, apiKey: string, content: string, model = 'echo') => {
  const client = new OpenAI({ baseURL: trellis.openaiBaseURL, apiKey, maxRetries: 0 })
  return client.chat.completions.create({ model, messages: [{ role: 'user', content }] })
}

test('four servers at once share nothing: ports, tokens, models, records and usage are their own', async () => {
  const servers = await Promise.all(
    ['a', 'b', 'c', 'd'].map((name) => startTrellis({ models: [`model-${name}`], env: { ECHO_TOKEN_DELAY_MS: '0' } })),
  )
  try {
    expect(new Set(servers.map((server) => server.url)).size).toBe(4)
    const tokens = await Promise.all(servers.map((server) => server.token()))
    await Promise.all(servers.map((server, i) => ask(server, tokens[i]!, `to ${i}`, `model-${'abcd'[i]}`)))
    // A token of one server is unknown to another, and so is its model.
    const foreign = await ask(servers[1]!, tokens[0]!, 'x').catch((error: { status: number }) => error.status)
    expect(foreign).toBe(401)
    const otherModel = await ask(servers[1]!, tokens[1]!, 'x', 'model-a').catch(
      (error: { status: number }) => error.status,
    )
    expect(otherModel).toBe(404)
    for (const [i, server] of servers.entries()) {
      const usage = await server.usage()
      expect(usage.map((row) => row.model)).toEqual([`model-${'abcd'[i]}`])
      expect(server.requests()[0]!.body).toMatchObject({ messages: [{ content: `to ${i}` }] })
    }
    // Closing one leaves the others serving.
    await servers[0]!.close()
    expect(fetch(`${servers[0]!.url}/health`)).rejects.toThrow()
    expect((await ask(servers[2]!, tokens[2]!, 'still here')).choices[0]!.message.content).toBe('still here')
  } finally {
    await Promise.all(servers.map((server) => server.close()))
  }
})

test('close() is idempotent and ends a stream still open', async () => {
  const trellis = await startTrellis({ env: { ECHO_TOKEN_DELAY_MS: '50' } })
  const client = new OpenAI({ baseURL: trellis.openaiBaseURL, apiKey: await trellis.token(), maxRetries: 0 })
  const stream = await client.chat.completions.create({
    model: 'echo',
    messages: [{ role: 'user', content: 'a long answer '.repeat(50) }],
    stream: true,
  })
  const read = (async () => {
    for await (const _ of stream);
  })()
  await Promise.all([trellis.close(), trellis.close()])
  await read.catch(() => {})
  expect(fetch(`${trellis.url}/health`)).rejects.toThrow()
})

test('a start reuses the migrated seed: start to first answer costs less than a bare PGlite initdb and migration', async () => {
  // Warm: the process's first start compiles PGlite and reads (or makes) the migrated seed.
  await (await startTrellis()).close()
  const times: number[] = []
  for (let i = 0; i < 5; i++) {
    const started = performance.now()
    await using trellis = await startTrellis()
    await ask(trellis, await trellis.token(), 'ready?')
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  // The reference, measured in this run so that a loaded machine slows both: what each start would cost without
  // the seed (initdb in WebAssembly, then every migration). Absolute figures are in BENCHMARKS.md.
  const started = performance.now()
  const { PGlite } = await import('@electric-sql/pglite')
  const client = await PGlite.create()
  await migrate(drizzle({ client }) as unknown as Parameters<typeof migrate>[0])
  const bare = performance.now() - started
  await client.close()
  expect({ median: times[2]!, bare }).toEqual({ median: expect.any(Number), bare: expect.any(Number) })
  expect(times[2]!).toBeLessThan(bare)
})
