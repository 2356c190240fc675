import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type YAMLError } from 'yaml'
import { unstorable } from '../db/storable-text'

/**
 * A page's front matter, as Mintlify's .mdx files carry it. The four keys the site reads are checked;
 * every other key is kept as written, unchecked (Mintlify has many: `icon`, `mode`, `tag`, …).
 */
export type FrontMatter = {
  title?: string
  description?: string
  sidebarTitle?: string
  openapi?: string
  [other: string]: unknown
}

/** An `openapi:` reference to one operation: `GET /plants` or `openapi.json GET /plants`. */
export type OperationRef = { document?: string; method: string; path: string }

/** The methods an `openapi:` reference may name, as OpenAPI 3.1 lists them. */
const OPERATION_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE'] as const

/** Front matter that cannot be used; the message names the line in the whole file and, when there is one, the field. */
export class FrontMatterError extends Error {
  override name = 'FrontMatterError'
  constructor(
    /** 1-based line in the whole text, the opening `---` being line 1. */
    readonly line: number,
    readonly field: string | undefined,
    detail: string,
  ) {
    super(`front matter line ${line}: ${field === undefined ? '' : `${field}: `}${detail}`)
  }
}

const STRING_FIELDS = ['title', 'description', 'sidebarTitle', 'openapi'] as const

/**
 * Aliases are a YAML feature front matter never needs; a few are allowed, and a document that expands
 * many ("billion laughs") is refused instead of being built.
 */
const MAX_ALIAS_COUNT = 20

/** The opening line: `---` alone (trailing blanks allowed), after an optional byte-order mark. */
const OPENING = /^\uFEFF?---[ \t]*\r?\n/
/** A closing line, searched for from the start of the block on. */
const CLOSING = /^---[ \t]*(?:\r?\n|$)/gm

/**
 * Splits a page into its front matter and its body. The front matter is an optional leading block
 * between two `---` lines (LF or CRLF), in YAML; a text that does not open with `---` has none, and
 * all of it is the body.
 *
 * @example
 * parseFrontMatter('---\ntitle: Plants\n---\n# Plants\n') // { data: { title: 'Plants' }, body: '# Plants\n' }
 * @throws FrontMatterError when the block is not closed, is not valid YAML, is not a mapping, or a
 *   known key has the wrong kind of value.
 */
export function parseFrontMatter(text: string): { data: FrontMatter; body: string } {
  const opening = OPENING.exec(text)
  if (opening === null) return { data: {}, body: text }
  const start = opening[0].length
  CLOSING.lastIndex = start
  const closing = CLOSING.exec(text)
  if (closing === null)
    throw new FrontMatterError(1, undefined, 'the block opened by "---" on line 1 is never closed by a "---" line')
  const block = text.slice(start, closing.index)
  if (block.length > MAX_FRONT_MATTER_CHARACTERS) {
    throw new FrontMatterError(
      1,
      undefined,
      `the block is ${block.length} characters long; front matter holds at most ${MAX_FRONT_MATTER_CHARACTERS} (put the rest in the page's body)`,
    )
  }
  return { data: readBlock(block), body: text.slice(closing.index + closing[0].length) }
}

/**
 * Front matter is a few fields; a bound on it bounds the parse, which every read of the page repeats.
 * (The yaml package's own duplicate-key check compares each key with every earlier one: 80,000 keys
 * took 29 s a parse. Duplicates are found with one set per mapping instead; see duplicateKey.)
 */
const MAX_FRONT_MATTER_CHARACTERS = 64 * 1024

/** The first key that a mapping of `node` (at any depth) gives twice, with where it is; linear in the keys. */
function duplicateKey(node: unknown): { key: string; offset: number } | undefined {
  if (isMap(node)) {
    const seen = new Set<unknown>()
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? pair.key.value : pair.key
      if (seen.has(key)) return { key: String(key), offset: (pair.key as Node | null)?.range?.[0] ?? 0 }
      seen.add(key)
      const inner = duplicateKey(pair.value)
      if (inner !== undefined) return inner
    }
  } else if (isSeq(node)) {
    for (const item of node.items) {
      const inner = duplicateKey(item)
      if (inner !== undefined) return inner
    }
  }
  return undefined
}

