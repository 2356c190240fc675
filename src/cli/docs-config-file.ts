import { readFile, realpath } from 'node:fs/promises'
import { basename, dirname, join, sep } from 'node:path'
import { hasIncludes, IncludeOutside, resolveIncludes } from '../docs-format/includes'

/** A docs.json read from disk: the text to validate or send, and whether `$ref` includes were resolved into it. */
export type DocsConfigFile = { text: string; resolved: boolean }

/**
 * Reads a docs.json (or mint.json) and resolves its `$ref` includes relative to it, as Mintlify's CLI does. A
 * file without includes, or one that is not JSON, is returned as written, so that line and column of any
 * finding refer to the file itself; a resolved one is the whole document, pretty-printed.
 *
 * @throws IncludeError when an include cannot be resolved; the file system's error when the file cannot be read.
 */
export async function readDocsConfigFile(path: string): Promise<DocsConfigFile> {
  const text = await readFile(path, 'utf8')
  let value: unknown
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  } catch {
    return { text, resolved: false }
  }
  if (!hasIncludes(value)) return { text, resolved: false }
  const folder = await realpath(dirname(path))
  // The paths were checked as written; a symbolic link in the repository could still lead anywhere (a secret JSON
  // file the push would publish), so each is followed to where it really is first.
  const read = async (relative: string) => {
    const target = await realpath(join(folder, relative))
    if (!target.startsWith(folder + sep)) throw new IncludeOutside(target)
    return readFile(target, 'utf8')
  }
  const resolved = await resolveIncludes(value, basename(path), read)
  return { text: `${JSON.stringify(resolved, null, 2)}\n`, resolved: true }
}
