import { expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * Bun's setDefaultTimeout holds for the file that calls it: the preload's call (tests/setup.ts) covers only the first
 * file of a run, and a later file's server-starting test then fails at bun's 5 s on a loaded machine while passing
 * alone. So every test file sets its own.
 */
test('every test file sets its default timeout', () => {
  const root = join(import.meta.dir)
  const missing = [...new Bun.Glob('**/*.test.ts').scanSync(root)].filter(
    (file) => !/^setDefaultTimeout\(\d[\d_]*\)$/m.test(readFileSync(join(root, file), 'utf8')),
  )
  expect(missing).toEqual([])
})
