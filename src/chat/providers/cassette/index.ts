import { existsSync, readFileSync, statSync } from 'node:fs'
import { Type as t } from '@sinclair/typebox'
import { PROVIDER_DEFAULTS } from '../../../config/chat'
import { Integer } from '../../../http/integer'
import { ANTHROPIC_KIND } from '../anthropic'
import type { ProviderKind, ProviderOptions } from '../kind'
import { OPENAI_KIND } from '../openai'
import { type Cassette, CASSETTE_VERSION, parseCassette } from './format'
import { DEFAULT_IGNORED } from './match'
import { replayFetch, type Timing } from './player'
import { ExchangeClock, recordingFetch } from './recorder'
import { CassetteWriter, DEFAULT_MAX_CASSETTE_BYTES, Redaction } from './writer'

/*
 * Record and replay work where a provider meets the network (its `fetch`): what is recorded is what the upstream
 * answered, and a replay hands the same bytes to the same provider code, so every wire that provider speaks (Chat
 * Completions, embeddings, native Messages and Responses, count_tokens) is recorded and replayed alike, and what the
 * client receives is byte for byte what it received while recording. Hence the kinds that can be wrapped are those
 * that reach an upstream over HTTP.
 */
const WRAPPABLE: Readonly<Record<string, ProviderKind>> = { openai: OPENAI_KIND, anthropic: ANTHROPIC_KIND }
const DEFAULT_WRAPPED = 'openai'

/** Where a replayed provider's paths start; never reached, the player answers every request. */
const REPLAY_BASE_URL = 'http://cassette.invalid'

const cassette = t.Optional(
  t.String({ minLength: 1, description: 'The cassette file (JSON Lines), relative to the working directory.' }),
)
const maxCassetteBytes = t.Optional(
  Integer({
    minimum: 4096,
    default: DEFAULT_MAX_CASSETTE_BYTES,
    description: 'The most bytes the cassette file may grow to (record) or hold (replay); 64 MiB.',
  }),
)

type RecordSettings = { provider?: string; cassette?: string; redact?: string[]; maxCassetteBytes: number }
type ReplaySettings = { cassette?: string; ignore?: string[]; timing?: Timing; maxCassetteBytes: number }

/**
 * `"kind": "record"`: another configured provider (`provider`, of kind openai or anthropic) with every exchange it
 * has with its upstream appended to `cassette` (see ./format.ts); requests are served by that provider as usual.
 * Its own settings: `provider`, `cassette`, `redact` (more header names whose values are kept out, besides
 * authorization, x-api-key, api-key, cookie and set-cookie; the wrapped provider's API key is redacted wherever
 * it appears) and `maxCassetteBytes`. It takes no `baseUrl` or key of its own: those are the wrapped provider's.
 */
export const RECORD_KIND: ProviderKind = {
  withoutBaseUrl: true,
  settings: {
    provider: t.Optional(
      t.String({ minLength: 1, description: 'The configured provider (kind openai or anthropic) to record.' }),
    ),
    cassette,
    redact: t.Optional(
      t.Array(t.String({ minLength: 1 }), {
        description: 'More header names whose values a cassette never holds (credentials are always redacted).',
      }),
    ),
    maxCassetteBytes,
  },
  defaults: { maxCassetteBytes: DEFAULT_MAX_CASSETTE_BYTES },
  check(settings, at, providers) {
    const { provider, cassette, maxCassetteBytes } = settings as RecordSettings
    if (provider === undefined) throw new Error(`${at}: provider is required: the configured provider to record`)
    const wrapped = providers[provider]
    if (!wrapped) throw new Error(`${at}: provider '${provider}' is not configured`)
    const kind = (wrapped.kind as string | undefined) ?? DEFAULT_WRAPPED
    if (!Object.hasOwn(WRAPPABLE, kind))
      throw new Error(
        `${at}: provider '${provider}' is of kind ${kind}; ` +
          `only ${Object.keys(WRAPPABLE).join(' and ')} can be recorded`,
      )
    if (cassette === undefined) throw new Error(`${at}: cassette is required: the file to record to`)
    // A cassette already there is appended to: it must be one, of this provider.
    if (!existsSync(cassette)) return
    const read = readIfAny(cassette, maxCassetteBytes ?? DEFAULT_MAX_CASSETTE_BYTES, at)
    if (read && (read.header.provider !== provider || read.header.kind !== kind))
      throw new Error(
        `${at}: cassette ${cassette}:1:1: recorded from provider '${read.header.provider}' ` +
          `(kind ${read.header.kind}), not '${provider}' (kind ${kind}); record to another file`,
      )
  },
  create(options) {
    const settings = options as ProviderOptions & RecordSettings
    const wrapped = options.providers![settings.provider!]!
    const kindName = wrapped.kind ?? DEFAULT_WRAPPED
    const kind = WRAPPABLE[kindName]!
    const own = Object.fromEntries(
      Object.keys(kind.settings).flatMap((key) =>
        key in wrapped ? [[key, (wrapped as Record<string, unknown>)[key]]] : [],
      ),
    )
    const writer = new CassetteWriter(settings.cassette!, settings.maxCassetteBytes, {
      trellis_cassette: CASSETTE_VERSION,
      provider: settings.provider!,
      kind: kindName,
      settings: own,
    })
    const redaction = new Redaction(settings.redact ?? [], [wrapped.apiKey])
    const clock = new ExchangeClock()
    const fetch = recordingFetch(options.fetch ?? globalThis.fetch, {
      baseUrl: wrapped.baseUrl,
      writer,
      redaction,
      clock,
      now: options.clock ?? (() => new Date()),
    })
    // Named as the provider it records, as its replay will be: the same errors, the same ledger entries.
    const { maxResponseBytes, maxEventBytes } = options
    const name = settings.provider!
    return kind.create({ ...wrapped, name, fetch, clock: clock.read, maxResponseBytes, maxEventBytes })
  },
}

