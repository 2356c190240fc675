import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { type CliIo, runDocsValidate } from '../../src/cli/docs-validate'
import { hasIncludes, IncludeError, resolveIncludes } from '../../src/docs-format/includes'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/** `$ref` includes, resolved relative to the including file as Mintlify's CLI resolves them (issue #27 §1). */

const reader = (files: Record<string, unknown>) => async (path: string) => {
  if (!(path in files)) throw new Error(`ENOENT ${path}`)
  const value = files[path]
  return typeof value === 'string' ? value : JSON.stringify(value)
}

describe('resolveIncludes', () => {
  test('an include is replaced by the file it names, read relative to the file that names it', async () => {
    const resolved = await resolveIncludes(
      { navigation: { languages: [{ language: 'en', pages: ['a'] }, { $ref: 'langs/fr.json' }] } },
      'docs.json',
      reader({
        'langs/fr.json': { language: 'fr', tabs: [{ $ref: 'tabs/guides.json' }] },
        'langs/tabs/guides.json': { tab: 'Guides', pages: ['fr/a'] },
      }),
    )
    expect(resolved).toEqual({
      navigation: {
        languages: [
          { language: 'en', pages: ['a'] },
          { language: 'fr', tabs: [{ tab: 'Guides', pages: ['fr/a'] }] },
        ],
      },
    })
  })

  test("the including object's other keys are laid over an included object; an array is included as is", async () => {
    const resolved = await resolveIncludes(
      { navigation: { $ref: 'nav.json', global: { anchors: [] } }, redirects: { $ref: 'redirects.json' } },
      'docs.json',
      reader({
        'nav.json': { pages: ['a'], global: { tabs: [] } },
        'redirects.json': [{ source: '/a', destination: '/b' }],
      }),
    )
    expect(resolved).toEqual({
      navigation: { pages: ['a'], global: { anchors: [] } },
      redirects: [{ source: '/a', destination: '/b' }],
    })
  })

  const REFUSED: [string, unknown, Record<string, unknown>, string][] = [
    ['a missing file', { $ref: 'gone.json' }, {}, '$ref "gone.json" names gone.json, which cannot be read'],
    ['a path out of the folder', { $ref: '../secret.json' }, {}, 'points outside the folder of docs.json'],
    ['an absolute path', { $ref: '/etc/passwd' }, {}, 'points outside the folder of docs.json'],
    ['a URL', { $ref: 'https://example.com/x.json' }, {}, 'points outside the folder of docs.json'],
    ['a file that is not JSON', { $ref: 'x.json' }, { 'x.json': '{ nope' }, 'names x.json, which is not JSON'],
    ['a cycle', { $ref: 'a.json' }, { 'a.json': { $ref: 'b.json' }, 'b.json': { $ref: 'a.json' } }, 'includes itself'],
    ['itself', { $ref: 'docs.json' }, { 'docs.json': {} }, 'includes itself: docs.json → docs.json'],
  ]
  test.each(REFUSED)('refused: %s', async (_case, value, files, message) => {
    const resolving = resolveIncludes(value, 'docs.json', reader(files))
    await expect(resolving).rejects.toBeInstanceOf(IncludeError)
    await expect(resolving).rejects.toThrow(message)
  })

  test('the number of includes is bounded', async () => {
    const files: Record<string, unknown> = {}
    for (let i = 0; i < 300; i++) files[`f${i}.json`] = { $ref: `f${i + 1}.json` }
    await expect(resolveIncludes({ $ref: 'f0.json' }, 'docs.json', reader(files))).rejects.toThrow(
      'one include too many',
    )
  })

  test('hasIncludes finds a $ref at any depth, and only a string one', () => {
    expect(hasIncludes({ a: [{ b: { $ref: 'x.json' } }] })).toBe(true)
    expect(hasIncludes({ a: [{ b: { $ref: 1 } }], $refs: 'x' })).toBe(false)
  })
})

describe('trellis docs validate with includes', () => {
  test('a file with $ref includes is validated with them resolved, and says so', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'trellis-includes-'))
    try {
      const files: Record<string, unknown> = {
        'docs.json': { theme: 'mint', name: 'A', colors: { primary: '#000' }, navigation: { $ref: 'nav/main.json' } },
        'nav/main.json': { tabs: [{ tab: 'Guides', pages: ['a'] }, { $ref: 'api.json' }] },
        'nav/api.json': { tab: 'API', pages: ['api/a'], icn: 'code' },
      }
      for (const [name, value] of Object.entries(files)) {
        await mkdir(dirname(join(dir, name)), { recursive: true })
        await writeFile(join(dir, name), JSON.stringify(value, null, 2))
      }
      let stdout = ''
      const io: CliIo = { stdout: (text) => void (stdout += text), stderr: () => {}, stdin: async () => '' }
      const code = await runDocsValidate([join(dir, 'docs.json')], io)
      expect(code).toBe(0)
      expect(stdout).toContain('$ref includes resolved; positions refer to the resolved document')
      expect(stdout).toContain('warning navigation.tabs[1].icn: unknown property')
      expect(stdout).toEndWith('valid, 0 errors, 1 warning\n')

      await writeFile(join(dir, 'nav/main.json'), JSON.stringify({ tabs: [{ $ref: '../../out.json' }] }))
      stdout = ''
      expect(await runDocsValidate([join(dir, 'docs.json')], io)).toBe(1)
      expect(stdout).toContain('nav/main.json: $ref "../../out.json" points outside the folder of docs.json')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
