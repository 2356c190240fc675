import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { resolveIncludes } from '../../src/docs-format/includes'
import { navigationOf } from '../../src/docs-format/navigation/build'
import { configFileOf, isSnippetFile, planPush } from '../../src/docs-pages/push-plan'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * What `trellis docs push` would upload from a trimmed copy of mintlify/docs (tests/fixtures/mintlify-docs:
 * its docs.json with the files it includes, three pages, README.md, CONTRIBUTING.md and a snippet).
 */

const ROOT = join(import.meta.dir, '../fixtures/mintlify-docs')

async function navigation() {
  const config = await configFileOf(ROOT)
  expect(config?.file).toBe('docs.json')
  const value = JSON.parse(await readFile(config!.location, 'utf8'))
  return navigationOf(
    (await resolveIncludes(value, 'docs.json', (path) => readFile(join(ROOT, path), 'utf8'))) as Record<
      string,
      unknown
    >,
  )
}

describe('the push plan of a Mintlify repository', () => {
  test('the navigation of all four languages is read through the includes', async () => {
    const nav = await navigation()
    expect(nav.shape).toBe('current')
    expect(nav.pages).toContain('quickstart')
    expect(nav.pages).toContain('fr/quickstart')
    expect(nav.pages.length).toBeGreaterThan(500)
  })

  test('only the pages navigation names are uploaded: not README or CONTRIBUTING, and snippets are not pages', async () => {
    const plan = await planPush(ROOT, await navigation())
    expect(plan.uploads.map((upload) => upload.file)).toEqual(['cli/index.mdx', 'index.mdx', 'quickstart.mdx'])
    expect(plan.uploads.map((upload) => upload.target)).toEqual([
      { kind: 'page', path: 'cli/index' },
      { kind: 'page', path: 'index' },
      { kind: 'page', path: 'quickstart' },
    ])
    expect(plan.snippets.map((snippet) => snippet.file)).toEqual(['snippets/counter.mdx'])
    expect(plan.skipped).toEqual([])
  })

  test('without a docs.json every Markdown file is a page, still not README, CONTRIBUTING, snippets or what .mintignore leaves out', async () => {
    // The fixture's .mintignore (mintlify/docs' own) names agent-context/, which holds a SKILL.md.
    const plan = await planPush(ROOT)
    expect(plan.uploads.map((upload) => upload.file)).toEqual(['cli/index.mdx', 'index.mdx', 'quickstart.mdx'])
  })

  test.each([
    ['snippets/counter.mdx', true],
    ['snippets/es/counter.mdx', true],
    ['guides/snippets/x.mdx', false],
    ['snippets.mdx', false],
  ])('%s is a snippet file: %p', (file, expected) => {
    expect(isSnippetFile(file)).toBe(expected)
  })
})
