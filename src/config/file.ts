import { existsSync, readFileSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'
import { type Document, isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml'
import { ConfigError, type Env } from './env'
import { type ConfigFinding, settingPath } from './finding'

/** Where the configuration file was found, and how it was named. */
export type ConfigSource = {
  /** Absolute. */
  path: string
  /** As the operator gave it, for messages. */
  name: string
  via: '--config' | 'TRELLIS_CONFIG' | 'the working directory' | 'a provider setting'
}

/** The file looked for in the working directory when neither `--config` nor `TRELLIS_CONFIG` names one. */
const DEFAULT_CONFIG_FILE = 'trellis.yaml'

/**
 * The configuration file, if any: `--config FILE` (`file`), else `TRELLIS_CONFIG`, else `./trellis.yaml` when it
 * exists. A file that is named must exist; the one in the working directory is optional.
 */
export function findConfigFile(
  env: Env,
  options: { file?: string; cwd?: string; search?: boolean } = {},
): ConfigSource | undefined {
  const cwd = options.cwd ?? process.cwd()
  const named = options.file ?? (env.TRELLIS_CONFIG?.trim() || undefined)
  if (named !== undefined) {
    const via = options.file !== undefined ? '--config' : 'TRELLIS_CONFIG'
    const path = isAbsolute(named) ? named : resolve(cwd, named)
    if (!existsSync(path)) throw new ConfigError(`${via} names ${named}, which does not exist`)
    return { path, name: named, via }
  }
  if (options.search === false) return undefined
  const path = join(cwd, DEFAULT_CONFIG_FILE)
  return existsSync(path) ? { path, name: DEFAULT_CONFIG_FILE, via: 'the working directory' } : undefined
}

type Segment = string | number

/** A configuration file read, parsed and interpolated; the findings collect where each problem is. */
export type ConfigFile = {
  source: ConfigSource
  /** The settings, `${VAR}` filled in and empty ones (`key:` with nothing after it) dropped. */
  value: Record<string, unknown>
  findings: ConfigFinding[]
  /** False when the text is not YAML (or not a mapping): there are no settings to check. */
  parsed: boolean
  /** Records a problem of the setting at `path`: at its key (`part: 'key'`) or its value. */
  report(path: readonly Segment[], message: string, options?: { part?: 'key' | 'value'; suggestion?: string }): void
  /** The text a string setting had in the file before interpolation (messages show that, never the secret). */
  written(path: readonly Segment[]): string | undefined
  /** Whether the setting holds a `${…}` that could not be filled in (already reported). */
  unresolved(path: readonly Segment[]): boolean
}

/**
 * Reads `source`: YAML 1.2 (comments, anchors and `<<` merges allowed; a key twice is an error), then `${VAR}` in
 * string values replaced by the variable from `env`. Syntax errors and unset variables are findings; an unreadable
 * file throws.
 */
export function readConfigFile(source: ConfigSource, env: Env): ConfigFile {
  let text: string
  try {
    text = readFileSync(source.path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new ConfigError(`cannot read the configuration file ${source.name}: ${code ?? (error as Error).message}`)
  }
  const lines = new LineCounter()
  const document = parseDocument(text, { lineCounter: lines, merge: true, uniqueKeys: true, prettyErrors: false })
  const findings: ConfigFinding[] = []
  const at = (offset: number, path: string, message: string, suggestion?: string) => {
    const { line, col } = lines.linePos(offset)
    findings.push({ file: source.name, line, column: col, path, message, ...(suggestion ? { suggestion } : {}) })
  }
  const originals = new Map<string, string>()
  const unresolved = new Set<string>()
  const file: ConfigFile = {
    source,
    value: {},
    findings,
    parsed: false,
    report: (path, message, options = {}) =>
      at(offsetOf(document, path, options.part ?? 'value'), settingPath(path), message, options.suggestion),
    written: (path) => originals.get(JSON.stringify(path)),
    unresolved: (path) => unresolved.has(JSON.stringify(path)),
  }
  for (const problem of [...document.errors, ...document.warnings])
    at(
      problem.pos[0],
      '',
      `invalid YAML: ${problem.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
    )
  if (findings.length > 0) return file
  let value: unknown
  try {
    value = document.toJS({ maxAliasCount: 100 })
  } catch (error) {
    at(0, '', `invalid YAML: ${(error as Error).message.split('\n')[0]}`)
    return file
  }
  if (value === null || value === undefined) {
    file.parsed = true
    return file
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    file.report([], `the file must be a mapping of settings (providers:, models:, …), not ${describeValue(value)}`)
    return file
  }
  file.value = filled(value, [], env, file, originals, unresolved) as Record<string, unknown>
  file.parsed = true
  return file
}

/** `value` with `${VAR}` replaced in every string and null map values dropped. */
function filled(
  value: unknown,
  path: Segment[],
  env: Env,
  file: ConfigFile,
  originals: Map<string, string>,
  unresolved: Set<string>,
): unknown {
  if (typeof value === 'string') {
    if (!value.includes('$')) return value
    const result = interpolate(value, env)
    if ('problem' in result) {
      file.report(path, `${settingPath(path) || 'value'}: ${result.problem}`)
      unresolved.add(JSON.stringify(path))
      return value
    }
    if (result.text !== value) originals.set(JSON.stringify(path), value)
    return result.text
  }
  if (Array.isArray(value))
    return value.map((item, index) => filled(item, [...path, index], env, file, originals, unresolved))
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      // `key:` with nothing after it (its entries commented out, say) counts as unset, as an empty variable does.
      if (item === null) continue
      Object.defineProperty(out, key, {
        value: filled(item, [...path, key], env, file, originals, unresolved),
        enumerable: true,
        writable: true,
        configurable: true,
      })
    }
    return out
  }
  return value
}

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * `${NAME}` → the variable's value (unset or empty is a problem naming it); `$${` → a literal `${`. Values are
 * inserted as they are: a `${` inside one is not read again.
 */
function interpolate(text: string, env: Env): { text: string } | { problem: string } {
  let out = ''
  let index = 0
  while (index < text.length) {
    const dollar = text.indexOf('$', index)
    if (dollar === -1) break
    out += text.slice(index, dollar)
    if (text.startsWith('$${', dollar)) {
      out += '${'
      index = dollar + 3
    } else if (text.startsWith('${', dollar)) {
      const close = text.indexOf('}', dollar + 2)
      const name = close === -1 ? undefined : text.slice(dollar + 2, close)
      if (name === undefined || !VARIABLE.test(name))
        return {
          problem:
            `"${text.slice(dollar, close === -1 ? undefined : close + 1)}" is not a variable reference: write ` +
            '${NAME} (letters, digits and _), or $${ for a literal ${',
        }
      const found = env[name]
      if (found === undefined || found === '')
        return { problem: `\${${name}} names ${name}, which is unset or empty in the environment` }
      out += found
      index = close! + 1
    } else {
      out += '$'
      index = dollar + 1
    }
  }
  return { text: out + text.slice(index) }
}

/** Where the node at `path` starts (its key, or its value), or the nearest ancestor the text holds. */
function offsetOf(document: Document, path: readonly Segment[], part: 'key' | 'value'): number {
  let node: Node | null = document.contents as Node | null
  let key: Node | undefined
  let offset = node?.range?.[0] ?? 0
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => keyText(item.key) === String(segment))
      if (!pair) return offset
      key = pair.key as Node
      node = pair.value as Node | null
    } else if (isSeq(node) && typeof segment === 'number' && node.items[segment] !== undefined) {
      key = undefined
      node = node.items[segment] as Node
    } else return offset
    offset = (part === 'key' && key ? key.range?.[0] : undefined) ?? nodeStart(node) ?? key?.range?.[0] ?? offset
    // An alias stands for its anchor, elsewhere in the file: what it holds is reported where it is used.
    if (isAlias(node)) return offset
  }
  return part === 'key' && key ? (key.range?.[0] ?? offset) : (nodeStart(node) ?? offset)
}

/** Where a node's text starts; an empty value (`key:`) has none worth pointing at. */
function nodeStart(node: Node | null): number | undefined {
  if (!node || (isScalar(node) && node.value === null && node.source === '')) return undefined
  return node.range?.[0]
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value)
  return typeof key === 'string' ? key : undefined
}

/** A value in a few words: `the string "x"`, `the number 5`, `a list`. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing'
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}…` : value)}`
  if (typeof value === 'number' || typeof value === 'boolean') return `the ${typeof value} ${String(value)}`
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) return 'a mapping'
  return 'a value of another kind'
}