/** The block's YAML, checked. Its first line is line 2 of the file. */
function readBlock(written: string): FrontMatter {
  let yaml = written
  let lines = new LineCounter()
  const lineOf = (offset: number) => lines.linePos(offset).line + 1
  // The core schema, with no tag beyond it resolved: `!!binary` or `!!set` would build values no page needs.
  const parse = (text: string) =>
    parseDocument(text, {
      lineCounter: lines,
      schema: 'core',
      resolveKnownTags: false,
      uniqueKeys: false,
      prettyErrors: false,
    })
  let document = parse(yaml)
  if (document.errors.length > 0) {
    // Mintlify reads front matter with js-yaml, which takes a quoted string continued on lines indented no deeper
    // than its key; YAML 1.2 does not. Such lines are indented and the block read again, keeping its line numbers.
    const indented = indentQuotedContinuations(yaml)
    if (indented !== yaml) {
      const previous = lines
      lines = new LineCounter()
      const retry = parse(indented)
      if (retry.errors.length === 0) {
        yaml = indented
        document = retry
      } else lines = previous
    }
  }
  // Warnings are unknown tags and the like: refused, so that what is stored is read the same way everywhere.
  const problem: YAMLError | undefined = document.errors[0] ?? document.warnings[0]
  if (problem !== undefined)
    throw new FrontMatterError(lineOf(problem.pos[0]), undefined, `invalid YAML: ${problem.message}`)
  const duplicate = duplicateKey(document.contents)
  if (duplicate !== undefined)
    throw new FrontMatterError(lineOf(duplicate.offset), undefined, 'invalid YAML: Map keys must be unique')
  const contents = document.contents
  if (contents === null || (isScalar(contents) && contents.value === null)) return {}
  if (!isMap(contents))
    throw new FrontMatterError(
      lineOf(contents.range?.[0] ?? 0),
      undefined,
      `expected a mapping of keys to values (title: …), got ${kindOf(contents)}`,
    )
  for (const pair of contents.items) {
    const key = isScalar(pair.key) ? pair.key.value : undefined
    if (typeof key !== 'string' || !(STRING_FIELDS as readonly string[]).includes(key)) continue
    const line = lineOf((pair.key as Node).range?.[0] ?? 0)
    // An alias stands for the node it names: `title: *name` is a string if that node is one.
    const value = isAlias(pair.value) ? pair.value.resolve(document) : pair.value
    if (!isScalar(value) || typeof value.value !== 'string')
      throw new FrontMatterError(line, key, `expected a string, got ${kindOf(value)}`)
    const why = unstorable(value.value)
    if (why) throw new FrontMatterError(line, key, `must not contain ${why}`)
    if (key === 'openapi' && parseOperationRef(value.value) === undefined) {
      throw new FrontMatterError(
        line,
        key,
        `expected "METHOD /path" or "<document> METHOD /path" with METHOD one of ${OPERATION_METHODS.join(', ')}, got ${JSON.stringify(value.value)}`,
      )
    }
  }
  try {
    return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as FrontMatter
  } catch (error) {
    // The yaml package's ReferenceError for alias expansion; anything else is a fault of ours.
    if (!(error instanceof ReferenceError)) throw error
    throw new FrontMatterError(2, undefined, `too many YAML aliases (at most ${MAX_ALIAS_COUNT} are expanded)`)
  }
}

const QUOTED_VALUE = /^([ \t]*)(?:-[ \t]+)?[^\s#'"-][^:\n]*:[ \t]+(["'])/

/**
 * `key: "text` continued on lines indented no deeper than the key (js-yaml reads these; YAML 1.2 does not): each such
 * continuation line indented two spaces past the key. Lines are never added or removed.
 */
function indentQuotedContinuations(yaml: string): string {
  const lines = yaml.split('\n')
  let open: { quote: string; indent: number } | undefined
  for (let index = 0; index < lines.length; index += 1) {
    let line = lines[index]!
    let from: number
    if (open === undefined) {
      const start = QUOTED_VALUE.exec(line)
      if (start === null) continue
      open = { quote: start[2]!, indent: start[1]!.length }
      from = start[0].length
    } else {
      const indent = /^[ \t]*/.exec(line)![0].length
      if (line.trim() !== '' && indent <= open.indent) {
        line = `${' '.repeat(open.indent + 2)}${line.slice(indent)}`
        lines[index] = line
      }
      from = 0
    }
    if (closes(line, from, open.quote)) open = undefined
  }
  return lines.join('\n')
}

/** Whether a quoted scalar open before `from` closes on this line (`\"` escapes in double quotes, `''` in single). */
function closes(line: string, from: number, quote: string): boolean {
  for (let at = from; at < line.length; at += 1) {
    if (quote === '"' && line[at] === '\\') at += 1
    else if (line[at] === quote) {
      if (quote === "'" && line[at + 1] === "'") at += 1
      else return true
    }
  }
  return false
}

/** What a YAML node holds, as a message says it: `a number`, `a list`, `nothing (null)`. */
function kindOf(node: unknown): string {
  if (node === null || node === undefined) return 'nothing'
  if (isMap(node)) return 'a mapping'
  if (isScalar(node)) {
    const value = node.value
    if (value === null) return 'nothing (null)'
    if (typeof value === 'string') return 'a string'
    if (typeof value === 'number' || typeof value === 'bigint') return `a number (${String(value)})`
    if (typeof value === 'boolean') return `a boolean (${value})`
    return 'a scalar'
  }
  return isSeq(node) ? 'a list' : 'something else'
}

/**
 * Reads an `openapi:` reference: `"GET /plants/{id}"`, or with the document first,
 * `"openapi.json get /plants"` (the method in any case; it comes back upper case).
 * Undefined when it is not one.
 */
export function parseOperationRef(ref: string): OperationRef | undefined {
  // Split by hand from the end, not with one regular expression: a value may be long, and a
  // pattern with an optional leading part backtracks over all of it.
  const [rest, path] = splitLast(ref.trim())
  if (rest === undefined || !path.startsWith('/')) return undefined
  const [document, method] = splitLast(rest)
  const upper = method.toUpperCase()
  if (!(OPERATION_METHODS as readonly string[]).includes(upper)) return undefined
  return { ...(document === undefined ? {} : { document }), method: upper, path }
}

/** `"a b  c"` → `["a b", "c"]`; `"c"` → `[undefined, "c"]`. */
function splitLast(text: string): [string | undefined, string] {
  const at = Math.max(text.lastIndexOf(' '), text.lastIndexOf('\t'))
  return at < 0 ? [undefined, text] : [text.slice(0, at).trimEnd(), text.slice(at + 1)]
}
