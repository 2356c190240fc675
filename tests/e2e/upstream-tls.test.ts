/**
 * TLS to upstreams, on the path that ships: a real Trellis process relays through its `openai`
 * provider, which uses the runtime's `fetch`, to https upstreams holding each kind of certificate
 * that must be refused, and one that must be trusted. The private CA is trusted the usual way,
 * `NODE_EXTRA_CA_CERTS`, and a second Trellis without it shows that the CA is what makes the
 * difference. Certificates: tests/chat/fixtures/tls (made by scripts/tls-fixtures.sh).
 *
 * A refused upstream is a 502 whose message names neither host nor certificate; the reason is in
 * the server's log, under the request id the client was given.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { runCli, startServer, storageEnv, type RunningServer } from '../helpers/process'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
// 90 s here: these tests start processes or a browser, and beside a parallel run (`bun test --parallel=2`, .ci/run)
// the slowest took 26 s.
setDefaultTimeout(90_000)

const TLS = join(import.meta.dir, '../chat/fixtures/tls')
const pem = (name: string) => Bun.file(join(TLS, name)).text()

/** Each upstream: the certificate chain it presents, and what Trellis must make of it. */
const UPSTREAMS = [
  { name: 'good', chain: ['good'], trusted: true, why: 'issued by the private CA for 127.0.0.1' },
  {
    name: 'intermediate',
    chain: ['intermediate-leaf', 'intermediate'],
    trusted: true,
    why: 'through an intermediate CA (the control for not-a-ca)',
  },
  { name: 'self-signed', chain: ['self-signed'], trusted: false, why: 'DEPTH_ZERO_SELF_SIGNED_CERT' },
  { name: 'other-host', chain: ['other-host'], trusted: false, why: 'ERR_TLS_CERT_ALTNAME_INVALID' },
  { name: 'expired', chain: ['expired'], trusted: false, why: 'CERT_HAS_EXPIRED' },
  { name: 'not-a-ca', chain: ['not-a-ca-leaf', 'not-a-ca'], trusted: false, why: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' },
  { name: 'client-only', chain: ['client-only'], trusted: false, why: 'INVALID_PURPOSE' },
] as const

const completion = {
  id: 'chatcmpl-tls',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'over TLS' }, finish_reason: 'stop' }],
}

const upstreams: ReturnType<typeof Bun.serve>[] = []
const cleanups: (() => Promise<unknown>)[] = []
type Trellis = RunningServer & { token: string }
let withCa: Trellis
let withoutCa: Trellis

async function trellis(env: Record<string, string>): Promise<Trellis> {
  const storage = await storageEnv()
  cleanups.push(storage.cleanup)
  const providers = Object.fromEntries(
    UPSTREAMS.map(({ name }, i) => [name, { baseUrl: `https://127.0.0.1:${upstreams[i]!.port}/v1`, maxRetries: 0 }]),
  )
  const models = Object.fromEntries(UPSTREAMS.map(({ name }) => [name, [{ provider: name, model: 'm' }]]))
  const all = { ...storage.env, ...env, CHAT_PROVIDERS: JSON.stringify(providers), CHAT_MODELS: JSON.stringify(models) }
  const created = await runCli(['token', 'create', '--owner', 'tls', '--scope', 'chat'], all)
  expect(created.code).toBe(0)
  const server = await startServer(all)
  cleanups.push(() => server.stop())
  return { ...server, token: created.stdout.trim().split('\n').at(-1)! }
}

beforeAll(async () => {
  for (const { chain } of UPSTREAMS) {
    const cert = (await Promise.all(chain.map((name) => pem(`${name}.crt`)))).join('\n')
    upstreams.push(
      Bun.serve({
        port: 0,
        hostname: '127.0.0.1',
        tls: { cert, key: await pem(`${chain[0]}.key`) },
        fetch: () => Response.json(completion),
      }),
    )
  }
  withCa = await trellis({ NODE_EXTRA_CA_CERTS: join(TLS, 'ca.crt') })
  withoutCa = await trellis({})
}, 120_000)

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  for (const upstream of upstreams) await upstream.stop(true)
}, 60_000)

function ask(server: Trellis, model: string) {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  })
}

/** The log line about a request, once the server has written it. */
async function logLine(server: RunningServer, requestId: string) {
  for (let i = 0; i < 50; i++) {
    const line = server.output.find((each) => each.includes(requestId) && each.includes('"level":"error"'))
    if (line) return JSON.parse(line) as { detail?: string; error: string }
    await Bun.sleep(20)
  }
  throw new Error(`no error line for ${requestId}`)
}

describe('with the private CA trusted through NODE_EXTRA_CA_CERTS', () => {
  for (const upstream of UPSTREAMS) {
    test(`${upstream.name}: ${upstream.trusted ? 'relayed' : 'refused'} (${upstream.why})`, async () => {
      const response = await ask(withCa, upstream.name)
      if (upstream.trusted) {
        expect(response.status).toBe(200)
        expect((await response.json()).choices[0].message.content).toBe('over TLS')
        return
      }
      expect(response.status).toBe(502)
      const requestId = response.headers.get('x-request-id')!
      const { error } = await response.json()
      expect(error.code).toBe('upstream_unreachable')
      expect(error.message).toBe(`Could not reach the upstream provider '${upstream.name}'. (request id ${requestId})`)
      const logged = await logLine(withCa, requestId)
      expect(logged.detail).toContain(upstream.why)
    })
  }
})

test('without NODE_EXTRA_CA_CERTS the same good certificate is refused: the CA is what made it trusted', async () => {
  const response = await ask(withoutCa, 'good')
  expect(response.status).toBe(502)
  const logged = await logLine(withoutCa, response.headers.get('x-request-id')!)
  expect(logged.detail).toContain('UNABLE_TO_VERIFY_LEAF_SIGNATURE')
})
