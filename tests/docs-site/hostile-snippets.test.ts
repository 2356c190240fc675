import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { PageTooLarge } from '../../src/docs-site/markdown'
import { expandSnippets } from '../../src/docs-site/snippets'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * Snippet imports written to make one page render do unbounded work: each stored snippet is read once per
 * expansion however often it is imported, cycles stop at the depth bound, and a fan-out stops at the size bound.
 */

/** A loader over `snippets` that counts its reads. */
function counting(snippets: Record<string, string>) {
  const reads: string[] = []
  const load = async (path: string) => {
    reads.push(path)
    return snippets[path]
  }
  return { load, reads }
}

const imports = (count: number, path: string, prefix = 'S') =>
  Array.from({ length: count }, (_, index) => `import ${prefix}${index} from '${path}'`).join('\n')

describe('reads per expansion', () => {
  const ROWS: [string, string, Record<string, string>, number][] = [
    ['5,000 imports of one empty snippet', imports(5000, '/snippets/empty.mdx'), { 'snippets/empty': '' }, 1],
    [
      '100 imports of a snippet that imports an empty one 1,000 times',
      imports(100, '/snippets/wide.mdx'),
      { 'snippets/wide': imports(1000, '/snippets/empty.mdx', 'E'), 'snippets/empty': '' },
      2,
    ],
    ['5,000 imports of a snippet that is not stored', imports(5000, '/snippets/missing.mdx'), {}, 1],
    [
      '5,000 named imports of one constant',
      Array.from({ length: 5000 }, (_, index) => `import { a as A${index} } from '/snippets/values.mdx'`).join('\n'),
      { 'snippets/values': "export const a = 'x'" },
      1,
    ],
  ]
  test.each(ROWS)('%s', async (_name, page, snippets, distinct) => {
    const { load, reads } = counting(snippets)
    await expandSnippets(page, 'p', load, 4 * 1024 * 1024)
    expect(reads).toHaveLength(distinct)
  })
})

describe('cycles and depth', () => {
  const ROWS: [string, Record<string, string>][] = [
    ['a snippet that imports itself', { 'snippets/a': "import A from '/snippets/a.mdx'\n<A />" }],
    [
      'two snippets that import each other',
      {
        'snippets/a': "import B from '/snippets/b.mdx'\n<B />",
        'snippets/b': "import A from '/snippets/a.mdx'\n<A />",
      },
    ],
    ['a relative self-import', { 'snippets/a': "import A from './a.mdx'\n<A />" }],
  ]
  test.each(ROWS)('%s: PageTooLarge naming the depth', async (_name, snippets) => {
    const { load, reads } = counting(snippets)
    const page = "import A from '/snippets/a.mdx'\n<A />"
    const expansion = expandSnippets(page, 'p', load, 4 * 1024 * 1024)
    expect(expansion).rejects.toThrow(PageTooLarge)
    expect(expansion).rejects.toThrow('more than 8 deep')
    await expansion.catch(() => undefined)
    expect(reads.length).toBeLessThanOrEqual(2)
  })
})