/**
 * `"kind": "replay"`: serves a cassette made by `kind: record`, with no upstream: the provider of the kind recorded
 * answers as it did then, from the recorded bytes (see ./player.ts). Its own settings: `cassette`, `ignore` (the
 * request fields left out of matching, dotted paths; default `user` and `metadata`), `timing` (`original`, the
 * default: each part at its recorded time; `none`: at once; `{scale: 0.1}`: every wait times 0.1) and
 * `maxCassetteBytes`. The common timeouts apply to the replayed waits as they applied to the real ones.
 */
export const REPLAY_KIND: ProviderKind = {
  withoutBaseUrl: true,
  settings: {
    cassette,
    ignore: t.Optional(
      t.Array(t.String({ minLength: 1 }), {
        description: 'Request fields matching ignores, as dotted paths (default: user, metadata).',
      }),
    ),
    timing: t.Optional(
      t.Union(
        [
          t.Union([t.Literal('original'), t.Literal('none')]),
          t.Object({ scale: t.Number({ minimum: 0 }) }, { additionalProperties: false }),
        ],
        { description: 'original (default): as recorded; none: at once; {scale: 0.1}: every wait times 0.1.' },
      ),
    ),
    maxCassetteBytes,
  },
  defaults: { maxCassetteBytes: DEFAULT_MAX_CASSETTE_BYTES },
  check(settings, at) {
    const { cassette, maxCassetteBytes } = settings as ReplaySettings
    if (cassette === undefined) throw new Error(`${at}: cassette is required: the file to replay`)
    readCassette(cassette, maxCassetteBytes ?? DEFAULT_MAX_CASSETTE_BYTES, at)
  },
  create(options) {
    const settings = options as ProviderOptions & ReplaySettings
    const file = settings.cassette!
    const read = readCassette(file, settings.maxCassetteBytes, `provider '${options.name}'`)
    const kind = WRAPPABLE[read.header.kind]!
    const clock = new ExchangeClock()
    const fetch = replayFetch(read, {
      clock,
      file,
      baseUrl: REPLAY_BASE_URL,
      ignored: settings.ignore ?? DEFAULT_IGNORED,
      timing: settings.timing ?? 'original',
    })
    const { maxResponseBytes, maxEventBytes } = options
    const timeouts = {
      connectTimeoutMs: options.connectTimeoutMs,
      firstTokenTimeoutMs: options.firstTokenTimeoutMs,
      idleTimeoutMs: options.idleTimeoutMs,
      requestTimeoutMs: options.requestTimeoutMs,
      retryMaxMs: options.retryMaxMs,
    }
    return kind.create({
      ...PROVIDER_DEFAULTS,
      ...kind.defaults,
      ...read.header.settings,
      ...timeouts,
      name: read.header.provider,
      baseUrl: REPLAY_BASE_URL,
      fetch,
      clock: clock.read,
      maxResponseBytes,
      maxEventBytes,
    })
  },
}

/** The cassette at `file`, checked whole; a problem throws an `Error` naming `at` and, in the file, line:column. */
function readCassette(file: string, maxBytes: number, at: string): Cassette {
  const read = readIfAny(file, maxBytes, at)
  if (!read) throw new Error(`${at}: cassette ${file} is empty: record it first (kind: record)`)
  if (!Object.hasOwn(WRAPPABLE, read.header.kind))
    throw new Error(`${at}: cassette ${file}:1:1: kind ${read.header.kind} cannot be replayed`)
  return read
}

/** {@link readCassette}, but an empty file is undefined. */
function readIfAny(file: string, maxBytes: number, at: string): Cassette | undefined {
  let text: string
  try {
    const size = statSync(file).size
    if (size > maxBytes) throw new Error(`is ${size} bytes, more than maxCassetteBytes (${maxBytes})`)
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new Error(`${at}: cassette ${file} cannot be read: ${(error as Error).message}`)
  }
  try {
    return parseCassette(file, text)
  } catch (error) {
    throw new Error(`${at}: cassette ${(error as Error).message}`)
  }
}
