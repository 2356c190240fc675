import { expect, setDefaultTimeout, test } from 'bun:test'
import { MintIgnore } from '../../src/docs-pages/mintignore'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/** `.mintignore`, as Mintlify documents it: `.gitignore`'s syntax (issue #27 §2: what Mintlify would publish). */

const IGNORE = new MintIgnore(
  [
    '# drafts and notes',
    'drafts/',
    '*.draft.mdx',
    '/internal',
    'private-notes.md',
    'secret/*',
    '!secret/public-info.mdx',
    'docs/**/old.mdx',
    '',
  ].join('\n'),
)

const ROWS: [file: string, ignored: boolean][] = [
  ['drafts/a.mdx', true],
  ['guides/drafts/a.mdx', true],
  ['guides/drafts.mdx', false],
  ['intro.draft.mdx', true],
  ['guides/intro.draft.mdx', true],
  ['internal/a.mdx', true],
  ['guides/internal/a.mdx', false],
  ['private-notes.md', true],
  ['guides/private-notes.md', true],
  ['secret/plans.mdx', true],
  ['secret/public-info.mdx', false],
  ['docs/old.mdx', true],
  ['docs/a/b/old.mdx', true],
  ['intro.mdx', false],
]

test.each(ROWS)('%s ignored: %p', (file, ignored) => {
  expect(IGNORE.ignores(file)).toBe(ignored)
})

test('a hostile pattern costs linear time', () => {
  const hostile = new MintIgnore(`${'*a'.repeat(200)}b`)
  const started = performance.now()
  expect(hostile.ignores('a'.repeat(10_000))).toBe(false)
  expect(performance.now() - started).toBeLessThan(1000)
})
