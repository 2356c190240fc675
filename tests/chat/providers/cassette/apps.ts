import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeTestApp, type TestApp } from '../../../helpers/app'

/**
 * The two sides of a recording, each a real Trellis listening on a loopback port: one whose model `m` is served by
 * `kind: record` around a provider of the given kind and URL, and one whose model `m` is served by `kind: replay`
 * from the cassette the first wrote (no upstream at all).
 */

/** A fresh cassette path in a directory of its own. */
export const cassettePath = () => join(mkdtempSync(join(tmpdir(), 'trellis-cassette-')), 'session.jsonl')

/** The exchanges of a cassette, parsed (the header line left out). */
export const exchangesOf = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line))

export type Side = TestApp & {
  token: string
  post(path: string, body: unknown, headers?: HeadersInit): Promise<Response>
}

async function side(providers: Record<string, unknown>, provider: string): Promise<Side> {
  const app = await makeTestApp({
    transport: 'listening server',
    env: {
      CHAT_PROVIDERS: JSON.stringify(providers),
      CHAT_MODELS: JSON.stringify({ m: [{ provider, model: 'upstream-model' }] }),
    },
  })
  const token = await app.tokenFor('cassette-user', ['chat'])
  const post = (path: string, body: unknown, headers: HeadersInit = {}) =>
    fetch(`${app.origin}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })
  return Object.assign(app, { token, post })
}

/** Trellis recording `upstream` (the settings of the provider recorded) to `cassette`. */
export const recordingSide = (
  upstream: Record<string, unknown>,
  cassette: string,
  record: Record<string, unknown> = {},
): Promise<Side> =>
  side({ up: upstream, rec: { kind: 'record', provider: 'up', cassette, maxRetries: 0, ...record } }, 'rec')

/** Trellis replaying `cassette`, at once unless `replay` says otherwise. */
export const replayingSide = (cassette: string, replay: Record<string, unknown> = {}): Promise<Side> =>
  side({ rep: { kind: 'replay', cassette, timing: 'none', maxRetries: 0, ...replay } }, 'rep')
