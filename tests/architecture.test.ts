import { expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { Glob } from 'bun'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * The house rules, checked on the imports themselves. Shared code knows nothing above it. The
 * access rooms are layered: cost (the price table) knows none of them, governance (limits) may use cost and
 * knows no token, auth (tokens) may use governance, usage (the ledger and its reads) may use all three. Features may use shared code and the access rooms,
 * never another feature. The composition (app.ts, the CLI and the runtime entries) may import anything.
 */

const SRC = join(import.meta.dir, '../src')
const SHARED = ['config', 'db', 'docs-format', 'http', 'json', 'telemetry', 'timers.ts', 'utf8.ts']
/** Lowest first: a room may import those before it. */
const ACCESS = ['cost', 'governance', 'auth', 'usage']
const FEATURES = ['chat', 'console', 'docs-config', 'docs-pages', 'docs-site', 'operations', 'plants']
const COMPOSITION = ['app.ts', 'cli', 'runtimes', 'testing']

const roomOf = (file: string) => relative(SRC, file).split('/')[0]!

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/from '(\.{1,2}\/[^']+)'/g)].map((match) => {
    const target = resolve(dirname(file), match[1]!)
    return existsSync(`${target}.ts`) ? `${target}.ts` : target
  })
}

test('every file of src/ is in a known room', () => {
  const rooms = new Set([...SHARED, ...ACCESS, ...FEATURES, ...COMPOSITION])
  for (const file of new Glob('**/*').scanSync(SRC))
    expect({ file, known: rooms.has(file.split('/')[0]!) }).toEqual({ file, known: true })
})

/** Why `from` may not import `to`, or undefined when it may. */
function ruleBroken(from: string, to: string): string | undefined {
  if (from === to || COMPOSITION.includes(from)) return undefined
  if (COMPOSITION.includes(to)) return 'imports the composition'
  if (SHARED.includes(from)) return SHARED.includes(to) ? undefined : 'shared code imports a feature or an access room'
  if (ACCESS.includes(from)) {
    if (FEATURES.includes(to)) return 'an access room imports a feature'
    if (ACCESS.includes(to) && ACCESS.indexOf(to) > ACCESS.indexOf(from)) return 'an access room imports one above it'
    return undefined
  }
  return FEATURES.includes(to) ? 'a feature imports another' : undefined
}

test('shared code imports nothing above it, the access rooms only those below them, and no feature another', () => {
  const violations: string[] = []
  for (const path of new Glob('**/*.ts').scanSync(SRC)) {
    const file = join(SRC, path)
    for (const target of importsOf(file)) {
      if (!target.startsWith(SRC)) continue
      const rule = ruleBroken(roomOf(file), roomOf(target))
      if (rule) violations.push(`${rule}: src/${path} → src/${relative(SRC, target)}`)
    }
  }
  expect(violations).toEqual([])
})

test('inside chat, the event-stream code knows no provider', () => {
  const violations: string[] = []
  for (const path of new Glob('chat/sse/**/*.ts').scanSync(SRC)) {
    for (const target of importsOf(join(SRC, path))) {
      if (relative(SRC, target).startsWith('chat/providers/'))
        violations.push(`src/${path} → src/${relative(SRC, target)}`)
    }
  }
  expect(violations).toEqual([])
})

test('files stay under 400 lines', () => {
  const long: string[] = []
  for (const path of new Glob('**/*.ts').scanSync(SRC)) {
    const lines = readFileSync(join(SRC, path), 'utf8').split('\n').length
    if (lines > 400 && path !== 'db/migrations.gen.ts') long.push(`src/${path}: ${lines}`)
  }
  expect(long).toEqual([])
})
