import { expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { Glob } from 'bun'

/**
 * The house rules, checked on the imports themselves: shared code knows no feature, the
 * access layer (auth, governance) knows no feature, and no feature imports another. The
 * composition (app.ts, bootstrap.ts, the CLI and the runtime entries) may import anything.
 */

const SRC = join(import.meta.dir, '../src')
const SHARED = ['config', 'db', 'http', 'json', 'logging', 'telemetry', 'timers.ts', 'types']
const ACCESS = ['auth', 'governance']
const FEATURES = ['admin', 'chat', 'docs-config', 'metrics', 'operations', 'plants', 'usage']

const roomOf = (file: string) => relative(SRC, file).split('/')[0]!

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/from '(\.{1,2}\/[^']+)'/g)].map((match) => {
    const target = resolve(dirname(file), match[1]!)
    return existsSync(`${target}.ts`) ? `${target}.ts` : target
  })
}

test('every file of src/ is in a known room', () => {
  const rooms = new Set([...SHARED, ...ACCESS, ...FEATURES, 'runtimes', 'app.ts', 'bootstrap.ts', 'cli.ts', 'command-line.ts'])
  for (const file of new Glob('**/*').scanSync(SRC)) expect({ file, known: rooms.has(file.split('/')[0]!) }).toEqual({ file, known: true })
})

test('shared code imports no feature, the access layer no feature, and no feature another', () => {
  const violations: string[] = []
  for (const path of new Glob('**/*.ts').scanSync(SRC)) {
    const file = join(SRC, path)
    const from = roomOf(file)
    for (const target of importsOf(file)) {
      if (!target.startsWith(SRC)) continue
      const to = roomOf(target)
      if (from === to) continue
      const rule = SHARED.includes(from) && (FEATURES.includes(to) || ACCESS.includes(to))
        ? 'shared code imports a feature'
        : ACCESS.includes(from) && FEATURES.includes(to)
          ? 'access imports a feature'
          : FEATURES.includes(from) && FEATURES.includes(to)
            ? 'a feature imports another'
            : undefined
      if (rule) violations.push(`${rule}: src/${path} → src/${relative(SRC, target)}`)
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
