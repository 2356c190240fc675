import { type Static, Type as t } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { Integer } from '../../../http/integer'
import { scanJson } from '../../../json/positional'

/*
 * A cassette is JSON Lines: a first line naming the wrapped provider's kind, then one line per exchange, in the
 * order they happened. JSON Lines rather than YAML because a recorder appends one exchange with one write (a crash
 * leaves whole lines behind it, never a half-written document), every string survives exactly (an event's
 * trailing `\n\n`, a `\r`, a non-ASCII byte: YAML's folding and escaping rules make that easy to get wrong), and a
 * changed exchange is a changed line in a diff. `jq . cassette.jsonl` shows it indented.
 */

/** The cassette format's version, in its first line. */
export const CASSETTE_VERSION = 1

/**
 * The first line: which provider answered (its name, which its error messages carry), its kind, and that kind's own
 * settings (`responses: native`…), for replay.
 */
export const CassetteHeader = t.Object(
  {
    trellis_cassette: t.Literal(CASSETTE_VERSION),
    provider: t.String({ minLength: 1 }),
    kind: t.String({ minLength: 1 }),
    settings: t.Record(t.String(), t.Unknown()),
  },
  { additionalProperties: false },
)
export type CassetteHeader = Static<typeof CassetteHeader>

const Ms = Integer({ minimum: 0 })
const HeaderMap = t.Record(t.String(), t.String())

/** One streamed event, whole (its text through the blank line that ends it), and when it arrived. */
const RecordedEvent = t.Object({ ms: Ms, data: t.String() }, { additionalProperties: false })

/**
 * What the upstream answered. A stream (`text/event-stream`) is kept as `events`; any other body whole, as `json`
 * when the text is exactly the compact JSON of that value (readable), else as `text`. `broken` is a body that
 * broke off: the connection failed there, after what was read.
 */
const RecordedResponse = t.Object(
  {
    status: Integer({ minimum: 100, maximum: 599 }),
    /** When the response headers arrived, in ms since the request. */
    ms: Ms,
    headers: HeaderMap,
    events: t.Optional(t.Array(RecordedEvent)),
    json: t.Optional(t.Unknown()),
    text: t.Optional(t.String()),
    /** When the whole body (`json` or `text`) had arrived. */
    bodyMs: t.Optional(Ms),
    broken: t.Optional(t.Object({ ms: Ms }, { additionalProperties: false })),
  },
  { additionalProperties: false },
)

export const Exchange = t.Object(
  {
    /**
     * When the request was made (ISO 8601). The provider's clock reads it while it serves the exchange, recording and
     * replaying: what a provider stamps from its clock (the `created` of Messages translated to Chat Completions)
     * comes out the same.
     */
    at: t.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$' }),
    request: t.Object(
      {
        method: t.String({ minLength: 1 }),
        /** The path after the provider's baseUrl: `/chat/completions`, `/messages`, `/responses`, `/embeddings`. */
        path: t.String(),
        headers: HeaderMap,
        body: t.Unknown(),
      },
      { additionalProperties: false },
    ),
    /** Absent when the upstream could not be reached (`unreachable` says when that was known). */
    response: t.Optional(RecordedResponse),
    unreachable: t.Optional(t.Object({ ms: Ms }, { additionalProperties: false })),
  },
  { additionalProperties: false },
)
export type Exchange = Static<typeof Exchange>
export type RecordedResponse = Static<typeof RecordedResponse>

/** A cassette read: its header and exchanges, each with the line it is on (for the messages naming it). */
export type Cassette = { header: CassetteHeader; exchanges: { line: number; exchange: Exchange }[] }

/**
 * Reads a cassette's text. A line that is not JSON, or not a header or exchange, throws an `Error` whose message
 * starts `name:line:column:` (as configuration files do); so does a cassette without its header. An empty file is
 * an empty cassette of no kind yet (`header` undefined).
 */
export function parseCassette(name: string, text: string): Cassette | undefined {
  const lines = text.split('\n')
  let header: CassetteHeader | undefined
  const exchanges: Cassette['exchanges'] = []
  lines.forEach((line, index) => {
    if (line.trim() === '') return
    const at = index + 1
    if (header === undefined) {
      header = checkedLine(name, at, line, CassetteHeader, 'the first line (the cassette header)')
    } else {
      const exchange = checkedLine(name, at, line, Exchange, 'an exchange')
      if (exchange.response === undefined && exchange.unreachable === undefined)
        throw new Error(`${name}:${at}:1: an exchange needs a response, or unreachable`)
      exchanges.push({ line: at, exchange })
    }
  })
  return header === undefined ? undefined : { header, exchanges }
}

function checkedLine<S extends typeof CassetteHeader | typeof Exchange>(
  name: string,
  at: number,
  line: string,
  schema: S,
  what: string,
): Static<S> {
  const scan = scanJson(line)
  if (!scan.ok) throw new Error(`${name}:${at}:${scan.error.offset + 1}: not JSON: ${scan.error.message}`)
  const value: unknown = JSON.parse(line)
  const problem = Value.Errors(schema, value).First()
  if (!problem) return value as Static<S>
  // The deepest node that exists: a missing property is reported where its object starts.
  let pointer = problem.path
  while (pointer !== '' && !scan.positions.has(pointer)) pointer = pointer.slice(0, pointer.lastIndexOf('/'))
  const column = scan.positions.get(pointer)?.column ?? 1
  const field = problem.path === '' ? '' : ` ${problem.path.slice(1).replaceAll('/', '.')}:`
  throw new Error(`${name}:${at}:${column}: not ${what}:${field} ${problem.message}`)
}

/** One line of a cassette, ending in its newline. */
export const cassetteLine = (value: CassetteHeader | Exchange): string => `${JSON.stringify(value)}\n`
