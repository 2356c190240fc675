import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { readDocsConfigFile } from '../../src/cli/docs-config-file'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * `$ref` includes in a docs repository written to read what is not the repository's: a path that leaves the
 * folder, as written or through a symbolic link, is refused naming the include, before any byte outside is read
 * (the push would publish it: a cloud credentials file is JSON too). Cycles stop with the chain named.
 */

let outside: string
let repo: string
beforeAll(async () => {
  outside = await mkdtemp(join(tmpdir(), 'trellis-outside-'))
  await writeFile(join(outside, 'secret.json'), JSON.stringify({ token: 'sk-outside-the-repository' }))
  repo = await mkdtemp(join(tmpdir(), 'trellis-repo-'))
  await mkdir(join(repo, 'nav'))
  await symlink(join(outside, 'secret.json'), join(repo, 'nav/linked.json'))
  await symlink(outside, join(repo, 'linked-folder'))
  await writeFile(join(repo, 'nav/own.json'), JSON.stringify({ tab: 'Own', pages: ['a'] }))
  await symlink(join(repo, 'nav/own.json'), join(repo, 'nav/inside-link.json'))
})
afterAll(async () => {
  await rm(repo, { recursive: true, force: true })
  await rm(outside, { recursive: true, force: true })
})

/** docs.json with `navigation` being what `ref` includes, plus `files`, read through the CLI's reader. */
async function read(ref: string, files: Record<string, unknown> = {}) {
  const config = { theme: 'mint', name: 'A', colors: { primary: '#000000' }, navigation: { $ref: ref } }
  await writeFile(join(repo, 'docs.json'), JSON.stringify(config))
  for (const [name, value] of Object.entries(files)) {
    await mkdir(dirname(join(repo, name)), { recursive: true })
    await writeFile(join(repo, name), JSON.stringify(value))
  }
  return readDocsConfigFile(join(repo, 'docs.json'))
}

describe('paths out of the folder: refused, naming the include', () => {
  const ROWS: [string, string, string][] = [
    ['a symbolic link to a file outside', 'nav/linked.json', 'a symbolic link to a file outside the folder'],
    ['a file in a linked folder outside', 'linked-folder/secret.json', 'a symbolic link to a file outside the folder'],
    ['".." past the root', '../secret.json', 'points outside the folder of docs.json'],
    ['an absolute path', '/tmp/secret.json', 'points outside the folder of docs.json'],
    ['a file: URL', 'file:///tmp/secret.json', 'points outside the folder of docs.json'],
    ['a backslash path', '..\\secret.json', 'points outside the folder of docs.json'],
  ]
  test.each(ROWS)('%s', async (_name, ref, message) => {
    const reading = read(ref)
    expect(reading).rejects.toThrow(message)
    const error = await reading.catch((caught: Error) => caught)
    expect(String(error)).not.toContain('sk-outside-the-repository')
  })
})

describe('paths inside the folder are read', () => {
  test('a symbolic link to a file inside the folder', async () => {
    const { text } = await read('nav/inside-link.json')
    expect(JSON.parse(text).navigation).toEqual({ tab: 'Own', pages: ['a'] })
  })
})

describe('cycles', () => {
  const ROWS: [string, Record<string, unknown>, string][] = [
    ['a file that includes itself', { 'c/a.json': { $ref: 'a.json' } }, 'includes itself'],
    [
      'two files that include each other',
      { 'c/a.json': { $ref: 'b.json' }, 'c/b.json': { $ref: './a.json' } },
      'includes itself',
    ],
  ]
  test.each(ROWS)('%s', async (_name, files, message) => {
    expect(read('c/a.json', files)).rejects.toThrow(message)
  })
})
