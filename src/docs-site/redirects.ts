import { pageUrl, SITE_BASE, trimSlashes } from './links'

/** Where a redirect sends a reader, and with which status: 308 when permanent (the default), else 307. */
export type RedirectTarget = { status: 307 | 308; location: string }

type Pattern = { segments: PatternSegment[]; destination: string; status: 307 | 308 }

/** One segment of a source: literal text, `:name` (one segment), `:name*` or `*` (the rest), or `pre-*`. */
type PatternSegment =
  | { kind: 'literal'; text: string }
  | { kind: 'param'; name: string }
  | { kind: 'rest'; name?: string }
  | { kind: 'partial'; prefix: string; suffix: string }

/**
 * docs.json's `redirects`, as Mintlify documents them: `source` and `destination` are paths of the site
 * (here under /docs/); `:name` matches one segment and `:name*` the rest of the path, and both are put into
 * the destination where it names them; a `*` matches the rest, or within a segment (`concepts-*`) any text.
 * Sources without parameters are found by one lookup; the others are matched segment by segment, so a
 * request costs the length of its path per parameterised redirect, never a backtracking search.
 */
export class Redirects {
  private readonly exact = new Map<string, RedirectTarget>()
  private readonly patterns: Pattern[] = []

  constructor(redirects: unknown) {
    for (const redirect of Array.isArray(redirects) ? redirects : []) {
      if (typeof redirect !== 'object' || redirect === null) continue
      const { source, destination, permanent } = redirect as Record<string, unknown>
      if (typeof source !== 'string' || typeof destination !== 'string') continue
      const status = permanent === false ? 307 : 308
      const segments = trimSlashes(source.trim()).split('/').filter(Boolean).map(segmentOf)
      if (segments.every((segment) => segment.kind === 'literal')) {
        const key = segments.map((segment) => (segment as { text: string }).text).join('/')
        const location = locationOf(destination, {})
        if (!this.exact.has(key) && location !== undefined) this.exact.set(key, { status, location })
      } else this.patterns.push({ segments, destination, status })
    }
  }

  /** Where `path` (a page path: no leading slash) is redirected, or undefined. */
  match(path: string): RedirectTarget | undefined {
    const exact = this.exact.get(path)
    if (exact !== undefined) return exact
    if (this.patterns.length === 0) return undefined
    const parts = path === '' ? [] : path.split('/')
    for (const pattern of this.patterns) {
      const values = matchSegments(pattern.segments, parts)
      const location = values === undefined ? undefined : locationOf(pattern.destination, values)
      if (location !== undefined) return { status: pattern.status, location }
    }
    return undefined
  }
}

function segmentOf(text: string): PatternSegment {
  const param = /^:([A-Za-z0-9_]+)(\*)?$/.exec(text)
  if (param !== null) return param[2] === '*' ? { kind: 'rest', name: param[1] } : { kind: 'param', name: param[1]! }
  if (text === '*') return { kind: 'rest' }
  const star = text.indexOf('*')
  if (star !== -1) return { kind: 'partial', prefix: text.slice(0, star), suffix: text.slice(star + 1) }
  return { kind: 'literal', text }
}

function matchSegments(pattern: PatternSegment[], parts: string[]): Record<string, string> | undefined {
  const values: Record<string, string> = {}
  for (let index = 0; index < pattern.length; index++) {
    const segment = pattern[index]!
    if (segment.kind === 'rest') {
      if (segment.name !== undefined) values[segment.name] = parts.slice(index).join('/')
      return values
    }
    const part = parts[index]
    if (part === undefined) return undefined
    if (segment.kind === 'literal' && part !== segment.text) return undefined
    if (segment.kind === 'param') values[segment.name] = part
    if (
      segment.kind === 'partial' &&
      !(
        part.length >= segment.prefix.length + segment.suffix.length &&
        part.startsWith(segment.prefix) &&
        part.endsWith(segment.suffix)
      )
    )
      return undefined
  }
  return parts.length === pattern.length ? values : undefined
}

/**
 * The destination with the matched values in place; a site path goes under /docs/, a URL stays as written.
 * Whether it is a URL is read from the destination as written, never after filling: a value from the request
 * (`/go/https:%2F%2Fevil.example`) cannot turn a site path into another host. Values are percent-encoded where
 * they land, so no request puts a control character (a 500 from the Headers) or a new host into the location.
 * Undefined when the filled destination is not a URL at all.
 */
function locationOf(destination: string, values: Record<string, string>): string | undefined {
  const template = destination.trim()
  if (/^https?:\/\//i.test(template)) {
    try {
      return new URL(filled(template, values, (value) => value.split('/').map(encodeURIComponent).join('/'))).href
    } catch {
      return undefined
    }
  }
  const end = template.search(/[?#]/)
  const path = trimSlashes(filled(end === -1 ? template : template.slice(0, end), values, (value) => value))
  const rest = end === -1 ? '' : new URL(filled(template.slice(end), values, encodeURIComponent), 'http://site/')
  return (path === '' ? SITE_BASE : pageUrl(path)) + (rest === '' ? '' : rest.search + rest.hash)
}

function filled(template: string, values: Record<string, string>, encode: (value: string) => string): string {
  return template.replace(/:([A-Za-z0-9_]+)\*?/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? encode(values[name]!) : whole,
  )
}
